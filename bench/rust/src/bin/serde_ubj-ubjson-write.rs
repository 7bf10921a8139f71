//! serde_ubj, Write: serde_ubj::to_vec (its serde serializer; the plain tree
//! implements serde::Serialize). serde_ubj writes every integer as int64
//! ('L') and every double as float64 ('D'), containers without counts; it
//! rejects integers above INT64_MAX, which the UBJSON adaptation has
//! already turned into doubles. Its reader's deserialize_any panics as
//! unimplemented, so there are no Tree or Incremental programs.
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let out = serde_ubj::to_vec(root)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "serde_ubj",
        format: "ubjson",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
