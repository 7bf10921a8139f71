//! ciborium, Write: ciborium::into_writer (its serde serializer; the plain
//! tree implements serde::Serialize) into a Vec<u8> the call creates.
//! ciborium writes each double in the shortest float width that keeps its
//! value (CBOR preferred serialization).
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let mut out = Vec::new();
    ciborium::into_writer(root, &mut out)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "ciborium",
        format: "cbor",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
