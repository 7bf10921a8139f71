//! binn-ir, Serialize: the input decoded once into a binn_ir::Value (not
//! timed), then Value::encode into a Vec<u8> the call creates. Objects are
//! BTreeMaps, so the output lists keys in sorted order (unordered; see
//! binn-ir-binn-tree).
use binn_ir::Value;
use sdx_bench::harness::{Doc, Failure};
use sdx_bench::{binn_support, harness, Adapter, Input, Res, Test};

fn load(input: &Input) -> Result<Doc, Failure> {
    Ok(Box::new(binn_support::binn_ir_decode(input.bytes())?))
}

fn serialize(doc: &Doc, emit: &mut dyn FnMut(&[u8])) -> Res {
    let v: &Value = doc.downcast_ref().expect("load made a binn_ir::Value");
    let mut out = Vec::new();
    v.encode(&mut out)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "binn-ir",
        format: "binn",
        test: "serialize",
        unordered: true,
        run: Test::Serialize(load, serialize),
    })
}
