//! rmp (rmpv), Tree: rmpv::decode::read_value into an rmpv::Value (the rmp
//! project's dynamic value type), then a walk.
use rmpv::Value;
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};

fn walk(v: &Value, h: &mut Sbh) -> Res {
    match v {
        Value::Nil => h.null(),
        Value::Boolean(b) => h.bool(*b),
        Value::Integer(i) => {
            if let Some(u) = i.as_u64() {
                h.uint(u)
            } else if let Some(s) = i.as_i64() {
                h.int(s)
            } else {
                return Err(Failure(format!("integer {i} is out of the 64-bit range")));
            }
        }
        Value::F32(f) => h.double(*f as f64),
        Value::F64(d) => h.double(*d),
        Value::String(s) => h.str(s.as_bytes()),
        Value::Binary(b) => h.bin(b),
        Value::Array(a) => {
            h.array();
            for x in a {
                walk(x, h)?;
            }
            h.end();
        }
        Value::Map(m) => {
            h.map();
            for (k, x) in m {
                match k {
                    Value::String(s) => h.key(s.as_bytes()),
                    _ => return Err(Failure(format!("map key {k:?} is not a string"))),
                }
                walk(x, h)?;
            }
            h.end();
        }
        Value::Ext(t, _) => return Err(Failure(format!("ext type {t} has no plain meaning in the hash"))),
    }
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut rd = input.bytes();
    let v = rmpv::decode::read_value(&mut rd)?;
    if !rd.is_empty() {
        return Err(Failure(format!("{} bytes after the value", rd.len())));
    }
    walk(&v, h)
}

fn main() {
    harness::main(&Adapter {
        library: "rmp",
        format: "msgpack",
        test: "tree",
        unordered: false,
        run: Test::Parse(parse),
    })
}
