//! minicbor, Incremental: minicbor::Decoder, its pull API — datatype() to
//! peek at the next item, then the matching read (u64, i64, f64, str, ...).
//! Strings are borrowed from the input (zero copy, UTF-8 checked).
use minicbor::data::Type;
use minicbor::Decoder;
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};

/// Consume a break (0xff) if one is next; true if it was.
fn at_break(d: &mut Decoder) -> Result<bool, Failure> {
    if d.datatype()? == Type::Break {
        d.set_position(d.position() + 1);
        return Ok(true);
    }
    Ok(false)
}

fn walk(d: &mut Decoder, h: &mut Sbh) -> Res {
    match d.datatype()? {
        Type::Bool => h.bool(d.bool()?),
        Type::Null => {
            d.null()?;
            h.null()
        }
        Type::Undefined => {
            d.undefined()?;
            h.null()
        }
        Type::U8 | Type::U16 | Type::U32 | Type::U64 => h.uint(d.u64()?),
        Type::I8 | Type::I16 | Type::I32 | Type::I64 => h.int(d.i64()?),
        Type::Int => {
            let i = i128::from(d.int()?);
            match i64::try_from(i) {
                Ok(v) => h.int(v),
                Err(_) => return Err(Failure(format!("integer {i} is out of the 64-bit range"))),
            }
        }
        Type::F16 => h.double(d.f16()? as f64),
        Type::F32 => h.double(d.f32()? as f64),
        Type::F64 => h.double(d.f64()?),
        Type::String => h.str(d.str()?.as_bytes()),
        Type::StringIndef => {
            let mut s = String::new();
            for part in d.str_iter()? {
                s.push_str(part?);
            }
            h.str(s.as_bytes());
        }
        Type::Bytes => h.bin(d.bytes()?),
        Type::BytesIndef => {
            let mut b = Vec::new();
            for part in d.bytes_iter()? {
                b.extend_from_slice(part?);
            }
            h.bin(&b);
        }
        Type::Tag => {
            d.tag()?;
            walk(d, h)?;
        }
        Type::Array | Type::ArrayIndef => {
            h.array();
            match d.array()? {
                Some(n) => {
                    for _ in 0..n {
                        walk(d, h)?;
                    }
                }
                None => {
                    while !at_break(d)? {
                        walk(d, h)?;
                    }
                }
            }
            h.end();
        }
        Type::Map | Type::MapIndef => {
            h.map();
            let len = d.map()?;
            let mut i = 0u64;
            loop {
                match len {
                    Some(n) if i == n => break,
                    None if at_break(d)? => break,
                    _ => {}
                }
                h.key(d.str()?.as_bytes());
                walk(d, h)?;
                i += 1;
            }
            h.end();
        }
        t => return Err(Failure(format!("unsupported CBOR item {t}"))),
    }
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut d = Decoder::new(input.bytes());
    walk(&mut d, h)?;
    if d.position() != input.len() {
        return Err(Failure(format!("{} bytes after the value", input.len() - d.position())));
    }
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "minicbor",
        format: "cbor",
        test: "incremental",
        unordered: false,
        run: Test::Parse(parse),
    })
}
