//! serde_json, Tree: serde_json::from_slice into serde_json::Value (with the
//! `preserve_order` feature, so objects keep document order; `float_roundtrip`
//! for correctly rounded doubles), then a walk of the Value.
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};
use serde_json::Value;

fn walk(v: &Value, h: &mut Sbh) {
    match v {
        Value::Null => h.null(),
        Value::Bool(b) => h.bool(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                h.uint(u)
            } else if let Some(i) = n.as_i64() {
                h.int(i)
            } else {
                h.double(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => h.str(s.as_bytes()),
        Value::Array(a) => {
            h.array();
            for x in a {
                walk(x, h);
            }
            h.end();
        }
        Value::Object(m) => {
            h.map();
            for (k, x) in m {
                h.key(k.as_bytes());
                walk(x, h);
            }
            h.end();
        }
    }
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let v: Value = serde_json::from_slice(input.bytes())?;
    walk(&v, h);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "serde_json",
        format: "json",
        test: "tree",
        unordered: false,
        run: Test::Parse(parse),
    })
}
