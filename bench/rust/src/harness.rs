//! The timing harness: the `main` of every Rust benchmark program, a port of
//! bench/harness/main.c with the same command line, protocol and output
//! (see there for the details).
//!
//! ```text
//! PROG --tree SPEC [--input FILE] [--dataset NAME] --once OUT [--serve] [--clock cpu|wall]
//! PROG --tree SPEC [--input FILE] [--dataset NAME] [--rounds N] [--round-ms MS] [--clock cpu|wall]
//! ```
//!
//! --once runs the test once and writes its result to OUT (the output bytes
//! of a Write or Serialize test, or the value hash as 16 hex digits and a
//! newline); with --serve the program then answers `time N H` commands on
//! stdin (`time N H W`: W = 0 skips the untimed warm-up iteration) with
//! `ok TEST_NS HASH_NS RESULT` lines until `quit`. Without either
//! it times itself in calibrated rounds and prints them. Times are the
//! thread's CPU time unless --clock wall.

use std::any::Any;
use std::fmt::Display;
use std::io::{BufRead as _, Write as _};

use crate::hash::{self, Sbh};
use crate::pages::Pages;
use crate::tree::{self, Node};

/// Zero bytes that follow the input in memory (BENCH_PADDING).
pub const PADDING: usize = 64;

/// What went wrong inside a library call: the library's own message, which
/// the report shows (bench_error in C).
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

/// Serialize test: the library's own document, made once before timing.
pub type Doc = Box<dyn Any>;
/// Parse the input into the library's document (not timed).
pub type LoadFn = fn(data: &Input) -> Result<Doc, Failure>;
/// Write the document back to the format into a buffer the call creates and
/// hand the bytes to `emit` exactly once (timed).
pub type SerializeFn = fn(doc: &Doc, emit: &mut dyn FnMut(&[u8])) -> Res;

pub enum Test {
    Write(WriteFn),
    Parse(ParseFn),
    Serialize(LoadFn, SerializeFn),
}

/// One adapter: one library, one format, one test.
pub struct Adapter {
    pub library: &'static str,
    pub format: &'static str,
    pub test: &'static str,
    /// The library's maps do not keep the document's key order (and it has
    /// no option that makes them): results are compared with the
    /// order-independent map hash (SPEC.md, [`Sbh::unordered_map`]).
    pub unordered: bool,
    pub run: Test,
}

pub const LANGUAGE: &str = "Rust";

/// The input of a parse test: the file's bytes followed by PADDING zeros.
pub struct Input {
    buf: Pages,
    len: usize,
}

impl Input {
    /// A copy of `data` and PADDING zeros, in pages of their own (pages.rs).
    pub fn new(data: &[u8]) -> Input {
        let mut buf = Pages::zeroed(data.len() + PADDING);
        buf[..data.len()].copy_from_slice(data);
        Input { buf, len: data.len() }
    }
    /// The file's bytes and PADDING zeros, in pages of their own (pages.rs).
    pub fn read(path: &str) -> std::io::Result<Input> {
        let buf = Pages::read_file(path, PADDING)?;
        let len = buf.len() - PADDING;
        Ok(Input { buf, len })
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
    doc: Option<Doc>,
    result: u64,
    failure: Option<String>,
    /// The output of the verified run, in pages of their own (pages.rs).
    kept: Pages,
    /// Incremental with ordered maps: the reference tree's events.
    events: Option<hash::Tape>,
}

impl State<'_> {
    fn writes_bytes(&self) -> bool {
        !matches!(self.adapter.run, Test::Parse(_))
    }

    /// One iteration of the test; `keep` also keeps the output bytes.
    fn run_once(&mut self, keep: bool) {
        let mut out_hash = 0;
        let mut kept = None;
        let mut emit = |out: &[u8]| {
            out_hash = hash::of_bytes(out);
            if keep {
                kept = Some(Pages::copy_of(out));
            }
        };
        let r = match self.adapter.run {
            Test::Write(write) => write(self.tree, &mut emit),
            Test::Serialize(_, serialize) => serialize(self.doc.as_ref().unwrap(), &mut emit),
            Test::Parse(parse) => {
                let mut h = Sbh::new();
                let r = parse(self.input.as_ref().unwrap(), &mut h);
                out_hash = h.finish();
                r
            }
        };
        if let Err(e) = r {
            self.failure.get_or_insert(e.0);
        }
        self.result = out_hash;
        if let Some(k) = kept {
            self.kept = k;
        }
    }
}

fn tree_hash(tree: &Node, unordered: bool) -> u64 {
    let mut h = Sbh::new();
    if unordered {
        tree.hash_into_unordered(&mut h);
    } else {
        tree.hash_into(&mut h);
    }
    h.finish()
}

fn run_test(s: &mut State) {
    s.run_once(false);
}

/// The hashing the test does, alone.
fn run_hash_only(s: &mut State) {
    s.result = if s.writes_bytes() {
        hash::of_bytes(&s.kept)
    } else if let Some(t) = &s.events {
        t.hash()
    } else {
        tree_hash(s.tree, s.adapter.unordered)
    };
}

/// The clock: the thread's CPU time, or the monotonic wall clock.
#[derive(Clone, Copy)]
enum Clock {
    Cpu,
    Wall,
}

fn now_ns(clock: Clock) -> u64 {
    let id = match clock {
        Clock::Cpu => libc::CLOCK_THREAD_CPUTIME_ID,
        Clock::Wall => libc::CLOCK_MONOTONIC,
    };
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Nanoseconds for n iterations of f, after one untimed iteration if `warm`.
fn time_iterations(f: fn(&mut State), s: &mut State, n: i64, warm: bool, clock: Clock) -> u64 {
    if n <= 0 {
        return 0;
    }
    if warm {
        f(s);
    }
    let t0 = now_ns(clock);
    for _ in 0..n {
        f(s);
    }
    now_ns(clock) - t0
}

/// Iterations of f that take about `ms` milliseconds.
fn calibrate(f: fn(&mut State), s: &mut State, ms: f64, clock: Clock) -> i64 {
    let mut n: i64 = 1;
    loop {
        let t = time_iterations(f, s, n, true, clock);
        if t >= 2_000_000 || n >= 1 << 40 {
            let per = (t as f64 / n as f64).max(1.0);
            return ((ms * 1e6 / per) as i64).max(1);
        }
        n *= 4;
    }
}

/// The file's bytes followed by PADDING zeros, or the error's text.
fn read_input(path: &str) -> Result<Input, String> {
    Input::read(path).map_err(|e| io_message(&e))
}

/// strerror's text, without Rust's " (os error N)".
fn io_message(e: &std::io::Error) -> String {
    let t = e.to_string();
    match t.find(" (os error") {
        Some(i) => t[..i].to_string(),
        None => t,
    }
}

/// A JSON string literal of a short text (names, messages).
fn json_string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                o.push('\\');
                o.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn identity(a: &Adapter, dataset: &str) -> String {
    format!(
        "{{\"library\":{},\"language\":{},\"format\":{},\"test\":{},\"dataset\":{},\"unordered\":{}",
        json_string(a.library),
        json_string(LANGUAGE),
        json_string(a.format),
        json_string(a.test),
        json_string(dataset),
        a.unordered
    )
}

fn fail(a: &Adapter, dataset: &str, msg: &str) -> i32 {
    println!("{},\"status\":\"error\",\"message\":{}}}", identity(a, dataset), json_string(msg));
    let _ = std::io::stdout().flush();
    1
}

/// fail() with the library's own message.
fn fail_library(a: &Adapter, dataset: &str, what: &str, msg: &str) -> i32 {
    fail(a, dataset, &format!("{what}: {msg}"))
}

fn usage(a: &Adapter) -> i32 {
    eprintln!(
        "usage: {}-{}-{} --tree gen:SIZE[:SEED[:extended]]|tree:PATH [--input FILE] [--dataset NAME]\n         [--once OUT [--serve] | --rounds N --round-ms MS] [--clock cpu|wall]",
        a.library, a.format, a.test
    );
    2
}

/// C's atoi: leading whitespace, sign, digits; 0 if none.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: String = body.chars().take_while(char::is_ascii_digit).take(18).collect();
    let v: i64 = digits.parse().unwrap_or(0);
    if neg {
        -v
    } else {
        v
    }
}

/// C's atof for plain decimal numbers: the longest prefix that parses.
fn atof(s: &str) -> f64 {
    let t = s.trim_start();
    (1..=t.len()).rev().filter(|&i| t.is_char_boundary(i)).find_map(|i| t[..i].parse::<f64>().ok()).unwrap_or(0.0)
}

/// --serve: answer run.py's commands until "quit" or the end of input.
fn serve(s: &mut State, expect: u64, clock: Clock) -> i32 {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.starts_with("quit") {
            break;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let parsed = match f.as_slice() {
            ["time", n, h] => n.parse::<i64>().ok().zip(h.parse::<i64>().ok()).map(|(n, h)| (n, h, 1)),
            ["time", n, h, w] => {
                n.parse::<i64>().ok().zip(h.parse::<i64>().ok()).zip(w.parse::<i64>().ok()).map(|((n, h), w)| (n, h, w))
            }
            _ => None,
        };
        let Some((n, h, w)) = parsed.filter(|&(n, h, _)| n >= 0 && h >= 0) else {
            let _ = writeln!(out, "error bad command");
            let _ = out.flush();
            return 1;
        };
        let t = time_iterations(run_test, s, n, w != 0, clock);
        if let Some(e) = &s.failure {
            let _ = writeln!(out, "error the library reported an error: {}", e.replace('\n', " "));
            let _ = out.flush();
            return 1;
        }
        if n > 0 && s.result != expect {
            let _ = writeln!(out, "error results differ between iterations");
            let _ = out.flush();
            return 1;
        }
        let result = s.result;
        let th = time_iterations(run_hash_only, s, h, w != 0, clock);
        s.result = result;
        let _ = writeln!(out, "ok {t} {th} {result:016x}");
        let _ = out.flush();
    }
    0
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn list(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x:.1}")).collect::<Vec<_>>().join(",")
}

/// Standalone timing: every round, their median and minimum.
fn self_timed(s: &mut State, dataset: &str, th: u64, bytes: usize, rounds: i64, round_ms: f64, clock: Clock) -> i32 {
    let a = s.adapter;
    let first = s.result;
    let n = calibrate(run_test, s, round_ms, clock);
    let nh = calibrate(run_hash_only, s, round_ms / 4.0, clock);
    let mut t = Vec::new();
    let mut h = Vec::new();
    for _ in 0..rounds {
        t.push(time_iterations(run_test, s, n, true, clock) as f64 / n as f64);
        let r = s.result;
        h.push(time_iterations(run_hash_only, s, nh, true, clock) as f64 / nh as f64);
        s.result = r;
    }
    if s.failure.is_some() || s.result != first {
        return fail(a, dataset, "results differ between iterations");
    }
    let (tl, hl) = (list(&t), list(&h));
    let med = median(&mut t);
    let hmed = median(&mut h);
    println!(
        "{},\"status\":\"ok\",\"tree_hash\":\"{th:016x}\",\"result_hash\":\"{first:016x}\",\"bytes\":{bytes},\"clock\":\"{}\",\"iterations\":{n},\"rounds_ns\":[{tl}],\"hash_rounds_ns\":[{hl}],\"median_ns\":{med:.1},\"min_ns\":{:.1},\"hash_ns\":{hmed:.1}}}",
        identity(a, dataset),
        match clock {
            Clock::Cpu => "cpu",
            Clock::Wall => "wall",
        },
        t[0]
    );
    let _ = std::io::stdout().flush();
    0
}

/// Run the program for `adapter` with the process's command line; returns
/// the exit status.
pub fn run(adapter: &Adapter) -> i32 {
    // stdio's buffers made now, before the tree, not at their first use
    // (which comes after the verified run, among the library's freed blocks)
    let _ = (std::io::stdout(), std::io::stdin());
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let mut tree_spec: Option<String> = None;
    let mut input_path: Option<String> = None;
    let mut once: Option<String> = None;
    let mut dataset = String::new();
    let mut rounds: i64 = 15;
    let mut round_ms: f64 = 20.0;
    let mut serving = false;
    let mut clock = Clock::Cpu;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--serve" {
            serving = true;
            i += 1;
            continue;
        }
        let Some(v) = args.get(i + 1).cloned() else { return usage(adapter) };
        match (a, v.as_str()) {
            ("--tree", _) => tree_spec = Some(v),
            ("--input", _) => input_path = Some(v),
            ("--once", _) => once = Some(v),
            ("--dataset", _) => dataset = v,
            ("--rounds", _) => rounds = atoi(&v),
            ("--round-ms", _) => round_ms = atof(&v),
            ("--clock", "cpu") => clock = Clock::Cpu,
            ("--clock", "wall") => clock = Clock::Wall,
            _ => return usage(adapter),
        }
        i += 2;
    }
    let is_write = matches!(adapter.run, Test::Write(_));
    let Some(tree_spec) = tree_spec else { return usage(adapter) };
    if rounds < 1
        || round_ms.is_nan()
        || round_ms <= 0.0
        || (serving && once.is_none())
        || (!is_write && input_path.is_none())
    {
        return usage(adapter);
    }
    let dataset = dataset.as_str();

    let Some(mut tree) = tree::from_spec(&tree_spec) else { return fail(adapter, dataset, "cannot load the tree") };
    tree::adapt(adapter.format, &mut tree);
    let th = tree_hash(&tree, adapter.unordered);

    let mut s = State {
        adapter,
        tree: &tree,
        input: None,
        doc: None,
        result: 0,
        failure: None,
        kept: Pages::zeroed(0),
        events: None,
    };
    if adapter.test == "incremental" && !adapter.unordered {
        let mut t = hash::Tape::new();
        tree.tape_into(&mut t);
        if t.hash() != th {
            return fail(adapter, dataset, "the event tape's hash is not the tree's");
        }
        s.events = Some(t);
    }
    if !is_write {
        match read_input(input_path.as_deref().unwrap()) {
            Ok(inp) => s.input = Some(inp),
            Err(msg) => return fail(adapter, dataset, &msg),
        }
    }
    if let Test::Serialize(load, _) = adapter.run {
        match load(s.input.as_ref().unwrap()) {
            Ok(d) => s.doc = Some(d),
            Err(e) => return fail_library(adapter, dataset, "the library could not load the input", &e.0),
        }
    }

    // One run: the result the suite verifies (and its memory, when
    // libbenchmem.so is preloaded).
    let mem = MemCounter::find();
    if let Some(m) = &mem {
        (m.reset)();
    }
    s.run_once(true);
    let peak = mem.as_ref().map(|m| (m.peak)());
    if let Some(e) = s.failure.take() {
        eprintln!("library error: {e}");
        return fail_library(adapter, dataset, "the library reported an error", &e);
    }
    let bytes = if s.writes_bytes() { s.kept.len() } else { s.input.as_ref().unwrap().len() };
    let Some(out) = once else {
        return self_timed(&mut s, dataset, th, bytes, rounds, round_ms, clock);
    };
    let written = if s.writes_bytes() {
        std::fs::write(&out, &*s.kept)
    } else {
        std::fs::write(&out, format!("{:016x}\n", s.result))
    };
    if let Err(e) = written {
        return fail(adapter, dataset, &io_message(&e));
    }
    println!(
        "{},\"status\":\"{}\",\"tree_hash\":\"{:016x}\",\"result_hash\":\"{:016x}\",\"bytes\":{}{}}}",
        identity(adapter, dataset),
        if serving { "ready" } else { "ok" },
        th,
        s.result,
        bytes,
        peak.map(|p| format!(",\"peak_bytes\":{p}")).unwrap_or_default()
    );
    let _ = std::io::stdout().flush();
    if serving {
        let expect = s.result;
        return serve(&mut s, expect, clock);
    }
    0
}

/// The counters of libbenchmem.so (bench/harness/memcount.c), when run.py
/// has preloaded it into this process (as the C harness, main.c).
struct MemCounter {
    reset: extern "C" fn(),
    peak: extern "C" fn() -> usize,
}

impl MemCounter {
    fn find() -> Option<MemCounter> {
        // SAFETY: dlopen(NULL) is the process's global scope; the symbols,
        // when there, are memcount.c's functions of exactly these types.
        unsafe {
            let me = libc::dlopen(std::ptr::null(), libc::RTLD_LAZY);
            if me.is_null() {
                return None;
            }
            let r = libc::dlsym(me, c"bench_mem_reset".as_ptr());
            let p = libc::dlsym(me, c"bench_mem_peak".as_ptr());
            if r.is_null() || p.is_null() {
                return None;
            }
            Some(MemCounter {
                reset: std::mem::transmute::<*mut libc::c_void, extern "C" fn()>(r),
                peak: std::mem::transmute::<*mut libc::c_void, extern "C" fn() -> usize>(p),
            })
        }
    }
}

/// `fn main` of a benchmark program.
pub fn main(adapter: &Adapter) -> ! {
    std::process::exit(run(adapter))
}
