//! The Rust runner of the sdx benchmark suite: a byte-exact port of the C
//! harness (bench/harness: generator, sbh64 hash, plain tree, timing main)
//! and the shared glue of the Rust adapters (one program per library, format
//! and test in src/bin/).

pub mod binn_support;
pub mod gen;
pub mod harness;
pub mod hash;
pub mod pages;
pub mod serde_support;
pub mod tree;
pub mod unordered;

pub use harness::{Adapter, Input, Res, Test};
pub use hash::Sbh;
pub use tree::Node;
