//! The Rust port against the C harness: the generator's tree hashes, standard
//! and extended (the pins of tests/bench/test_pins.c), the byte-hash vectors of
//! tests/bench/vectors.txt, the bson/ubjson adaptation, and the hashes of
//! the corpus documents loaded through serde_json — all must equal what the
//! C harness computes (bench/harness/SPEC.md).
//!
//! The files of the repository are read when present (run from
//! bench/rust, as cargo does): vectors.txt (or $SDX_BENCH_VECTORS) and
//! test_pins.c; a value there that differs from the port fails the test.
//! The corpus is looked up in $SDX_CORPUS or ../shared/corpus beside the
//! repository; without it those checks are skipped with a message.

use std::path::PathBuf;

use sdx_bench::gen::{self, Variant};
use sdx_bench::harness::Input;
use sdx_bench::hash::{self, Sbh};
use sdx_bench::tree::{self, Node};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The generator pins: (size, seed, tree hash), as in test_pins.c: the
/// standard data (gen_pins there) ...
const GEN_PINS: &[(i64, u64, u64)] = &[
    (1, 1, 0xda01796d3a20cb9b),
    (2, 1, 0x06c6329dcaa51d94),
    (3, 1, 0xf51060296b575bf9),
    (4, 1, 0x01e1e3fc2b8990e2),
    (5, 1, 0xbf06aa9f7e456938),
    (2, 2, 0x4c8f65fb7f2a24cb),
    (2, 3, 0x1a4462735ad9239a),
];

/// ... and the extended data (gen_extended_pins).
const GEN_EXTENDED_PINS: &[(i64, u64, u64)] = &[
    (1, 1, 0xda01796d3a20cb9b),
    (2, 1, 0x49e270609e01950a),
    (3, 1, 0x26efc9c574cbd913),
    (4, 1, 0x86cab626079852f7),
    (5, 1, 0x844f9f1421a3ccaa),
    (2, 2, 0xae7408a7746a2ee7),
    (2, 3, 0x7623f97fa5d4b220),
];

/// Byte-hash vectors (N, hash of b[i] = (i * 31 + 7) mod 256), from the C
/// harness; used when vectors.txt is absent, and checked in any case.
const BYTE_VECTORS: &[(usize, u64)] = &[
    (0, 0xdc2a483af5fad5b3),
    (1, 0x787c65c78bbacb3b),
    (2, 0x47829d2f30b65ae5),
    (3, 0x9f66775c47fa13d4),
    (4, 0x6f8321b9363d5365),
    (5, 0xe3076e1ecfe91e4b),
    (6, 0xe8a5dbc0caa8cabd),
    (7, 0x4f38aa7b95ebf9f4),
    (8, 0x2e096aa7130e5310),
    (9, 0xb4b806b425d29532),
    (15, 0xe31e234b8a24127d),
    (16, 0x8fd3809a219548ec),
    (17, 0x3ec85a9aff8449f0),
    (23, 0x465df6445743f775),
    (24, 0xe2c61a35610b3e45),
    (25, 0x06337418b680403b),
    (31, 0x3a28e4005706d791),
    (32, 0x2186eb97dfe362b3),
    (33, 0x6eaa95ab8fc9b02e),
    (39, 0xaf4985c05001c675),
    (40, 0xeb266ad65662813b),
    (41, 0xfa031482e267c0c4),
    (47, 0xd707598a1312927d),
    (48, 0xc3e314ff71a25b30),
    (63, 0xcb749ad40b96fdd3),
    (64, 0x6489e066fdf009b5),
    (65, 0x28e2b002736b9f01),
    (95, 0x0442571e1c71e0c8),
    (96, 0x47d3ad4ff6eb7422),
    (97, 0xdb835976e2bef78b),
    (127, 0x5bf973a05cba5087),
    (128, 0x3c20b2cd38b05724),
    (129, 0x97801e042a393dee),
    (255, 0x8112bd26a4012825),
    (256, 0x69e6a13ec40e17fd),
    (257, 0xca40f1c965b49854),
    (1000, 0x0349f5d6af1a8105),
    (1023, 0x1b3abe083117ace3),
    (1024, 0x6071b064693f5a8e),
    (4095, 0x2645dcc30f748247),
    (4096, 0x4cc60ee6bbdf17de),
];

/// Tree hashes after bt_adapt, from the C harness (format, spec, hash): the
/// standard data (where only bson's root array changes) and the extended
/// data (whose integers above i64::MAX become doubles).
const ADAPTED: &[(&str, &str, u64)] = &[
    ("bson", "gen:1", 0xc15c211a2ff81129),
    ("bson", "gen:2", 0x06c6329dcaa51d94),
    ("bson", "gen:3", 0xf51060296b575bf9),
    ("bson", "gen:4", 0x0c7fbf2a4867a102),
    ("bson", "gen:5", 0xf701e62d5c78a75c),
    ("bson", "gen:2:2", 0xc6ec8621241dac2d),
    ("bson", "gen:2:3", 0x1a4462735ad9239a),
    ("ubjson", "gen:1", 0xda01796d3a20cb9b),
    ("ubjson", "gen:2", 0x06c6329dcaa51d94),
    ("ubjson", "gen:3", 0xf51060296b575bf9),
    ("ubjson", "gen:4", 0x01e1e3fc2b8990e2),
    ("ubjson", "gen:5", 0xbf06aa9f7e456938),
    ("ubjson", "gen:2:2", 0x4c8f65fb7f2a24cb),
    ("ubjson", "gen:2:3", 0x1a4462735ad9239a),
    ("bson", "gen:1:1:extended", 0xc15c211a2ff81129),
    ("bson", "gen:2:1:extended", 0x6977160ac724c5b3),
    ("bson", "gen:3:1:extended", 0x2869827e0af7dc76),
    ("bson", "gen:4:1:extended", 0x6c906d59d126425d),
    ("bson", "gen:5:1:extended", 0x1dbece6cb6d9752a),
    ("bson", "gen:2:2:extended", 0x94cf8efc3fda58b8),
    ("bson", "gen:2:3:extended", 0x8f5dd7d94b02d803),
    ("ubjson", "gen:1:1:extended", 0xda01796d3a20cb9b),
    ("ubjson", "gen:2:1:extended", 0x6977160ac724c5b3),
    ("ubjson", "gen:3:1:extended", 0x2869827e0af7dc76),
    ("ubjson", "gen:4:1:extended", 0x91b743756b7fe1ea),
    ("ubjson", "gen:5:1:extended", 0x26718f44e806d3c9),
    ("ubjson", "gen:2:2:extended", 0xcf01f565d195566b),
    ("ubjson", "gen:2:3:extended", 0x8f5dd7d94b02d803),
];

/// Corpus documents loaded by the C harness (jansson), adapted per format.
const CORPUS: &[(&str, &str, u64)] = &[
    ("json", "twitter.json", 0x3ce86f75ecbef9b7),
    ("json", "citm_catalog.json", 0x5f9f967b55ca420c),
    ("json", "canada.json", 0xe23e3c89199b9ffc),
    ("bson", "twitter.json", 0x3ce86f75ecbef9b7),
    ("bson", "citm_catalog.json", 0x5f9f967b55ca420c),
    ("bson", "canada.json", 0xe23e3c89199b9ffc),
    ("ubjson", "twitter.json", 0x3ce86f75ecbef9b7),
    ("ubjson", "citm_catalog.json", 0x5f9f967b55ca420c),
    ("ubjson", "canada.json", 0xe23e3c89199b9ffc),
];

fn vector_bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 31 + 7) as u8).collect()
}

fn tree_hash(spec: &str, format: &str) -> u64 {
    let mut t = match spec.strip_prefix("json:") {
        Some(path) => tree::load_json_file(path),
        None => tree::from_spec(spec),
    }
    .unwrap_or_else(|| panic!("cannot load {spec}"));
    tree::adapt(format, &mut t);
    t.hash()
}

#[test]
fn generator_pins() {
    for &(size, seed, want) in GEN_PINS {
        let t = gen::gen_tree(size, seed, Variant::Standard).unwrap();
        assert_eq!(t.hash(), want, "gen:{size}:{seed}");
    }
    for &(size, seed, want) in GEN_EXTENDED_PINS {
        let t = gen::gen_tree(size, seed, Variant::Extended).unwrap();
        assert_eq!(t.hash(), want, "gen:{size}:{seed}:extended");
    }
    // the default seed is 1, and gen:K:1 is gen:K; the spec syntax is
    // gen:SIZE[:SEED[:extended]]
    assert_eq!(tree_hash("gen:3", "json"), tree_hash("gen:3:1", "json"));
    assert_eq!(tree_hash("gen:3:1:extended", "json"), GEN_EXTENDED_PINS[2].2);
    assert_eq!(gen::target_values(1), 30);
    assert_eq!(gen::target_values(5), 300000);
    assert!(gen::gen_tree(0, 1, Variant::Standard).is_none());
    assert!(gen::gen_tree(6, 1, Variant::Extended).is_none());
    for bad in [
        "gen:6",
        "gen:2x",
        "gen:2:",
        "gen:2::extended",
        "gen:2:extended",
        "gen:2:1:",
        "gen:2:1:Extended",
        "gen:2:1:ext",
        "gen:2:1:extended:",
        "gen:2:1:extended:1",
        "gen:2:1:standard",
        "gen:2:1 ",
        "gen:6:1:extended",
    ] {
        assert!(tree::from_spec(bad).is_none(), "accepted {bad:?}");
    }
}

/// The table `name` (gen_pins or gen_extended_pins) of
/// tests/bench/test_pins.c, if that file is there.
fn c_gen_pins(name: &str) -> Option<Vec<(i64, u64, u64)>> {
    let text = std::fs::read_to_string(repo_root().join("tests/bench/test_pins.c")).ok()?;
    let start = text.find(&format!(" {name}[] = {{"))?;
    let body = &text[start..start + text[start..].find("};")?];
    let mut pins = Vec::new();
    for entry in body.split('{').skip(2) {
        let fields: Vec<&str> = entry.split('}').next()?.split(',').map(str::trim).collect();
        if fields.len() < 3 {
            continue;
        }
        let hex = fields[2].trim_start_matches("0x").trim_end_matches("ull");
        pins.push((fields[0].parse().ok()?, fields[1].parse().ok()?, u64::from_str_radix(hex, 16).ok()?));
    }
    Some(pins)
}

#[test]
fn generator_pins_agree_with_the_c_tests() {
    for (name, variant, suffix) in
        [("gen_pins", Variant::Standard, ""), ("gen_extended_pins", Variant::Extended, ":extended")]
    {
        match c_gen_pins(name) {
            None => eprintln!("note: tests/bench/test_pins.c or its {name} not found; C pins not compared"),
            Some(pins) => {
                assert!(pins.len() >= 7, "could not read the {name} of test_pins.c (got {pins:?})");
                for (size, seed, want) in pins {
                    let got = gen::gen_tree(size, seed, variant).unwrap().hash();
                    assert_eq!(got, want, "gen:{size}:{seed}{suffix}: Rust {got:016x}, test_pins.c {want:016x}");
                }
            }
        }
    }
}

fn vectors_path() -> PathBuf {
    match std::env::var_os("SDX_BENCH_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => repo_root().join("tests/bench/vectors.txt"),
    }
}

#[test]
fn byte_vectors() {
    for &(n, want) in BYTE_VECTORS {
        assert_eq!(hash::of_bytes(&vector_bytes(n)), want, "built-in vector of {n} bytes");
    }
    let path = vectors_path();
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("note: {} not found; only the built-in byte vectors were checked", path.display());
        return;
    };
    let mut count = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.split_whitespace();
        let (Some(n), Some(h), None) = (f.next(), f.next(), f.next()) else {
            panic!("bad line in vectors.txt: {line:?}")
        };
        let n: usize = n.parse().unwrap_or_else(|_| panic!("bad length in vectors.txt: {line:?}"));
        let want = u64::from_str_radix(h, 16).unwrap_or_else(|_| panic!("bad hash in vectors.txt: {line:?}"));
        let got = hash::of_bytes(&vector_bytes(n));
        assert_eq!(got, want, "vector of {n} bytes: Rust {got:016x}, vectors.txt {want:016x}");
        count += 1;
    }
    assert!(count >= 41, "vectors.txt has only {count} vectors");
}

#[test]
fn value_rules() {
    let one = |f: &dyn Fn(&mut Sbh)| {
        let mut h = Sbh::new();
        f(&mut h);
        h.finish()
    };
    assert_eq!(one(&|h| h.int(5)), one(&|h| h.uint(5)));
    assert_ne!(one(&|h| h.int(-1)), one(&|h| h.uint(u64::MAX)));
    assert_ne!(one(&|h| h.double(5.0)), one(&|h| h.int(5)));
    assert_ne!(one(&|h| h.double(0.0)), one(&|h| h.double(-0.0)));
    assert_ne!(one(&|h| h.str(b"ab")), one(&|h| h.key(b"ab")));
    let mut a = Sbh::new();
    assert_eq!(a.h, 0x243F6A8885A308D3);
    a.word(0);
    let m = 0x243F6A8885A308D3u64.wrapping_mul(0x9E3779B97F4A7C15);
    assert_eq!(a.h, m ^ (m >> 29));
}

#[test]
fn adaptation() {
    for &(format, spec, want) in ADAPTED {
        assert_eq!(tree_hash(spec, format), want, "{format} {spec}");
    }
    // a bson root array becomes a map with keys "0", "1", ...; big unsigned
    // integers become the nearest double for bson and ubjson only
    let mut t = Node::Array(vec![Node::Uint(u64::MAX), Node::Int(-1)]);
    tree::adapt("bson", &mut t);
    assert_eq!(t, Node::Map(vec![("0".into(), Node::Double(u64::MAX as f64)), ("1".into(), Node::Int(-1))]));
    let mut u = Node::Array(vec![Node::Uint(u64::MAX)]);
    tree::adapt("ubjson", &mut u);
    assert_eq!(u, Node::Array(vec![Node::Double(18446744073709551615u64 as f64)]));
    let mut m = Node::Array(vec![Node::Uint(u64::MAX)]);
    tree::adapt("msgpack", &mut m);
    assert_eq!(m, Node::Array(vec![Node::Uint(u64::MAX)]));
}

#[test]
fn json_loading() {
    let t = tree::from_json_slice(br#"{"a":[1,-2,18446744073709551615,1.5,1e2,"x\u00e9",true,false,null],"b":{}}"#)
        .unwrap();
    let want = Node::Map(vec![
        (
            "a".into(),
            Node::Array(vec![
                Node::Int(1),
                Node::Int(-2),
                Node::Uint(u64::MAX),
                Node::Double(1.5),
                Node::Double(100.0),
                Node::Str("x\u{e9}".into()),
                Node::Bool(true),
                Node::Bool(false),
                Node::Null,
            ]),
        ),
        ("b".into(), Node::Map(vec![])),
    ]);
    assert_eq!(t, want);
    // correctly rounded doubles (float_roundtrip), compared with Rust's own
    // correctly rounded str::parse
    let texts = ["2.2250738585072011e-308", "0.1", "9007199254740993.0", "1.7976931348623157e308", "5e-324"];
    let d = tree::from_json_slice(format!("[{}]", texts.join(",")).as_bytes()).unwrap();
    let want: Vec<Node> = texts.iter().map(|t| Node::Double(t.parse().unwrap())).collect();
    assert_eq!(d, Node::Array(want));
    // the generator's trees survive a JSON round trip through serde_json
    for variant in [Variant::Standard, Variant::Extended] {
        for size in 1..=3 {
            let t = gen::gen_tree(size, 1, variant).unwrap();
            let text = serde_json::to_vec(&t).unwrap();
            assert_eq!(tree::from_json_slice(&text).unwrap().hash(), t.hash(), "gen:{size}:1 {variant:?}");
        }
    }
}

#[test]
fn padded_input() {
    let i = Input::new(b"abc");
    assert_eq!(i.bytes(), b"abc");
    assert_eq!(i.padded().len(), 3 + sdx_bench::harness::PADDING);
    assert!(i.padded()[3..].iter().all(|&b| b == 0));
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SDX_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => repo_root().join("../shared/corpus"),
    };
    dir.is_dir().then_some(dir)
}

#[test]
fn corpus_hashes() {
    let Some(dir) = corpus_dir() else {
        eprintln!("note: corpus not found (SDX_CORPUS or ../shared/corpus); corpus hashes not checked");
        return;
    };
    for &(format, file, want) in CORPUS {
        let path = dir.join(file);
        if !path.exists() {
            eprintln!("note: {} not found; skipped", path.display());
            continue;
        }
        let spec = format!("json:{}", path.display());
        assert_eq!(tree_hash(&spec, format), want, "{format} {file}");
    }
}

#[test]
fn event_tape_hashes_like_the_tree() {
    // The Incremental baseline (SPEC.md, "The hashing alone"): the tape of a
    // tree's events gives the tree's hash, on every kind of value.
    for (size, variant) in [(2, Variant::Standard), (3, Variant::Extended)] {
        let t = gen::gen_tree(size, 1, variant).unwrap();
        let mut tape = hash::Tape::new();
        t.tape_into(&mut tape);
        assert_eq!(tape.hash(), t.hash(), "gen:{size}");
    }
    let t = tree::from_json_slice(
        br#"{"":[],"k":[0,-1,1.5,"",{"x":null}],"z":[true,false,"a long string of more than thirty-two bytes"]}"#,
    )
    .unwrap();
    let mut tape = hash::Tape::new();
    t.tape_into(&mut tape);
    assert_eq!(tape.hash(), t.hash());
}
