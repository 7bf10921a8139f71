//! ciborium, Tree: ciborium::from_reader into a ciborium::Value (its
//! dynamic value type), then a walk. Tags are skipped (their content is
//! hashed); the benchmark data has none.
use ciborium::Value;
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};

fn walk(v: &Value, h: &mut Sbh) -> Res {
    match v {
        Value::Null => h.null(),
        Value::Bool(b) => h.bool(*b),
        Value::Integer(i) => {
            let i = i128::from(*i);
            if let Ok(u) = u64::try_from(i) {
                h.uint(u)
            } else if let Ok(s) = i64::try_from(i) {
                h.int(s)
            } else {
                return Err(Failure(format!("integer {i} is out of the 64-bit range")));
            }
        }
        Value::Float(d) => h.double(*d),
        Value::Text(s) => h.str(s.as_bytes()),
        Value::Bytes(b) => h.bin(b),
        Value::Tag(_, x) => walk(x, h)?,
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
                    Value::Text(s) => h.key(s.as_bytes()),
                    _ => return Err(Failure(format!("map key {k:?} is not a text string"))),
                }
                walk(x, h)?;
            }
            h.end();
        }
        other => return Err(Failure(format!("ciborium value {other:?} has no plain meaning in the hash"))),
    }
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let v: Value = ciborium::from_reader(input.bytes())?;
    walk(&v, h)
}

fn main() {
    harness::main(&Adapter {
        library: "ciborium",
        format: "cbor",
        test: "tree",
        unordered: false,
        run: Test::Parse(parse),
    })
}
