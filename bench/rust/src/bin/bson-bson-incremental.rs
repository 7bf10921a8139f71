//! bson, Incremental: bson::RawDocument, the crate's zero-copy view of
//! encoded BSON. Iterating it parses one element at a time straight from
//! the input bytes (key, type and value; strings and nested documents are
//! borrowed slices), allocating nothing — the bson crate's pull API (it has
//! no SAX or event interface).
use bson::raw::{RawArray, RawBsonRef, RawDocument};
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};

fn value(v: RawBsonRef, h: &mut Sbh) -> Res {
    match v {
        RawBsonRef::Null | RawBsonRef::Undefined => h.null(),
        RawBsonRef::Boolean(b) => h.bool(b),
        RawBsonRef::Int32(i) => h.int(i as i64),
        RawBsonRef::Int64(i) => h.int(i),
        RawBsonRef::Double(d) => h.double(d),
        RawBsonRef::String(s) => h.str(s.as_bytes()),
        RawBsonRef::Binary(b) => h.bin(b.bytes),
        RawBsonRef::Array(a) => array(a, h)?,
        RawBsonRef::Document(d) => doc(d, h)?,
        other => return Err(Failure(format!("unsupported BSON element {:?}", other.element_type()))),
    }
    Ok(())
}

fn array(a: &RawArray, h: &mut Sbh) -> Res {
    h.array();
    for x in a {
        value(x?, h)?;
    }
    h.end();
    Ok(())
}

fn doc(d: &RawDocument, h: &mut Sbh) -> Res {
    h.map();
    for e in d {
        let (k, x) = e?;
        h.key(k.as_str().as_bytes());
        value(x, h)?;
    }
    h.end();
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    doc(RawDocument::from_bytes(input.bytes())?, h)
}

fn main() {
    harness::main(&Adapter {
        library: "bson",
        format: "bson",
        test: "incremental",
        unordered: false,
        run: Test::Parse(parse),
    })
}
