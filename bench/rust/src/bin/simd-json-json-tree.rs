//! simd-json, Tree: simd_json::to_borrowed_value into a BorrowedValue, then a
//! walk. simd-json parses in place (it unescapes strings into the buffer it
//! is given), so each call first copies the input into a scratch buffer of
//! its own: that copy is part of using simd-json on read-only input and is
//! timed with the parse.
//!
//! Objects are halfbrown maps (simd_json::borrowed::Object): up to 32
//! entries a vector in document order, above that a hash map whose
//! iteration order is not the document's. Neither simd-json nor halfbrown
//! nor value-trait has an option that keeps the order in this DOM (the
//! `arraybackend` feature only changes the vector's storage, `known-key` the
//! hasher), so the program is marked unordered and hashes every object
//! without order (sdx_bench::unordered). simd-json's tape (to_tape, walked
//! by the Incremental program) does keep document order.
use std::borrow::Cow;

use sdx_bench::{harness, unordered, Adapter, Input, Res, Sbh, Test};
use simd_json::{BorrowedValue, StaticNode};

fn walk(v: &BorrowedValue, h: &mut Sbh) -> Res {
    match v {
        BorrowedValue::Static(s) => match s {
            StaticNode::Null => h.null(),
            StaticNode::Bool(b) => h.bool(*b),
            StaticNode::I64(i) => h.int(*i),
            StaticNode::U64(u) => h.uint(*u),
            StaticNode::F64(d) => h.double(*d),
        },
        BorrowedValue::String(s) => h.str(s.as_bytes()),
        BorrowedValue::Array(a) => {
            h.array();
            for x in a.iter() {
                walk(x, h)?;
            }
            h.end();
        }
        BorrowedValue::Object(m) => {
            unordered::map(h, m.iter(), |(k, x), e| {
                let k: &Cow<str> = k;
                e.key(k.as_bytes());
                walk(x, e)
            })?;
        }
    }
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut scratch = input.bytes().to_vec(); // simd-json mutates its input
    let v = simd_json::to_borrowed_value(&mut scratch)?;
    walk(&v, h)
}

fn main() {
    harness::main(&Adapter {
        library: "simd-json",
        format: "json",
        test: "tree",
        unordered: true,
        run: Test::Parse(parse),
    })
}
