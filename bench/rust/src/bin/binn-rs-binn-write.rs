//! binn-rs, Write: binn-rs builds its containers in a buffer the caller
//! gives it (a no_alloc crate: List::empty_mut / Object::empty_mut over a
//! `&mut [u8]`, then add_value). Integers take the smallest Binn type, as
//! Binn's own C library writes them (binn_support::Int).
//!
//! Nested containers are built bottom-up, as Binn's C library does it: each
//! one complete in a buffer of its own (one per nesting level), then added
//! to its parent with add_value, which copies it in. The crate's tests fill
//! a nested container in place instead (add_value(List::empty()) and the
//! handle it returns), but in binn-rs 0.1.0 that corrupts the output as soon
//! as an enclosing container's size passes 127 bytes: the enclosing header
//! grows from 1 to 4 bytes and moves the nested container's bytes, and the
//! handle keeps writing at the old place (raw_container.rs, add_container
//! and increment_size_and_count). A level's buffer is zeroed again after
//! each use (see `add`).
//!
//! The buffers cannot grow: when one is too small binn-rs answers
//! Error::SmallBuffer, and the call starts over with buffers twice as large
//! (from 4 KiB), the way a caller who does not know the size uses it.
use binn_rs::{Error, List, Object, Value};
use sdx_bench::binn_support::Int;
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Node, Res, Test};

/// A scalar as a binn-rs Value; None for containers.
fn scalar(n: &Node) -> Option<Value<'_>> {
    let int = |i: Int| match i {
        Int::U8(v) => Value::UInt8(v),
        Int::U16(v) => Value::UInt16(v),
        Int::U32(v) => Value::UInt32(v),
        Int::U64(v) => Value::UInt64(v),
        Int::I8(v) => Value::Int8(v),
        Int::I16(v) => Value::Int16(v),
        Int::I32(v) => Value::Int32(v),
        Int::I64(v) => Value::Int64(v),
    };
    Some(match n {
        Node::Null => Value::Null,
        Node::Bool(true) => Value::True,
        Node::Bool(false) => Value::False,
        Node::Int(i) => int(Int::of_i64(*i)),
        Node::Uint(u) => int(Int::of_u64(*u)),
        Node::Double(d) => Value::Double(*d),
        Node::Str(s) => Value::Text(s),
        Node::Array(_) | Node::Map(_) => return None,
    })
}

/// `n` as a Value: a scalar, or a container built complete in `bufs[0]`
/// (its nested containers in `bufs[1..]`).
fn value<'b>(n: &'b Node, bufs: &'b mut [Vec<u8>]) -> Result<Value<'b>, Error> {
    if let Some(v) = scalar(n) {
        return Ok(v);
    }
    let (mine, deeper) = bufs.split_first_mut().expect("one buffer per nesting level");
    Ok(match n {
        Node::Array(a) => {
            let mut l = List::empty_mut(mine.as_mut_slice())?;
            for x in a {
                add(x, deeper, |v| l.add_value(v))?;
            }
            Value::List(l)
        }
        Node::Map(m) => {
            let mut o = Object::empty_mut(mine.as_mut_slice())?;
            for (k, x) in m {
                add(x, deeper, |v| o.add_value(k, v))?;
            }
            Value::Object(o)
        }
        _ => unreachable!("scalars are handled above"),
    })
}

/// Add `n` to its container with `add_value`. A nested container's buffer
/// is zeroed again after it has been copied: binn-rs never writes a
/// string's 0x00 terminator (Value::write counts it in the size and leaves
/// the byte as it finds it), so it needs a zeroed buffer.
fn add<'p>(
    n: &Node,
    deeper: &mut [Vec<u8>],
    add_value: impl FnOnce(Value<'_>) -> Result<Value<'p>, Error>,
) -> Result<(), Error> {
    let v = value(n, deeper)?;
    let used = match &v {
        Value::List(l) => l.as_bytes().len(),
        Value::Object(o) => o.as_bytes().len(),
        _ => 0,
    };
    add_value(v)?;
    if used > 0 {
        deeper[0][..used].fill(0);
    }
    Ok(())
}

/// Containers nested in `n`, itself included.
fn depth(n: &Node) -> usize {
    match n {
        Node::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Node::Map(m) => 1 + m.iter().map(|(_, v)| depth(v)).max().unwrap_or(0),
        _ => 0,
    }
}

fn write(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res {
    let levels = depth(root);
    if levels == 0 {
        return Err(Failure("binn-rs writes only containers at the root (List, Map, Object)".into()));
    }
    let mut size = 4096;
    loop {
        let mut bufs: Vec<Vec<u8>> = (0..levels).map(|_| vec![0u8; size]).collect();
        let bytes = match value(root, &mut bufs) {
            Ok(Value::List(l)) => l.as_bytes().len(),
            Ok(Value::Object(o)) => o.as_bytes().len(),
            Ok(_) => unreachable!("the root is a container"),
            Err(Error::SmallBuffer(_)) => {
                size *= 2;
                continue;
            }
            // binn-rs's Error implements Debug only
            Err(e) => return Err(Failure(format!("binn-rs: {e:?}"))),
        };
        emit(&bufs[0][..bytes]);
        return Ok(());
    }
}

fn main() {
    harness::main(&Adapter {
        library: "binn-rs",
        format: "binn",
        test: "write",
        unordered: false,
        run: Test::Write(write),
    })
}
