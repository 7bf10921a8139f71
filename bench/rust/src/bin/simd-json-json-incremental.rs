//! simd-json, Incremental: simd_json::to_tape, then one pass over the tape.
//!
//! simd-json has no callback or pull API: its parser (stage 1 structural
//! index, stage 2 tape) produces a flat tape of events — strings and
//! scalars, and container starts with their element counts — and every
//! other API (the serde Deserializer, the Value DOMs) is built by walking
//! that tape. Walking the tape directly is the lowest-level, allocation-
//! light use of the library and the closest it has to an event stream;
//! going through serde with a hashing visitor would walk the same tape with
//! serde's overhead added. The scratch copy is required (in-place parse)
//! and timed.
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};
use simd_json::{Node, StaticNode};

/// Hash the value starting at nodes[i]; returns the index after it.
fn walk(nodes: &[Node], mut i: usize, h: &mut Sbh) -> usize {
    match nodes[i] {
        Node::Static(s) => {
            match s {
                StaticNode::Null => h.null(),
                StaticNode::Bool(b) => h.bool(b),
                StaticNode::I64(v) => h.int(v),
                StaticNode::U64(v) => h.uint(v),
                StaticNode::F64(v) => h.double(v),
            }
            i + 1
        }
        Node::String(s) => {
            h.str(s.as_bytes());
            i + 1
        }
        Node::Array { len, .. } => {
            h.array();
            i += 1;
            for _ in 0..len {
                i = walk(nodes, i, h);
            }
            h.end();
            i
        }
        Node::Object { len, .. } => {
            h.map();
            i += 1;
            for _ in 0..len {
                match nodes[i] {
                    Node::String(k) => h.key(k.as_bytes()),
                    _ => unreachable!("simd-json tape: object key is not a string"),
                }
                i = walk(nodes, i + 1, h);
            }
            h.end();
            i
        }
    }
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut scratch = input.bytes().to_vec(); // simd-json mutates its input
    let tape = simd_json::to_tape(&mut scratch)?;
    if !tape.0.is_empty() {
        walk(&tape.0, 0, h);
    }
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "simd-json",
        format: "json",
        test: "incremental",
        unordered: false,
        run: Test::Parse(parse),
    })
}
