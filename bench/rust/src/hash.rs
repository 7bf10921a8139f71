//! The benchmark's value hash, sbh64: bench/harness/SPEC.md, identical to
//! bench/harness/hash.h and hash.c.
//!
//! Values are absorbed by meaning, not encoding: an integer hashes the same
//! from an `i64` or a `u64`, a double by its exact bits, containers by begin
//! and end marks (no counts, so an event stream and a tree walk agree).

pub const SEED: u64 = 0x243F6A8885A308D3;
const MUL: u64 = 0x9E3779B97F4A7C15;

/// Event tags absorbed before each value (hash.h).
pub mod tag {
    pub const NULL: u64 = 1;
    pub const FALSE: u64 = 2;
    pub const TRUE: u64 = 3;
    pub const UINT: u64 = 4;
    pub const NEGINT: u64 = 5;
    pub const DOUBLE: u64 = 6;
    pub const STR: u64 = 7;
    pub const KEY: u64 = 8;
    pub const BIN: u64 = 9;
    pub const ARRAY: u64 = 10;
    pub const MAP: u64 = 11;
    pub const END: u64 = 12;
}

/// The hash state (`sbh` in C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sbh {
    pub h: u64,
}

impl Default for Sbh {
    fn default() -> Self {
        Sbh::new()
    }
}

#[inline(always)]
fn lane(l: u64, w: u64) -> u64 {
    let l = (l ^ w).wrapping_mul(MUL);
    l ^ (l >> 29)
}

#[inline(always)]
fn load_le(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

impl Sbh {
    #[inline]
    pub const fn new() -> Sbh {
        Sbh { h: SEED }
    }

    #[inline(always)]
    pub fn word(&mut self, w: u64) {
        self.h = lane(self.h, w);
    }

    #[inline]
    pub fn finish(&self) -> u64 {
        let mut h = self.h;
        h ^= h >> 32;
        h = h.wrapping_mul(0xD6E8FEB86659FD93);
        h ^ (h >> 32)
    }

    /// Length, then 8-byte little-endian words (four lanes from 32 bytes
    /// on), the last group zero-padded.
    pub fn bytes(&mut self, p: &[u8]) {
        self.word(p.len() as u64);
        let mut b = p;
        if b.len() >= 32 {
            let (mut l0, mut l1, mut l2, mut l3) = (self.h, self.h ^ 1, self.h ^ 2, self.h ^ 3);
            while b.len() >= 32 {
                l0 = lane(l0, load_le(&b[0..]));
                l1 = lane(l1, load_le(&b[8..]));
                l2 = lane(l2, load_le(&b[16..]));
                l3 = lane(l3, load_le(&b[24..]));
                b = &b[32..];
            }
            self.h = l0;
            self.word(l1);
            self.word(l2);
            self.word(l3);
        }
        while b.len() >= 8 {
            self.word(load_le(b));
            b = &b[8..];
        }
        if !b.is_empty() {
            // zero-padded little-endian word of the last 1 to 7 bytes
            let mut w = 0u64;
            for &x in b.iter().rev() {
                w = w << 8 | x as u64;
            }
            self.word(w);
        }
    }

    #[inline]
    pub fn null(&mut self) {
        self.word(tag::NULL);
    }
    #[inline]
    pub fn bool(&mut self, b: bool) {
        self.word(if b { tag::TRUE } else { tag::FALSE });
    }
    #[inline]
    pub fn uint(&mut self, u: u64) {
        self.word(tag::UINT);
        self.word(u);
    }
    #[inline]
    pub fn int(&mut self, i: i64) {
        self.word(if i < 0 { tag::NEGINT } else { tag::UINT });
        self.word(i as u64);
    }
    #[inline]
    pub fn double(&mut self, d: f64) {
        self.word(tag::DOUBLE);
        self.word(d.to_bits());
    }
    #[inline]
    pub fn str(&mut self, s: &[u8]) {
        self.word(tag::STR);
        self.bytes(s);
    }
    #[inline]
    pub fn key(&mut self, s: &[u8]) {
        self.word(tag::KEY);
        self.bytes(s);
    }
    #[inline]
    pub fn bin(&mut self, s: &[u8]) {
        self.word(tag::BIN);
        self.bytes(s);
    }
    #[inline]
    pub fn array(&mut self) {
        self.word(tag::ARRAY);
    }
    #[inline]
    pub fn map(&mut self) {
        self.word(tag::MAP);
    }
    #[inline]
    pub fn end(&mut self) {
        self.word(tag::END);
    }
    /// A map without order (SPEC.md, sbh_unordered_map in hash.h): the
    /// begin mark, the wrapping sum of the entry hashes (each entry hashed
    /// on its own: a fresh state, `key`, the value, `finish`), the entry
    /// count and the end mark.
    #[inline]
    pub fn unordered_map(&mut self, entry_sum: u64, count: u64) {
        self.word(tag::MAP);
        self.word(entry_sum);
        self.word(count);
        self.word(tag::END);
    }
}

/// The hash of a byte string on its own (Write tests hash their output).
#[inline]
pub fn of_bytes(p: &[u8]) -> u64 {
    let mut s = Sbh::new();
    s.bytes(p);
    s.finish()
}

/// Incremental: the reference tree's events in document order as a tape
/// (SPEC.md, "The hashing alone"; harness/main.c builds the same bytes):
/// per event its tag byte, then 8 bytes (little-endian) for an integer or a
/// double, or a 4-byte length and the bytes for a string or key. Hashing it
/// front to back is the hash-only baseline of an Incremental test.
pub struct Tape(pub Vec<u8>);

impl Tape {
    pub fn new() -> Tape {
        Tape(Vec::new())
    }

    pub fn tag(&mut self, t: u64) {
        self.0.push(t as u8);
    }

    pub fn word(&mut self, t: u64, w: u64) {
        self.0.push(t as u8);
        self.0.extend_from_slice(&w.to_le_bytes());
    }

    pub fn text(&mut self, t: u64, s: &[u8]) {
        self.0.push(t as u8);
        self.0.extend_from_slice(&u32::try_from(s.len()).expect("a string below 4 GiB").to_le_bytes());
        self.0.extend_from_slice(s);
    }

    /// The hash of the events, as an event stream would give it.
    pub fn hash(&self) -> u64 {
        let mut h = Sbh::new();
        let b = &self.0[..];
        let mut i = 0;
        while i < b.len() {
            let t = b[i] as u64;
            i += 1;
            h.word(t);
            match t {
                tag::UINT | tag::NEGINT | tag::DOUBLE => {
                    h.word(load_le(&b[i..]));
                    i += 8;
                }
                tag::STR | tag::KEY => {
                    let n = u32::from_le_bytes(b[i..i + 4].try_into().unwrap()) as usize;
                    h.bytes(&b[i + 4..i + 4 + n]);
                    i += 4 + n;
                }
                _ => {}
            }
        }
        h.finish()
    }
}

impl Default for Tape {
    fn default() -> Self {
        Tape::new()
    }
}
