//! rmp, Write: rmp's low-level encode functions (rmp::encode::write_*) into
//! a Vec<u8> the call creates — rmp's own writer API (rmp-serde and rmpv
//! are layers over it). Integers take their most compact encoding
//! (write_sint / write_uint), doubles are written as float 64.
use rmp::encode;
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn enc(n: &Node, w: &mut Vec<u8>) -> Res {
    match n {
        Node::Null => encode::write_nil(w)?,
        Node::Bool(b) => encode::write_bool(w, *b)?,
        Node::Int(i) => {
            encode::write_sint(w, *i)?;
        }
        Node::Uint(u) => {
            encode::write_uint(w, *u)?;
        }
        Node::Double(d) => encode::write_f64(w, *d)?,
        Node::Str(s) => encode::write_str(w, s)?,
        Node::Array(a) => {
            encode::write_array_len(w, u32::try_from(a.len())?)?;
            for x in a {
                enc(x, w)?;
            }
        }
        Node::Map(m) => {
            encode::write_map_len(w, u32::try_from(m.len())?)?;
            for (k, x) in m {
                encode::write_str(w, k)?;
                enc(x, w)?;
            }
        }
    }
    Ok(())
}

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let mut out = Vec::new();
    enc(root, &mut out)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "rmp",
        format: "msgpack",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
