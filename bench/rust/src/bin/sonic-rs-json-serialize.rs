//! sonic-rs, Serialize: the input parsed once into sonic_rs::Value (objects
//! are ordered key/value pairs), then sonic_rs::to_vec into a Vec the call
//! creates.
use sdx_bench::harness::{Doc, Failure};
use sdx_bench::{harness, Adapter, Input, Res, Test};
use sonic_rs::Value;

fn load(input: &Input) -> Result<Doc, Failure> {
    let v: Value = sonic_rs::from_slice(input.bytes())?;
    Ok(Box::new(v))
}

fn serialize(doc: &Doc, emit: &mut dyn FnMut(&[u8])) -> Res {
    let v: &Value = doc.downcast_ref().expect("load made a sonic_rs::Value");
    emit(&sonic_rs::to_vec(v)?);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "sonic-rs",
        format: "json",
        test: "serialize",
        unordered: false,
        run: Test::Serialize(load, serialize),
    })
}
