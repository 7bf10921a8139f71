//! binn-ir, Tree: binn_ir::decode (its Decoder over the input slice) into a
//! binn_ir::Value, then a walk.
//!
//! binn-ir's Object and Map are BTreeMaps (binn_ir::Object, binn_ir::Map):
//! they keep their entries sorted by key, not in document order, and have no
//! option that keeps it; the program is marked unordered and hashes every
//! object and map without order (sdx_bench::unordered). A Map's integer
//! keys hash as integers, as the reference decoder does.
use binn_ir::Value;
use sdx_bench::harness::Failure;
use sdx_bench::{binn_support, harness, unordered, Adapter, Input, Res, Sbh, Test};

fn walk(v: &Value, h: &mut Sbh) -> Res {
    match v {
        Value::Null => h.null(),
        Value::True => h.bool(true),
        Value::False => h.bool(false),
        Value::U8(u) => h.uint(*u as u64),
        Value::U16(u) => h.uint(*u as u64),
        Value::U32(u) => h.uint(*u as u64),
        Value::U64(u) => h.uint(*u),
        Value::I8(i) => h.int(*i as i64),
        Value::I16(i) => h.int(*i as i64),
        Value::I32(i) => h.int(*i as i64),
        Value::I64(i) => h.int(*i),
        Value::Float(f) => h.double(*f as f64),
        Value::Double(d) => h.double(*d),
        Value::Text(s) => h.str(s.as_bytes()),
        Value::Blob(b) => h.bin(b),
        Value::List(a) => {
            h.array();
            for x in a {
                walk(x, h)?;
            }
            h.end();
        }
        Value::Map(m) => unordered::map(h, m, |(k, x), e| {
            e.int(*k as i64);
            walk(x, e)
        })?,
        Value::Object(m) => unordered::map(h, m, |(k, x), e| {
            e.key(k.as_bytes());
            walk(x, e)
        })?,
        other => return Err(Failure(format!("binn-ir decoded {other:?}, which has no plain meaning in the hash"))),
    }
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    walk(&binn_support::binn_ir_decode(input.bytes())?, h)
}

fn main() {
    harness::main(&Adapter {
        library: "binn-ir",
        format: "binn",
        test: "tree",
        unordered: true,
        run: Test::Parse(parse),
    })
}
