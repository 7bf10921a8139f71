//! minicbor, Write: minicbor::Encoder over a Vec<u8> the call creates
//! (Encoder::null/bool/i64/u64/f64/str/array/map with definite lengths).
use minicbor::Encoder;
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn enc(n: &Node, e: &mut Encoder<Vec<u8>>) -> Res {
    match n {
        Node::Null => {
            e.null()?;
        }
        Node::Bool(b) => {
            e.bool(*b)?;
        }
        Node::Int(i) => {
            e.i64(*i)?;
        }
        Node::Uint(u) => {
            e.u64(*u)?;
        }
        Node::Double(d) => {
            e.f64(*d)?;
        }
        Node::Str(s) => {
            e.str(s)?;
        }
        Node::Array(a) => {
            e.array(a.len() as u64)?;
            for x in a {
                enc(x, e)?;
            }
        }
        Node::Map(m) => {
            e.map(m.len() as u64)?;
            for (k, x) in m {
                e.str(k)?;
                enc(x, e)?;
            }
        }
    }
    Ok(())
}

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let mut e = Encoder::new(Vec::new());
    enc(root, &mut e)?;
    let out = e.into_writer();
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "minicbor",
        format: "cbor",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
