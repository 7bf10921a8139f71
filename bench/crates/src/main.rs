// Only a manifest for fetching crate sources; see Cargo.toml.
fn main() {}
