//! bson, Write: the bson crate writes its own document type, so the call
//! builds a bson::Document from the plain tree (integers as Int32 when they
//! fit, else Int64, as the MongoDB drivers do; arrays as Bson::Array) and
//! encodes it with Document::to_vec.
use bson::{Bson, Document};
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn to_bson(n: &Node) -> Result<Bson, Failure> {
    Ok(match n {
        Node::Null => Bson::Null,
        Node::Bool(b) => Bson::Boolean(*b),
        Node::Int(i) => match i32::try_from(*i) {
            Ok(v) => Bson::Int32(v),
            Err(_) => Bson::Int64(*i),
        },
        Node::Uint(u) => match i64::try_from(*u) {
            Ok(v) => Bson::Int64(v),
            Err(_) => {
                return Err(Failure(format!("integer {u} is above INT64_MAX: BSON has no unsigned 64-bit integer")))
            }
        },
        Node::Double(d) => Bson::Double(*d),
        Node::Str(s) => Bson::String(s.clone()),
        Node::Array(a) => Bson::Array(a.iter().map(to_bson).collect::<Result<_, _>>()?),
        Node::Map(m) => Bson::Document(to_doc(m)?),
    })
}

fn to_doc(m: &[(String, Node)]) -> Result<Document, Failure> {
    let mut d = Document::new();
    for (k, x) in m {
        d.insert(k.clone(), to_bson(x)?);
    }
    Ok(d)
}

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let Node::Map(m) = root else { return Err(Failure("BSON needs a map at the root".into())) };
    let out = to_doc(m)?.to_vec()?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "bson",
        format: "bson",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
