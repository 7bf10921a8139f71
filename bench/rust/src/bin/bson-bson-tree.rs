//! bson, Tree: bson::Document (an ordered map of Bson values) decoded from
//! the input — RawDocument::from_bytes checks the framing, then
//! Document::try_from builds the owned document (what Document::from_reader
//! does after first copying the bytes into a buffer of its own) — then a
//! walk.
use bson::{Bson, Document, RawDocument};
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};

fn walk(v: &Bson, h: &mut Sbh) -> Res {
    match v {
        Bson::Null | Bson::Undefined => h.null(),
        Bson::Boolean(b) => h.bool(*b),
        Bson::Int32(i) => h.int(*i as i64),
        Bson::Int64(i) => h.int(*i),
        Bson::Double(d) => h.double(*d),
        Bson::String(s) => h.str(s.as_bytes()),
        Bson::Binary(b) => h.bin(&b.bytes),
        Bson::Array(a) => {
            h.array();
            for x in a {
                walk(x, h)?;
            }
            h.end();
        }
        Bson::Document(d) => doc(d, h)?,
        other => return Err(Failure(format!("unsupported BSON element {:?}", other.element_type()))),
    }
    Ok(())
}

fn doc(d: &Document, h: &mut Sbh) -> Res {
    h.map();
    for (k, x) in d {
        h.key(k.as_bytes());
        walk(x, h)?;
    }
    h.end();
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let d = Document::try_from(RawDocument::from_bytes(input.bytes())?)?;
    doc(&d, h)
}

fn main() {
    harness::main(&Adapter { library: "bson", format: "bson", test: "tree", unordered: false, run: Test::Parse(parse) })
}
