//! serde_json, Serialize: the input parsed once into serde_json::Value
//! (preserve_order: objects are IndexMaps in document order;
//! float_roundtrip), then serde_json::to_vec — minified JSON into a Vec the
//! call creates.
use sdx_bench::harness::{Doc, Failure};
use sdx_bench::{harness, Adapter, Input, Res, Test};
use serde_json::Value;

fn load(input: &Input) -> Result<Doc, Failure> {
    let v: Value = serde_json::from_slice(input.bytes())?;
    Ok(Box::new(v))
}

fn serialize(doc: &Doc, emit: &mut dyn FnMut(&[u8])) -> Res {
    let v: &Value = doc.downcast_ref().expect("load made a serde_json::Value");
    emit(&serde_json::to_vec(v)?);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "serde_json",
        format: "json",
        test: "serialize",
        unordered: false,
        run: Test::Serialize(load, serialize),
    })
}
