//! rmp (rmpv), Serialize: the input decoded once into an rmpv::Value (maps
//! are vectors of pairs, in document order), then
//! rmpv::encode::write_value into a Vec<u8> the call creates. Integers are
//! written in their most compact encoding, F64 as float 64.
use rmpv::Value;
use sdx_bench::harness::{Doc, Failure};
use sdx_bench::{harness, Adapter, Input, Res, Test};

fn load(input: &Input) -> Result<Doc, Failure> {
    let mut rd = input.bytes();
    let v = rmpv::decode::read_value(&mut rd)?;
    if !rd.is_empty() {
        return Err(Failure(format!("{} bytes after the value", rd.len())));
    }
    Ok(Box::new(v))
}

fn serialize(doc: &Doc, emit: &mut dyn FnMut(&[u8])) -> Res {
    let v: &Value = doc.downcast_ref().expect("load made an rmpv::Value");
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "rmp",
        format: "msgpack",
        test: "serialize",
        unordered: false,
        run: Test::Serialize(load, serialize),
    })
}
