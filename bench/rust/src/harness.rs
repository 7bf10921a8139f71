//! The timing harness: the `main` of every Rust benchmark program, a port of
//! bench/harness/main.c with the same command line, protocol and output.
//!
//! ```text
//! PROG --tree SPEC [--input FILE] [--dataset NAME] --once OUT
//! PROG --tree SPEC [--input FILE] [--dataset NAME] [--runs N] [--budget S]
//! ```
//!
//! SPEC is gen:SIZE[:SEED] or tree:PATH (a tree file); the tree is adapted to the
//! adapter's format. FILE is the encoded input of a Tree or Incremental test.
//! --once runs the test once and writes its result to OUT (the output bytes
//! of a Write test, or the value hash as 16 hex digits and a newline).
//! Otherwise the test runs `runs` times (default 7) for budget/runs seconds
//! each (default budget 1 s) after a warm-up; the best and the worst run are
//! dropped (with 3 or more runs) and the rest averaged; the hashing alone is
//! measured the same way (budget / 4). One JSON object is printed on stdout.

use std::fmt::Display;
use std::io::Write as _;
use std::time::Instant;

use crate::hash::{self, Sbh};
use crate::tree::{self, Node};

/// Zero bytes that follow the input in memory (BENCH_PADDING).
pub const PADDING: usize = 64;

/// What went wrong inside a library call (its message goes to stderr; the
/// JSON line says "the library reported an error", as the C harness does).
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: Display> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure(e.to_string())
    }
}

pub type Res = Result<(), Failure>;

/// Write test: encode `root` with the library's most natural writer into a
/// buffer the call creates, hand the finished bytes to `emit` exactly once,
/// release everything.
pub type WriteFn = fn(root: &Node, emit: &mut dyn FnMut(&[u8])) -> Res;

/// Tree and Incremental tests: parse `data` (followed in memory by PADDING
/// zero bytes, see [`Input`]) and absorb every value into `h` in document
/// order.
pub type ParseFn = fn(data: &Input, h: &mut Sbh) -> Res;

pub enum Test {
    Write(WriteFn),
    Parse(ParseFn),
}

/// One adapter: one library, one format, one test.
pub struct Adapter {
    pub library: &'static str,
    pub format: &'static str,
    pub test: &'static str,
    pub run: Test,
}

pub const LANGUAGE: &str = "Rust";

/// The input of a parse test: the file's bytes followed by PADDING zeros.
pub struct Input {
    buf: Vec<u8>,
    len: usize,
}

impl Input {
    pub fn new(data: &[u8]) -> Input {
        let mut buf = Vec::with_capacity(data.len() + PADDING);
        buf.extend_from_slice(data);
        buf.resize(data.len() + PADDING, 0);
        Input { buf, len: data.len() }
    }
    /// The input bytes (without the padding).
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
    /// The input bytes and the PADDING zero bytes after them.
    #[inline]
    pub fn padded(&self) -> &[u8] {
        &self.buf
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

struct State<'a> {
    adapter: &'a Adapter,
    tree: &'a Node,
    input: Option<Input>,
    result: u64,
    failed: bool,
    out_len: usize,
    kept: Vec<u8>,
}

fn report(e: &Failure) {
    eprintln!("library error: {}", e.0);
}

fn run_test(s: &mut State) {
    match s.adapter.run {
        Test::Write(write) => {
            let (mut result, mut out_len) = (0, 0);
            let r = write(s.tree, &mut |out: &[u8]| {
                result = hash::of_bytes(out);
                out_len = out.len();
            });
            if let Err(e) = r {
                report(&e);
                s.failed = true;
            }
            s.result = result;
            s.out_len = out_len;
        }
        Test::Parse(parse) => {
            let mut h = Sbh::new();
            if let Err(e) = parse(s.input.as_ref().unwrap(), &mut h) {
                report(&e);
                s.failed = true;
            }
            s.result = h.finish();
        }
    }
}

/// The hashing the test does, alone.
fn run_hash_only(s: &mut State) {
    match s.adapter.run {
        Test::Write(_) => s.result = hash::of_bytes(&s.kept),
        Test::Parse(_) => {
            let mut h = Sbh::new();
            s.tree.hash_into(&mut h);
            s.result = h.finish();
        }
    }
}

struct Timing {
    mean: f64,
    min: f64,
    max: f64,
    iterations: i64,
}

fn measure(f: fn(&mut State), s: &mut State, runs: i32, budget: f64) -> Timing {
    let runs_f = runs as f64;
    let start = Instant::now();
    let mut warm: i64 = 0;
    while warm < 2 || start.elapsed().as_secs_f64() < budget / (2.0 * runs_f) {
        f(s);
        warm += 1;
    }
    let per = start.elapsed().as_secs_f64() / warm as f64;
    let mut per_run = Vec::with_capacity(runs as usize);
    let mut iterations: i64 = 0;
    for _ in 0..runs {
        let mut iters: i64 = 0;
        let t0 = Instant::now();
        // check the clock every few iterations, not after each short one
        let batch: i64 = if per > 0.0 { (1e-4 / per) as i64 + 1 } else { 1 };
        let mut elapsed;
        loop {
            for _ in 0..batch {
                f(s);
            }
            iters += batch;
            elapsed = t0.elapsed().as_secs_f64();
            if elapsed >= budget / runs_f {
                break;
            }
        }
        per_run.push(elapsed / iters as f64);
        iterations += iters;
    }
    per_run.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = runs as usize;
    let (lo, hi) = if runs >= 3 { (1, n - 1) } else { (0, n) };
    let mean = per_run[lo..hi].iter().sum::<f64>() / (hi - lo) as f64;
    Timing { mean, min: per_run[lo], max: per_run[hi - 1], iterations }
}

/// The file's bytes followed by PADDING zeros, or the error's text.
fn read_input(path: &str) -> Result<Input, String> {
    match std::fs::read(path) {
        Ok(d) => Ok(Input::new(&d)),
        Err(e) => {
            // strerror's text, without Rust's " (os error N)"
            let t = e.to_string();
            Err(match t.find(" (os error") {
                Some(i) => t[..i].to_string(),
                None => t,
            })
        }
    }
}

/// A JSON string literal of a short ASCII-ish text (names, messages).
fn json_string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                o.push('\\');
                o.push(c);
            }
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn identity(a: &Adapter, dataset: &str) -> String {
    format!(
        "{{\"library\":{},\"language\":{},\"format\":{},\"test\":{},\"dataset\":{}",
        json_string(a.library),
        json_string(LANGUAGE),
        json_string(a.format),
        json_string(a.test),
        json_string(dataset)
    )
}

fn fail(a: &Adapter, dataset: &str, msg: &str) -> i32 {
    println!("{},\"status\":\"error\",\"message\":{}}}", identity(a, dataset), json_string(msg));
    1
}

fn usage(a: &Adapter) -> i32 {
    eprintln!(
        "usage: {}-{}-{} --tree gen:SIZE[:SEED]|tree:PATH [--input FILE] [--dataset NAME]\n         [--once OUT | --runs N --budget SECONDS]",
        a.library, a.format, a.test
    );
    2
}

/// C's atoi: leading whitespace, sign, digits; 0 if none.
fn atoi(s: &str) -> i32 {
    let t = s.trim_start();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: String = body.chars().take_while(char::is_ascii_digit).collect();
    let v: i64 = digits.parse().unwrap_or(0);
    let v = if neg { -v } else { v };
    v.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// C's atof for plain decimal numbers: the longest prefix that parses.
fn atof(s: &str) -> f64 {
    let t = s.trim_start();
    (1..=t.len()).rev().filter(|&i| t.is_char_boundary(i)).find_map(|i| t[..i].parse::<f64>().ok()).unwrap_or(0.0)
}

/// Run the program for `adapter` with the process's command line; returns
/// the exit status.
pub fn run(adapter: &Adapter) -> i32 {
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let mut tree_spec: Option<String> = None;
    let mut input_path: Option<String> = None;
    let mut once: Option<String> = None;
    let mut dataset = String::new();
    let mut runs: i32 = 7;
    let mut budget: f64 = 1.0;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let Some(v) = args.get(i + 1).cloned() else { return usage(adapter) };
        match a {
            "--tree" => tree_spec = Some(v),
            "--input" => input_path = Some(v),
            "--once" => once = Some(v),
            "--dataset" => dataset = v,
            "--runs" => runs = atoi(&v),
            "--budget" => budget = atof(&v),
            _ => return usage(adapter),
        }
        i += 2;
    }
    let is_write = matches!(adapter.run, Test::Write(_));
    let Some(tree_spec) = tree_spec else { return usage(adapter) };
    if runs < 1 || budget.is_nan() || budget <= 0.0 || (!is_write && input_path.is_none()) {
        return usage(adapter);
    }
    let dataset = dataset.as_str();

    let Some(mut tree) = tree::from_spec(&tree_spec) else { return fail(adapter, dataset, "cannot load the tree") };
    tree::adapt(adapter.format, &mut tree);
    let tree_hash = tree.hash();

    let mut s = State { adapter, tree: &tree, input: None, result: 0, failed: false, out_len: 0, kept: Vec::new() };
    if !is_write {
        match read_input(input_path.as_deref().unwrap()) {
            Ok(inp) => s.input = Some(inp),
            Err(msg) => return fail(adapter, dataset, &msg),
        }
    }

    // One run: the result the suite verifies.
    match adapter.run {
        Test::Write(write) => {
            let (mut kept, mut result) = (Vec::new(), 0);
            let r = write(&tree, &mut |out: &[u8]| {
                kept = out.to_vec();
                result = hash::of_bytes(out);
            });
            if let Err(e) = r {
                report(&e);
                s.failed = true;
            }
            s.out_len = kept.len();
            s.kept = kept;
            s.result = result;
        }
        Test::Parse(_) => run_test(&mut s),
    }
    if s.failed {
        return fail(adapter, dataset, "the library reported an error");
    }
    let bytes = if is_write { s.kept.len() } else { s.input.as_ref().unwrap().len() };
    if let Some(out) = once {
        let content: Vec<u8> = if is_write { s.kept.clone() } else { format!("{:016x}\n", s.result).into_bytes() };
        if let Err(e) = std::fs::write(&out, content) {
            let t = e.to_string();
            let msg = match t.find(" (os error") {
                Some(i) => t[..i].to_string(),
                None => t,
            };
            return fail(adapter, dataset, &msg);
        }
        println!(
            "{},\"status\":\"ok\",\"tree_hash\":\"{:016x}\",\"result_hash\":\"{:016x}\",\"bytes\":{}}}",
            identity(adapter, dataset),
            tree_hash,
            s.result,
            bytes
        );
        return 0;
    }

    let first = s.result;
    let t = measure(run_test, &mut s, runs, budget);
    if s.failed || s.result != first {
        return fail(adapter, dataset, "results differ between iterations");
    }
    let h = measure(run_hash_only, &mut s, runs, budget / 4.0);

    let mut line = identity(adapter, dataset);
    line.push_str(&format!(
        ",\"status\":\"ok\",\"tree_hash\":\"{:016x}\",\"result_hash\":\"{:016x}\"",
        tree_hash, first
    ));
    line.push_str(&format!(",\"bytes\":{},\"runs\":{},\"iterations\":{}", bytes, runs, t.iterations));
    line.push_str(&format!(
        ",\"time_ns\":{:.1},\"min_ns\":{:.1},\"max_ns\":{:.1},\"hash_ns\":{:.1}}}",
        t.mean * 1e9,
        t.min * 1e9,
        t.max * 1e9,
        h.mean * 1e9
    ));
    println!("{line}");
    let _ = std::io::stdout().flush();
    0
}

/// `fn main` of a benchmark program.
pub fn main(adapter: &Adapter) -> ! {
    std::process::exit(run(adapter))
}
