//! Nanoseconds per double for zmij and ryu, each printing every double of
//! a file of little-endian doubles into its own fixed buffer (the dtoa
//! benchmarks' convention; the "fixed" rows of bench/micro/dtoa_bench.c),
//! in interleaved passes, the fastest of each reported.
use std::time::Instant;

fn pass(lib: &str, v: &[f64]) -> (f64, usize) {
    let t = Instant::now();
    let mut total = 0usize;
    if lib == "zmij" {
        let mut b = zmij::Buffer::new();
        for &x in v {
            total += std::hint::black_box(b.format(x)).len();
        }
    } else {
        let mut b = ryu::Buffer::new();
        for &x in v {
            total += std::hint::black_box(b.format(x)).len();
        }
    }
    (t.elapsed().as_secs_f64(), total)
}

fn main() {
    for path in std::env::args().skip(1) {
        let raw = std::fs::read(&path).expect("read");
        let v: Vec<f64> = raw.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
        let libs = ["zmij", "ryu"];
        let mut best = [f64::MAX; 2];
        let mut spent = 0.0;
        let mut rounds = 0;
        let mut check = 0usize;
        while spent < 1.0 || rounds < 3 {
            for (i, lib) in libs.iter().enumerate() {
                let (t, n) = pass(lib, &v);
                check ^= n;
                best[i] = best[i].min(t);
                spent += t;
            }
            rounds += 1;
        }
        for (i, lib) in libs.iter().enumerate() {
            println!("{:<28} fixed {:<5} {:>8} doubles {:>7.2} ns/double", path, lib, v.len(), best[i] * 1e9 / v.len() as f64);
        }
        std::hint::black_box(check);
    }
}
