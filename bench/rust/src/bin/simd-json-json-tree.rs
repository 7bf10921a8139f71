//! simd-json, Tree: simd_json::to_borrowed_value into a BorrowedValue, then a
//! walk. simd-json parses in place (it unescapes strings into the buffer it
//! is given), so each call first copies the input into a scratch buffer of
//! its own: that copy is part of using simd-json on read-only input and is
//! timed with the parse.
//!
//! Objects are halfbrown maps: up to 32 entries a vector in document order,
//! above that a hash map whose iteration order is not the document's — such
//! objects hash differently and fail verification (a property of this DOM;
//! not corrected here).
use std::borrow::Cow;

use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};
use simd_json::{BorrowedValue, StaticNode};

fn walk(v: &BorrowedValue, h: &mut Sbh) {
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
                walk(x, h);
            }
            h.end();
        }
        BorrowedValue::Object(m) => {
            h.map();
            for (k, x) in m.iter() {
                let k: &Cow<str> = k;
                h.key(k.as_bytes());
                walk(x, h);
            }
            h.end();
        }
    }
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut scratch = input.bytes().to_vec(); // simd-json mutates its input
    let v = simd_json::to_borrowed_value(&mut scratch)?;
    walk(&v, h);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "simd-json",
        format: "json",
        test: "tree",
        unordered: false,
        run: Test::Parse(parse),
    })
}
