//! sonic-rs, Incremental: sonic_rs::Deserializer (its serde deserializer)
//! driven by a DeserializeSeed whose Visitor hashes each value as it is
//! parsed, building nothing.
//!
//! sonic-rs's other non-DOM APIs are lazy: get/get_many, LazyValue and the
//! to_object_iter/to_array_iter iterators skip over values and hand out raw
//! JSON slices, for reading a few fields of a large document. Hashing every
//! value that way means re-parsing every raw slice level by level, which is
//! not how they are meant to be used; the serde deserializer is sonic-rs's
//! streaming parse of a whole document.
use sdx_bench::serde_support::HashSeed;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};
use serde::de::DeserializeSeed;

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut de = sonic_rs::Deserializer::from_slice(input.bytes());
    HashSeed(h).deserialize(&mut de)?;
    de.end()?;
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "sonic-rs",
        format: "json",
        test: "incremental",
        unordered: false,
        run: Test::Parse(parse),
    })
}
