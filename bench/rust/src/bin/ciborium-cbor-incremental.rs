//! ciborium, Incremental: ciborium-ll's Decoder, pulling one header at a
//! time (Decoder::pull) and reading text and byte strings through its
//! segment API into a scratch buffer — the low-level pull parser ciborium's
//! own serde deserializer is built on.
//!
//! Why not serde with the hashing visitor: ciborium only exposes
//! deserialization through from_reader::<T: DeserializeOwned>, which cannot
//! take a stateful DeserializeSeed; ciborium-ll is the documented low-level
//! API for exactly this kind of use.
use ciborium_ll::{Decoder, Header};
use sdx_bench::harness::Failure;
use sdx_bench::{harness, Adapter, Input, Res, Sbh, Test};

type Dec<'a> = Decoder<&'a [u8]>;

/// The library's error as it describes itself (ciborium-ll's Error
/// implements Debug only).
fn err<E: std::fmt::Debug>(e: E) -> Failure {
    Failure(format!("{e:?}"))
}

/// Read a text or byte string whose header announced `len` and hash it with
/// `f`. Definite strings are read in one chunk; indefinite ones collected.
fn string(d: &mut Dec, text: bool, len: Option<usize>, scratch: &mut Vec<u8>, acc: &mut Vec<u8>) -> Res {
    if let Some(n) = len {
        if scratch.len() < n {
            scratch.resize(n, 0);
        }
    }
    acc.clear();
    if text {
        let mut segs = d.text(len);
        while let Some(mut seg) = segs.pull().map_err(err)? {
            while let Some(chunk) = seg.pull(scratch).map_err(err)? {
                acc.extend_from_slice(chunk.as_bytes());
            }
        }
    } else {
        let mut segs = d.bytes(len);
        while let Some(mut seg) = segs.pull().map_err(err)? {
            while let Some(chunk) = seg.pull(scratch).map_err(err)? {
                acc.extend_from_slice(chunk);
            }
        }
    }
    Ok(())
}

struct Walker {
    scratch: Vec<u8>,
    acc: Vec<u8>,
}

impl Walker {
    fn value(&mut self, d: &mut Dec, h: &mut Sbh, header: Header) -> Res {
        match header {
            Header::Positive(u) => h.uint(u),
            Header::Negative(n) => match i64::try_from(n) {
                Ok(n) => h.int(-1 - n),
                Err(_) => return Err(Failure(format!("integer -1-{n} is out of the 64-bit range"))),
            },
            Header::Float(f) => h.double(f),
            Header::Simple(20) => h.bool(false),
            Header::Simple(21) => h.bool(true),
            Header::Simple(22) | Header::Simple(23) => h.null(),
            Header::Simple(s) => return Err(Failure(format!("simple value {s}"))),
            Header::Tag(_) => {
                let next = d.pull().map_err(err)?;
                self.value(d, h, next)?;
            }
            Header::Text(len) => {
                self.text_or_bytes(d, true, len)?;
                h.str(&self.acc);
            }
            Header::Bytes(len) => {
                self.text_or_bytes(d, false, len)?;
                h.bin(&self.acc);
            }
            Header::Array(len) => {
                h.array();
                match len {
                    Some(n) => {
                        for _ in 0..n {
                            let next = d.pull().map_err(err)?;
                            self.value(d, h, next)?;
                        }
                    }
                    None => loop {
                        match d.pull().map_err(err)? {
                            Header::Break => break,
                            next => self.value(d, h, next)?,
                        }
                    },
                }
                h.end();
            }
            Header::Map(len) => {
                h.map();
                let mut left = len;
                loop {
                    if left == Some(0) {
                        break;
                    }
                    match d.pull().map_err(err)? {
                        Header::Break if left.is_none() => break,
                        Header::Text(klen) => {
                            self.text_or_bytes(d, true, klen)?;
                            h.key(&self.acc);
                        }
                        other => return Err(Failure(format!("map key {other:?} is not a text string"))),
                    }
                    let next = d.pull().map_err(err)?;
                    self.value(d, h, next)?;
                    left = left.map(|n| n - 1);
                }
                h.end();
            }
            Header::Break => return Err(Failure("unexpected break".into())),
        }
        Ok(())
    }

    fn text_or_bytes(&mut self, d: &mut Dec, text: bool, len: Option<usize>) -> Res {
        string(d, text, len, &mut self.scratch, &mut self.acc)
    }
}

fn parse(input: &Input, h: &mut Sbh) -> Res {
    let mut d = Decoder::from(input.bytes());
    let mut w = Walker { scratch: vec![0; 4096], acc: Vec::new() };
    let first = d.pull().map_err(err)?;
    w.value(&mut d, h, first)?;
    if d.offset() != input.len() {
        return Err(Failure(format!("{} bytes after the value", input.len() - d.offset())));
    }
    Ok(())
}

fn main() {
    harness::main(&Adapter {
        library: "ciborium",
        format: "cbor",
        test: "incremental",
        unordered: false,
        run: Test::Parse(parse),
    })
}
