//! serde_json, Incremental: serde_json's streaming API is its serde
//! Deserializer; a DeserializeSeed whose Visitor hashes each value as the
//! parser reports it (sdx_bench::serde_support::HashSeed) builds nothing.
use sdx_bench::serde_support::HashSeed;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};
use serde::de::DeserializeSeed;

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut de = serde_json::Deserializer::from_slice(input.bytes());
    HashSeed(h).deserialize(&mut de)?;
    de.end()?;
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "serde_json",
        format: "json",
        test: "incremental",
        unordered: false,
        run: Test::Parse(parse),
    })
}
