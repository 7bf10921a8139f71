//! rmp, Incremental: rmp's low-level pull API over the input slice —
//! rmp::decode::read_marker, then the marker's payload with the RmpRead
//! read_data_* functions; strings and binaries are borrowed from the input
//! (zero copy) and strings are checked to be UTF-8, as rmp's own
//! read_str_from_slice does.
//!
//! Why not rmp-serde with the hashing visitor: rmp-serde is a serde layer
//! on top of these same functions; the pull API is rmp's own streaming
//! interface and builds nothing.
use rmp::decode::{self, RmpRead};
use rmp::Marker;
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};

type Rd<'a> = &'a [u8];

fn take<'a>(rd: &mut Rd<'a>, n: usize) -> Result<&'a [u8], Failure> {
    if rd.len() < n {
        return Err(Failure(format!("{n} bytes announced, {} left", rd.len())));
    }
    let (a, b) = rd.split_at(n);
    *rd = b;
    Ok(a)
}

fn marker(rd: &mut Rd) -> Result<Marker, Failure> {
    decode::read_marker(rd).map_err(|e| Failure(format!("cannot read a marker: {}", e.0)))
}

/// The length of a string whose marker was read, or None if not a string.
fn str_len(m: Marker, rd: &mut Rd) -> Result<Option<usize>, Failure> {
    Ok(Some(match m {
        Marker::FixStr(n) => n as usize,
        Marker::Str8 => rd.read_data_u8()? as usize,
        Marker::Str16 => rd.read_data_u16()? as usize,
        Marker::Str32 => rd.read_data_u32()? as usize,
        _ => return Ok(None),
    }))
}

fn text<'a>(rd: &mut Rd<'a>, n: usize) -> Result<&'a str, Failure> {
    Ok(std::str::from_utf8(take(rd, n)?)?)
}

fn walk(rd: &mut Rd, h: &mut Sbh) -> Res {
    let m = marker(rd)?;
    if let Some(n) = str_len(m, rd)? {
        h.str(text(rd, n)?.as_bytes());
        return Ok(());
    }
    match m {
        Marker::Null => h.null(),
        Marker::True => h.bool(true),
        Marker::False => h.bool(false),
        Marker::FixPos(v) => h.uint(v as u64),
        Marker::FixNeg(v) => h.int(v as i64),
        Marker::U8 => h.uint(rd.read_data_u8()? as u64),
        Marker::U16 => h.uint(rd.read_data_u16()? as u64),
        Marker::U32 => h.uint(rd.read_data_u32()? as u64),
        Marker::U64 => h.uint(rd.read_data_u64()?),
        Marker::I8 => h.int(rd.read_data_i8()? as i64),
        Marker::I16 => h.int(rd.read_data_i16()? as i64),
        Marker::I32 => h.int(rd.read_data_i32()? as i64),
        Marker::I64 => h.int(rd.read_data_i64()?),
        Marker::F32 => h.double(rd.read_data_f32()? as f64),
        Marker::F64 => h.double(rd.read_data_f64()?),
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => {
            let n = match m {
                Marker::Bin8 => rd.read_data_u8()? as usize,
                Marker::Bin16 => rd.read_data_u16()? as usize,
                _ => rd.read_data_u32()? as usize,
            };
            h.bin(take(rd, n)?);
        }
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => {
            let n = match m {
                Marker::FixArray(n) => n as u32,
                Marker::Array16 => rd.read_data_u16()? as u32,
                _ => rd.read_data_u32()?,
            };
            h.array();
            for _ in 0..n {
                walk(rd, h)?;
            }
            h.end();
        }
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => {
            let n = decode::marker_to_len(rd, m)?;
            h.map();
            for _ in 0..n {
                let km = marker(rd)?;
                let Some(kn) = str_len(km, rd)? else {
                    return Err(Failure(format!("map key with marker {km:?} is not a string")));
                };
                h.key(text(rd, kn)?.as_bytes());
                walk(rd, h)?;
            }
            h.end();
        }
        _ => return Err(Failure(format!("unsupported marker {m:?}"))),
    }
    Ok(())
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut rd = input.bytes();
    walk(&mut rd, h)?;
    if !rd.is_empty() {
        return Err(Failure(format!("{} bytes after the value", rd.len())));
    }
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "rmp",
        format: "msgpack",
        test: "incremental",
        unordered: false,
        run: Test::Parse(parse),
    })
}
