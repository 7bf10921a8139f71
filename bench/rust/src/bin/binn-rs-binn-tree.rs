//! binn-rs, Tree: binn_rs::Value::try_from over the input, the crate's
//! document — a zero-copy view of the encoded bytes whose List, Map and
//! Object check every item they hold when they are made, and hand out their
//! items (strings borrowed from the input) when iterated — then a walk.
//! binn-rs has no other reader, so there is no Incremental program.
use binn_rs::Value;
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};

fn walk(v: Value, h: &mut Sbh) -> Res {
    match v {
        Value::Null => h.null(),
        Value::True => h.bool(true),
        Value::False => h.bool(false),
        Value::UInt8(u) => h.uint(u as u64),
        Value::UInt16(u) => h.uint(u as u64),
        Value::UInt32(u) => h.uint(u as u64),
        Value::UInt64(u) => h.uint(u),
        Value::Int8(i) => h.int(i as i64),
        Value::Int16(i) => h.int(i as i64),
        Value::Int32(i) => h.int(i as i64),
        Value::Int64(i) => h.int(i),
        Value::Float(f) => h.double(f as f64),
        Value::Double(d) => h.double(d),
        Value::Text(s) => h.str(s.as_bytes()),
        Value::Blob(b) => h.bin(b),
        Value::List(a) => {
            h.array();
            for x in a.iter() {
                walk(x, h)?;
            }
            h.end();
        }
        Value::Map(m) => {
            h.map();
            for (k, x) in m.iter() {
                h.int(k as i64);
                walk(x, h)?;
            }
            h.end();
        }
        Value::Object(m) => {
            h.map();
            for (k, x) in m.iter() {
                h.key(k.as_bytes());
                walk(x, h)?;
            }
            h.end();
        }
        other => return Err(Failure(format!("binn-rs read {other:?}, which has no plain meaning in the hash"))),
    }
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    // binn-rs's Error implements Debug only
    let v = Value::try_from(input.bytes()).map_err(|e| Failure(format!("binn-rs: {e:?}")))?;
    walk(v, h)
}

fn main() {
    harness::main(&Adapter {
        library: "binn-rs",
        format: "binn",
        test: "tree",
        unordered: false,
        run: Test::Parse(parse),
    })
}
