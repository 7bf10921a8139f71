//! The harness's plain tree (bench/harness/tree.h): what Write tests encode
//! and what every result is checked against.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::gen;
use crate::hash::Sbh;
use crate::pages::Pages;

/// One value. Strings are valid UTF-8; map entries keep document order.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    Array(Vec<Node>),
    Map(Vec<(String, Node)>),
}

impl Node {
    /// Number of nodes (keys count as nodes), like bt_count.
    pub fn count(&self) -> usize {
        match self {
            Node::Array(a) => 1 + a.iter().map(Node::count).sum::<usize>(),
            Node::Map(m) => 1 + m.iter().map(|(_, v)| 1 + v.count()).sum::<usize>(),
            _ => 1,
        }
    }

    /// Absorb every value into `h` in document order (bt_hash).
    pub fn hash_into(&self, h: &mut Sbh) {
        match self {
            Node::Null => h.null(),
            Node::Bool(b) => h.bool(*b),
            Node::Int(i) => h.int(*i),
            Node::Uint(u) => h.uint(*u),
            Node::Double(d) => h.double(*d),
            Node::Str(s) => h.str(s.as_bytes()),
            Node::Array(a) => {
                h.array();
                for v in a {
                    v.hash_into(h);
                }
                h.end();
            }
            Node::Map(m) => {
                h.map();
                for (k, v) in m {
                    h.key(k.as_bytes());
                    v.hash_into(h);
                }
                h.end();
            }
        }
    }

    /// Append this value's events to an Incremental test's tape
    /// ([`crate::hash::Tape`]), in the order of [`Node::hash_into`].
    pub fn tape_into(&self, t: &mut crate::hash::Tape) {
        use crate::hash::tag;
        match self {
            Node::Null => t.tag(tag::NULL),
            Node::Bool(b) => t.tag(if *b { tag::TRUE } else { tag::FALSE }),
            Node::Int(i) => t.word(if *i < 0 { tag::NEGINT } else { tag::UINT }, *i as u64),
            Node::Uint(u) => t.word(tag::UINT, *u),
            Node::Double(d) => t.word(tag::DOUBLE, d.to_bits()),
            Node::Str(s) => t.text(tag::STR, s.as_bytes()),
            Node::Array(a) => {
                t.tag(tag::ARRAY);
                for v in a {
                    v.tape_into(t);
                }
                t.tag(tag::END);
            }
            Node::Map(m) => {
                t.tag(tag::MAP);
                for (k, v) in m {
                    t.text(tag::KEY, k.as_bytes());
                    v.tape_into(t);
                }
                t.tag(tag::END);
            }
        }
    }

    /// The same with every map hashed without order (bt_hash_unordered):
    /// the reference of adapters whose maps lose the document's key order.
    pub fn hash_into_unordered(&self, h: &mut Sbh) {
        match self {
            Node::Array(a) => {
                h.array();
                for v in a {
                    v.hash_into_unordered(h);
                }
                h.end();
            }
            Node::Map(m) => {
                let mut sum = 0u64;
                for (k, v) in m {
                    let mut e = Sbh::new();
                    e.key(k.as_bytes());
                    v.hash_into_unordered(&mut e);
                    sum = sum.wrapping_add(e.finish());
                }
                h.unordered_map(sum, m.len() as u64);
            }
            _ => self.hash_into(h),
        }
    }

    /// The finished hash of the whole tree (the `tree_hash`).
    pub fn hash(&self) -> u64 {
        let mut h = Sbh::new();
        self.hash_into(&mut h);
        h.finish()
    }
}

fn adapt_big_uints(n: &mut Node) {
    match n {
        Node::Uint(u) if *u > i64::MAX as u64 => *n = Node::Double(*u as f64),
        Node::Array(a) => a.iter_mut().for_each(adapt_big_uints),
        Node::Map(m) => m.iter_mut().for_each(|(_, v)| adapt_big_uints(v)),
        _ => {}
    }
}

/// Change `root` in place into what `format` can represent (bt_adapt): for
/// "bson" a root array becomes a map with keys "0", "1", ..., and for "bson"
/// and "ubjson" integers above i64::MAX become the nearest double. Other
/// formats: unchanged.
pub fn adapt(format: &str, root: &mut Node) {
    let bson = format == "bson";
    if bson || format == "ubjson" {
        adapt_big_uints(root);
    }
    if bson {
        if let Node::Array(a) = root {
            let items = std::mem::take(a);
            *root = Node::Map(items.into_iter().enumerate().map(|(i, v)| (i.to_string(), v)).collect());
        }
    }
}

/// Builds a Node from serde_json's events: integers that fit an i64 become
/// Int, larger ones Uint, numbers with a fraction or an exponent Double.
struct NodeSeed;

impl<'de> DeserializeSeed<'de> for NodeSeed {
    type Value = Node;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Node, E> {
        Ok(Node::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Node, E> {
        Ok(Node::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Node, E> {
        Ok(if u <= i64::MAX as u64 { Node::Int(u as i64) } else { Node::Uint(u) })
    }
    fn visit_f64<E>(self, d: f64) -> Result<Node, E> {
        Ok(Node::Double(d))
    }
    fn visit_str<E>(self, s: &str) -> Result<Node, E> {
        Ok(Node::Str(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Node, E> {
        Ok(Node::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut a = Vec::new();
        while let Some(v) = seq.next_element_seed(NodeSeed)? {
            a.push(v);
        }
        Ok(Node::Array(a))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut m = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(NodeSeed)?;
            m.push((k, v));
        }
        Ok(Node::Map(m))
    }
}

/// Parse JSON text into a tree with serde_json (correctly rounded doubles:
/// the `float_roundtrip` feature; exact 64-bit integers). Map entries keep
/// document order, duplicate keys included.
pub fn from_json_slice(data: &[u8]) -> Result<Node, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(data);
    let node = NodeSeed.deserialize(&mut de)?;
    de.end()?;
    Ok(node)
}

/// Parse a JSON file into a tree; None and a message on stderr on failure.
pub fn load_json_file(path: &str) -> Option<Node> {
    // read into pages of their own, not the heap (pages.rs says why)
    let data = match Pages::read_file(path, 0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{path}: {e}");
            return None;
        }
    };
    match from_json_slice(&data) {
        Ok(n) => Some(n),
        Err(e) => {
            eprintln!("{}:{}:{}: {}", path, e.line(), e.column(), e);
            None
        }
    }
}

/// strtol/strtoull-like: optional whitespace and sign, then digits. Returns
/// the value and the rest.
fn leading_int(s: &str) -> (Option<i128>, &str) {
    let t = s.trim_start();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (None, s);
    }
    let v: i128 = body[..digits].parse().unwrap_or(i128::MAX);
    (Some(if neg { -v } else { v }), &body[digits..])
}

/// Read a tree file (bench/harness/treefile.c, SPEC.md "Tree files"):
/// "SBT1", then the root node in pre-order.
pub fn load_tree_file(path: &str) -> Option<Node> {
    // read into pages of their own, not the heap (pages.rs says why)
    let data = match Pages::read_file(path, 0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{path}: {e}");
            return None;
        }
    };
    let mut r = TreeReader { data: &data, pos: 4 };
    let node = if data.starts_with(b"SBT1") { r.node(0) } else { None };
    match node {
        Some(n) if r.pos == data.len() => Some(n),
        _ => {
            eprintln!("{path}: not a valid tree file");
            None
        }
    }
}

struct TreeReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl TreeReader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn le(&mut self, n: usize) -> Option<u64> {
        Some(self.take(n)?.iter().rev().fold(0u64, |v, &b| v << 8 | u64::from(b)))
    }

    fn string(&mut self) -> Option<String> {
        let len = self.le(4)? as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }

    fn node(&mut self, depth: usize) -> Option<Node> {
        if depth > 10000 {
            return None;
        }
        let t = *self.take(1)?.first()?;
        Some(match t {
            0 => Node::Null,
            1 => Node::Bool(self.le(1)? != 0),
            2 => Node::Int(self.le(8)? as i64),
            3 => Node::Uint(self.le(8)?),
            4 => Node::Double(f64::from_bits(self.le(8)?)),
            5 => Node::Str(self.string()?),
            6 | 7 => {
                let count = self.le(4)? as usize;
                // every node takes at least one byte
                if count > self.data.len() - self.pos {
                    return None;
                }
                if t == 6 {
                    let mut a = Vec::with_capacity(count);
                    for _ in 0..count {
                        a.push(self.node(depth + 1)?);
                    }
                    Node::Array(a)
                } else {
                    let mut m = Vec::with_capacity(count);
                    for _ in 0..count {
                        let k = self.string()?;
                        m.push((k, self.node(depth + 1)?));
                    }
                    Node::Map(m)
                }
            }
            _ => return None,
        })
    }
}

/// A tree from a benchmark program's spec: "gen:SIZE", "gen:SIZE:SEED" (the
/// generator's standard data), "gen:SIZE:SEED:extended" (its extended data)
/// or "tree:PATH" (bt_from_spec). None and a message on stderr if the spec
/// is bad. (JSON files are turned into tree files by bench_tool, so that no
/// program carries a JSON parser of its own; tests use load_json_file.)
pub fn from_spec(spec: &str) -> Option<Node> {
    if let Some(path) = spec.strip_prefix("tree:") {
        return load_tree_file(path);
    }
    if let Some(rest) = spec.strip_prefix("gen:") {
        if let (Some(size), rest) = leading_int(rest) {
            let mut seed = gen::DEFAULT_SEED;
            let mut variant = gen::Variant::Standard;
            let mut ok = rest.is_empty();
            if let Some(s) = rest.strip_prefix(':') {
                if let (Some(v), after) = leading_int(s) {
                    seed = v as u64; // strtoull wraps negative input the same way
                    ok = after.is_empty() || after == ":extended";
                    if after == ":extended" {
                        variant = gen::Variant::Extended;
                    }
                }
            }
            if ok && (gen::MIN_SIZE as i128..=gen::MAX_SIZE as i128).contains(&size) {
                return gen::gen_tree(size as i64, seed, variant);
            }
        }
    }
    eprintln!("bad tree spec '{spec}' (want gen:SIZE[:SEED[:extended]] or tree:PATH)");
    None
}
