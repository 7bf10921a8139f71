//! binn-ir's side of the Binn differential test (tests/binn/differential.py).
//!
//!   binn-diff gen N SEED   N random documents, binn-ir encoded
//!   binn-diff recode       each document decoded and encoded again
//!   binn-diff dump         each document as canonical text, one a line
//!
//! Documents travel framed: a 4-byte little-endian length, then the bytes
//! (length 0xffffffff: "no document", for one a side could not read). The
//! canonical text is the one tests/binn/binn_tool.c prints: N T F, integers
//! in decimal, f<hex bits> and d<hex bits> for floats and doubles, s<hex>
//! for text, b<hex> for blobs, t<type>:<hex> for the string types, [list],
//! {m key:value,...} and {o hexkey:value,...}; keys in stored order (binn-ir
//! keeps them sorted, so the generators write sorted keys).
use binn_ir::Value;
use std::collections::BTreeMap;
use std::io::{self, Read, Write};

const NONE: u32 = u32::MAX;

fn read_frames() -> Vec<Option<Vec<u8>>> {
    let mut all = Vec::new();
    io::stdin().read_to_end(&mut all).expect("stdin");
    let mut out = Vec::new();
    let mut p = &all[..];
    while p.len() >= 4 {
        let n = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
        p = &p[4..];
        if n == NONE {
            out.push(None);
            continue;
        }
        let n = n as usize;
        out.push(Some(p[..n].to_vec()));
        p = &p[n..];
    }
    out
}

fn write_frame(w: &mut impl Write, doc: Option<&[u8]>) {
    match doc {
        Some(d) => {
            w.write_all(&(d.len() as u32).to_le_bytes()).unwrap();
            w.write_all(d).unwrap();
        }
        None => w.write_all(&NONE.to_le_bytes()).unwrap(),
    }
}

fn decode(d: &[u8]) -> Result<Value, String> {
    let mut rd = d;
    let v = binn_ir::decode(&mut rd).map_err(|e| e.to_string())?.ok_or("no value")?;
    if rd.is_empty() { Ok(v) } else { Err(format!("{} bytes after the value", rd.len())) }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn dump(v: &Value, s: &mut String) {
    match v {
        Value::Null => s.push('N'),
        Value::True => s.push('T'),
        Value::False => s.push('F'),
        Value::U8(x) => s.push_str(&x.to_string()),
        Value::U16(x) => s.push_str(&x.to_string()),
        Value::U32(x) => s.push_str(&x.to_string()),
        Value::U64(x) => s.push_str(&x.to_string()),
        Value::I8(x) => s.push_str(&x.to_string()),
        Value::I16(x) => s.push_str(&x.to_string()),
        Value::I32(x) => s.push_str(&x.to_string()),
        Value::I64(x) => s.push_str(&x.to_string()),
        Value::Float(f) => s.push_str(&format!("f{:08x}", f.to_bits())),
        Value::Double(d) => s.push_str(&format!("d{:016x}", d.to_bits())),
        Value::Text(t) => s.push_str(&format!("s{}", hex(t.as_bytes()))),
        Value::DateTime(t) => s.push_str(&format!("ta1:{}", hex(t.as_bytes()))),
        Value::Date(t) => s.push_str(&format!("ta2:{}", hex(t.as_bytes()))),
        Value::Time(t) => s.push_str(&format!("ta3:{}", hex(t.as_bytes()))),
        Value::DecimalStr(t) => s.push_str(&format!("ta4:{}", hex(t.as_bytes()))),
        Value::Blob(b) => s.push_str(&format!("b{}", hex(b))),
        Value::List(l) => {
            s.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                dump(x, s);
            }
            s.push(']');
        }
        // An empty map and an empty object are both "{}": sdx's event model
        // has one map kind, and writes an empty one as an object (binn.h).
        Value::Map(m) if m.is_empty() => s.push_str("{}"),
        Value::Object(m) if m.is_empty() => s.push_str("{}"),
        Value::Map(m) => {
            s.push_str("{m");
            for (i, (k, x)) in m.iter().enumerate() {
                s.push_str(if i > 0 { "," } else { " " });
                s.push_str(&format!("{k}:"));
                dump(x, s);
            }
            s.push('}');
        }
        Value::Object(m) => {
            s.push_str("{o");
            for (i, (k, x)) in m.iter().enumerate() {
                s.push_str(if i > 0 { "," } else { " " });
                s.push_str(&format!("{}:", hex(k.as_bytes())));
                dump(x, s);
            }
            s.push('}');
        }
    }
}

/// A 64-bit linear congruential generator (Knuth's MMIX constants).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn text(r: &mut Rng) -> String {
    let len = [0, 1, 5, 40, 130, 300][r.below(6) as usize];
    let pool = ['a', 'z', '0', ' ', '"', '\\', '\u{7f}', 'é', '€', '𝄞', '\u{1}'];
    (0..len).map(|_| pool[r.below(pool.len() as u64) as usize]).collect()
}

fn int(r: &mut Rng) -> Value {
    let x = r.next();
    match r.below(12) {
        0 => Value::U8(x as u8),
        1 => Value::I8(-((x % 128) as i8) - 1),
        2 => Value::U16(x as u16),
        3 => Value::I16(-((x % 32768) as i16) - 1),
        4 => Value::U32(x as u32),
        5 => Value::I32(-((x % (1 << 31)) as i32) - 1),
        6 => Value::U64(x << 11 | r.below(2048)),
        7 => Value::I64(-((x % (1u64 << 63)) as i64) - 1),
        8 => Value::U64(u64::MAX),
        9 => Value::I64(i64::MIN),
        10 => Value::U8(0),
        _ => Value::I8(-1),
    }
}

/// A random value; binn-ir writes integers in the type it is given, so
/// they are drawn among values of the smallest type, as sdx writes them.
fn value(r: &mut Rng, depth: u32) -> Value {
    let pick = if depth >= 4 { r.below(12) } else { r.below(16) };
    match pick {
        0 => Value::Null,
        1 => Value::True,
        2 => Value::False,
        3 | 4 => int(r),
        5 => Value::Float(f32::from_bits(r.next() as u32)),
        6 => Value::Double(f64::from_bits(r.next() << 11 ^ r.next())),
        7 => Value::Text(text(r)),
        8 => Value::Blob((0..r.below(200)).map(|_| r.next() as u8).collect()),
        9 => Value::Date("2026-11-24".into()),
        10 => Value::DateTime(text(r)),
        11 => match r.below(3) {
            0 => Value::Time("07:30:00".into()),
            1 => Value::DecimalStr("-12.5e3".into()),
            _ => Value::Text(String::new()),
        },
        // 150 elements (a count and size above 127) only at the top, to
        // keep documents small.
        12 | 13 => {
            let n = [0, 3, if depth == 0 { 150 } else { 5 }][r.below(3) as usize];
            Value::List((0..n).map(|_| value(r, depth + 1)).collect())
        }
        14 => {
            let mut m = BTreeMap::new();
            for _ in 0..r.below(10) {
                m.insert(r.next() as u32 as i32, value(r, depth + 1));
            }
            Value::Map(m)
        }
        _ => {
            let mut m = BTreeMap::new();
            for _ in 0..r.below(10) {
                // At most 127 bytes: binn-ir 0.17.3 reads an object key's
                // length like a size parameter (a first byte above 127
                // announces four bytes), where the specification has one
                // byte for lengths up to 255.
                let mut k = text(r);
                while k.len() > 127 {
                    k.pop();
                }
                m.insert(k, value(r, depth + 1));
            }
            Value::Object(m)
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut out = io::BufWriter::new(io::stdout().lock());
    match args.get(1).map(String::as_str) {
        Some("gen") => {
            let n: u64 = args[2].parse().unwrap();
            let mut r = Rng(args[3].parse::<u64>().unwrap() ^ 0x9e3779b97f4a7c15);
            for _ in 0..n {
                let mut doc = Vec::new();
                value(&mut r, 0).encode(&mut doc).unwrap();
                write_frame(&mut out, Some(&doc));
            }
        }
        Some("recode") => {
            for f in read_frames() {
                let v = f.as_deref().and_then(|d| decode(d).ok());
                let doc = v.map(|v| {
                    let mut d = Vec::new();
                    v.encode(&mut d).unwrap();
                    d
                });
                write_frame(&mut out, doc.as_deref());
            }
        }
        Some("dump") => {
            for f in read_frames() {
                let mut s = String::new();
                match f.as_deref().map(decode) {
                    Some(Ok(v)) => dump(&v, &mut s),
                    Some(Err(e)) => s.push_str(&format!("ERROR {e}")),
                    None => s.push_str("ERROR no document"),
                }
                writeln!(out, "{s}").unwrap();
            }
        }
        _ => {
            eprintln!("usage: binn-diff gen N SEED | recode | dump");
            std::process::exit(2);
        }
    }
}
