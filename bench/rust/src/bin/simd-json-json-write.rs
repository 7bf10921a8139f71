//! simd-json, Write: simd_json::to_vec through its serde support (the plain
//! tree implements serde::Serialize).
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let out = simd_json::to_vec(root)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "simd-json",
        format: "json",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
