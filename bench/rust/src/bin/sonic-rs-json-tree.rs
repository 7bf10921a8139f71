//! sonic-rs, Tree: sonic_rs::from_slice into sonic_rs::Value (its DOM;
//! objects are stored as ordered key/value pairs), then a walk.
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};
use sonic_rs::{JsonNumberTrait, Value, ValueRef};

fn walk(v: &Value, h: &mut Sbh) {
    match v.as_ref() {
        ValueRef::Null => h.null(),
        ValueRef::Bool(b) => h.bool(b),
        ValueRef::Number(n) => {
            if let Some(u) = n.as_u64() {
                h.uint(u)
            } else if let Some(i) = n.as_i64() {
                h.int(i)
            } else {
                h.double(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        ValueRef::String(s) => h.str(s.as_bytes()),
        ValueRef::Array(a) => {
            h.array();
            for x in a.iter() {
                walk(x, h);
            }
            h.end();
        }
        ValueRef::Object(m) => {
            h.map();
            for (k, x) in m.iter() {
                h.key(k.as_bytes());
                walk(x, h);
            }
            h.end();
        }
    }
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let v: Value = sonic_rs::from_slice(input.bytes())?;
    walk(&v, h);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "sonic-rs",
        format: "json",
        test: "tree",
        unordered: false,
        run: Test::Parse(parse),
    })
}
