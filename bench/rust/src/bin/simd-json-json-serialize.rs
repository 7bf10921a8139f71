//! simd-json, Serialize: the input parsed once into a simd_json::OwnedValue
//! (the DOM that owns its strings; the document must outlive the input),
//! then Writable::encode, simd-json's own generator, into a String the call
//! creates.
//!
//! Objects are halfbrown maps that keep document order only up to 32
//! entries (see simd-json-json-tree), so the output's key order is not the
//! document's: the program is marked unordered.
use sdx_bench::harness::{Doc, Failure};
use sdx_bench::{harness, Adapter, Input, Res, Test};
use simd_json::prelude::Writable;
use simd_json::OwnedValue;

fn load(input: &Input) -> Result<Doc, Failure> {
    let mut scratch = input.bytes().to_vec(); // simd-json mutates its input
    let v = simd_json::to_owned_value(&mut scratch)?;
    Ok(Box::new(v))
}

fn serialize(doc: &Doc, emit: &mut dyn FnMut(&[u8])) -> Res {
    let v: &OwnedValue = doc.downcast_ref().expect("load made a simd_json::OwnedValue");
    emit(v.encode().as_bytes());
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "simd-json",
        format: "json",
        test: "serialize",
        unordered: true,
        run: Test::Serialize(load, serialize),
    })
}
