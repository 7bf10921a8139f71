//! sonic-rs, Write: sonic_rs::to_vec (its serde serializer; the plain tree
//! implements serde::Serialize).
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let out = sonic_rs::to_vec(root)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "sonic-rs",
        format: "json",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
