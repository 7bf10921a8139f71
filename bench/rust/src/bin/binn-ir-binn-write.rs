//! binn-ir, Write: binn-ir writes only its own document (binn_ir::Value;
//! its encoder needs every container's size before the container's items),
//! so the call builds a Value from the plain tree and encodes it with
//! Value::encode into a Vec<u8>. Integers take the smallest Binn type, as
//! Binn's own C library writes them (binn_support::Int); doubles are Double,
//! strings Text, arrays List, maps Object.
//!
//! binn-ir's Object is a BTreeMap (binn_ir::Object, "pub type Object =
//! BTreeMap<ObjectKey, Value>"): the output lists every object's keys in
//! sorted order, not the tree's, so the program is marked unordered.
use binn_ir::Value;
use sdx_bench::binn_support::Int;
use sdx_bench::{harness, Adapter, Node, Res, Test};

fn to_value(n: &Node) -> Value {
    let int = |i: Int| match i {
        Int::U8(v) => Value::U8(v),
        Int::U16(v) => Value::U16(v),
        Int::U32(v) => Value::U32(v),
        Int::U64(v) => Value::U64(v),
        Int::I8(v) => Value::I8(v),
        Int::I16(v) => Value::I16(v),
        Int::I32(v) => Value::I32(v),
        Int::I64(v) => Value::I64(v),
    };
    match n {
        Node::Null => Value::Null,
        Node::Bool(true) => Value::True,
        Node::Bool(false) => Value::False,
        Node::Int(i) => int(Int::of_i64(*i)),
        Node::Uint(u) => int(Int::of_u64(*u)),
        Node::Double(d) => Value::Double(*d),
        Node::Str(s) => Value::Text(s.clone()),
        Node::Array(a) => Value::List(a.iter().map(to_value).collect()),
        Node::Map(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), to_value(v))).collect()),
    }
}

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let mut out = Vec::new();
    to_value(root).encode(&mut out)?;
    emit(&out);
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "binn-ir",
        format: "binn",
        test: "write",
        unordered: true,
        run: Test::Write(write),
    })
}
