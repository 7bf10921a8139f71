//! ciborium, Serialize: the input decoded once into a ciborium::Value (maps
//! are vectors of pairs, in document order), then ciborium::into_writer
//! into a Vec<u8> the call creates; each double takes the shortest float
//! width that keeps its value.
use ciborium::Value;
use sdx_bench::harness::{Doc, Failure};
use sdx_bench::{harness, Adapter, Input, Res, Test};

fn load(input: &Input) -> Result<Doc, Failure> {
    let v: Value = ciborium::from_reader(input.bytes())?;
    Ok(Box::new(v))
}

fn serialize(doc: &Doc, emit: &mut dyn FnMut(&[u8])) -> Res {
    let v: &Value = doc.downcast_ref().expect("load made a ciborium::Value");
    let mut out = Vec::new();
    ciborium::into_writer(v, &mut out)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "ciborium",
        format: "cbor",
        test: "serialize",
        unordered: false,
        run: Test::Serialize(load, serialize),
    })
}
