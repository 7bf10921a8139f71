//! The deterministic data generator: bench/harness/SPEC.md, identical to
//! bench/harness/gen.c (same draws in the same order, integer arithmetic
//! only; doubles are built from bits).

use std::collections::HashSet;

use crate::tree::Node;

pub const MIN_SIZE: i64 = 1;
pub const MAX_SIZE: i64 = 5;
pub const DEFAULT_SEED: u64 = 1;

/// The two data sets of SPEC.md, with the same draws but for one branch:
/// standard (integers within i64, finite normal doubles) and extended (also
/// integers above i64::MAX, u64::MAX, i64::MIN, i64::MAX, -0.0, subnormals,
/// the smallest normal double and f64::MAX).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Standard,
    Extended,
}

const TARGET_VALUES: [u64; 5] = [30, 300, 3000, 30000, 300000];
const KEY_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const TEXT_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789 ,.-_:!?";
const ESCAPE_CHARS: &[u8] = b"\"\\\n\t\x01/";
const NON_ASCII: [char; 10] = [
    '\u{00E9}',
    '\u{00F1}',
    '\u{00FC}',
    '\u{00DF}',
    '\u{4E2D}',
    '\u{6587}',
    '\u{65E5}',
    '\u{672C}',
    '\u{1F600}',
    '\u{1F680}',
];

/// Number of values the generator aims for at a size (0 if out of range).
pub fn target_values(size: i64) -> u64 {
    if (MIN_SIZE..=MAX_SIZE).contains(&size) {
        TARGET_VALUES[(size - 1) as usize]
    } else {
        0
    }
}

/// splitmix64.
struct Rng {
    s: u64,
}

impl Rng {
    #[inline]
    fn next(&mut self) -> u64 {
        self.s = self.s.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    #[inline]
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The extended data's extreme values, e - 4 for e = below(12) from 4 to 11
/// (SPEC.md).
const EXTREMES: [Node; 8] = [
    Node::Uint(u64::MAX),
    Node::Int(i64::MIN),
    Node::Int(i64::MAX),
    Node::Double(f64::from_bits(0x8000000000000000)), // -0.0
    Node::Double(f64::from_bits(0x0000000000000001)), // the smallest subnormal
    Node::Double(f64::from_bits(0x000FFFFFFFFFFFFF)), // the largest subnormal
    Node::Double(f64::from_bits(0x0010000000000000)), // the smallest normal
    Node::Double(f64::from_bits(0x7FEFFFFFFFFFFFFF)), // f64::MAX
];

struct Gen {
    r: Rng,
    values: u64,
    variant: Variant,
}

impl Gen {
    fn string(&mut self) -> String {
        let r = &mut self.r;
        let k = r.below(100);
        let len = if k < 70 {
            1 + r.below(16)
        } else if k < 95 {
            16 + r.below(100)
        } else {
            100 + r.below(900)
        };
        let mode = r.below(100);
        let (escapes, wide) = (mode < 5, mode >= 85);
        let mut t = String::new();
        for _ in 0..len {
            if escapes && r.below(10) == 0 {
                t.push(ESCAPE_CHARS[r.below(6) as usize] as char);
            } else if wide && r.below(4) == 0 {
                t.push(NON_ASCII[r.below(10) as usize]);
            } else {
                t.push(TEXT_CHARS[r.below(TEXT_CHARS.len() as u64) as usize] as char);
            }
        }
        t
    }

    /// A key not yet in the map: draw until one is new.
    fn key(&mut self, used: &mut HashSet<String>) -> String {
        loop {
            let len = 2 + self.r.below(9);
            let mut t = String::with_capacity(len as usize);
            for _ in 0..len {
                t.push(KEY_CHARS[self.r.below(36) as usize] as char);
            }
            if used.insert(t.clone()) {
                return t;
            }
        }
    }

    /// One map entry or array element of a container being built.
    fn item(&mut self, items: &mut Items, keys: &mut HashSet<String>, depth: u64) {
        match items {
            Items::Map(m) => {
                let k = self.key(keys);
                let v = self.value(depth);
                m.push((k, v));
            }
            Items::Array(a) => {
                let v = self.value(depth);
                a.push(v);
            }
        }
    }

    /// The 35 <= s < 38 branch, the only one where the variants differ: a
    /// non-negative i64 in the standard data; in the extended data an
    /// integer above i64::MAX or an extreme value.
    fn variant_branch(&mut self) -> Node {
        let r = &mut self.r;
        if self.variant == Variant::Standard {
            return Node::Int((r.next() >> 1) as i64);
        }
        let e = r.below(12);
        if e < 4 {
            Node::Uint(r.next() | 0x8000000000000000)
        } else {
            EXTREMES[(e - 4) as usize].clone()
        }
    }

    fn value(&mut self, depth: u64) -> Node {
        self.values += 1;
        if self.r.below(100) < 24 / depth {
            let is_map = self.r.below(2) == 0;
            let n = if self.r.below(4) == 0 { self.r.below(30) } else { self.r.below(8) };
            let mut items = Items::new(is_map);
            let mut keys = HashSet::new();
            for _ in 0..n {
                self.item(&mut items, &mut keys, depth + 1);
            }
            return items.into_node();
        }
        let r = &mut self.r;
        let s = r.below(100);
        if s < 30 {
            Node::Int(r.below(2000) as i64 - 200)
        } else if s < 35 {
            Node::Int(r.next() as i64)
        } else if s < 38 {
            self.variant_branch()
        } else if s < 50 {
            let sign = r.below(2);
            let exponent = 1023 + r.below(81) - 40;
            let mantissa = r.next() & 0xFFFFFFFFFFFFF;
            Node::Double(f64::from_bits(sign << 63 | exponent << 52 | mantissa))
        } else if s < 58 {
            Node::Bool(r.below(2) == 1)
        } else if s < 62 {
            Node::Null
        } else {
            Node::Str(self.string())
        }
    }
}

enum Items {
    Map(Vec<(String, Node)>),
    Array(Vec<Node>),
}

impl Items {
    fn new(is_map: bool) -> Items {
        if is_map {
            Items::Map(Vec::new())
        } else {
            Items::Array(Vec::new())
        }
    }
    fn into_node(self) -> Node {
        match self {
            Items::Map(m) => Node::Map(m),
            Items::Array(a) => Node::Array(a),
        }
    }
}

/// The tree of `size` (1 to 5), `seed` and `variant`; None if the size is
/// out of range.
pub fn gen_tree(size: i64, seed: u64, variant: Variant) -> Option<Node> {
    let target = target_values(size);
    if target == 0 {
        return None;
    }
    let state = seed.wrapping_add((size as u64).wrapping_mul(0x632BE59BD9B4E019));
    let mut g = Gen { r: Rng { s: state }, values: 0, variant };
    let is_map = g.r.below(2) == 0;
    let mut items = Items::new(is_map);
    let mut keys = HashSet::new();
    while g.values < target {
        g.item(&mut items, &mut keys, 1);
    }
    Some(items.into_node())
}
