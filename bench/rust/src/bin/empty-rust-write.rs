//! The empty adapter: the harness alone, for the code-size baseline (as
//! bench/harness/empty.c). Its "write" emits nothing; it is never timed
//! against the others.
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn write(_root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    emit(b"");
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "empty",
        format: "none",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
