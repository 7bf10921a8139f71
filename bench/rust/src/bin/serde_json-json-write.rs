//! serde_json, Write: the plain tree implements serde::Serialize
//! (sdx_bench::serde_support) and serde_json::to_vec encodes it — serde_json's
//! natural writer (minified JSON into a Vec the call creates).
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let out = serde_json::to_vec(root)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "serde_json",
        format: "json",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
