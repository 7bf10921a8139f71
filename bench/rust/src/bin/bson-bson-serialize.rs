//! bson, Serialize: the input decoded once into a bson::Document (an
//! ordered map; as in bson-bson-tree), then Document::to_vec.
use bson::{Document, RawDocument};
use sdx_bench::harness::{Doc, Failure};
use sdx_bench::{harness, Adapter, Input, Res, Test};

fn load(input: &Input) -> Result<Doc, Failure> {
    let d = Document::try_from(RawDocument::from_bytes(input.bytes())?)?;
    Ok(Box::new(d))
}

fn serialize(doc: &Doc, emit: &mut dyn FnMut(&[u8])) -> Res {
    let d: &Document = doc.downcast_ref().expect("load made a bson::Document");
    emit(&d.to_vec()?);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "bson",
        format: "bson",
        test: "serialize",
        unordered: false,
        run: Test::Serialize(load, serialize),
    })
}
