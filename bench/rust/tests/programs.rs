//! programs.tsv lists every program of src/bin as "built" (and the missing
//! combinations with their reason), with the columns of the C side's list
//! and the version and origin of the crate each program uses, which must be
//! the version Cargo.lock pins.
use std::collections::{BTreeMap, BTreeSet};

/// Cargo.lock's crates and their versions.
fn locked_versions(lock: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut versions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = \"") {
            name = Some(n.trim_end_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = \""), name.take()) {
            versions.entry(n).or_default().insert(v.trim_end_matches('"').to_string());
        }
    }
    versions
}

#[test]
fn programs_tsv_matches_the_binaries_and_the_lock() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(dir.join("programs.tsv")).unwrap();
    let locked = locked_versions(&std::fs::read_to_string(dir.join("Cargo.lock")).unwrap());
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("program\tlibrary\tformat\ttest\tlanguage\tstatus\tversion\torigin"));
    let mut built = BTreeSet::new();
    let mut all = BTreeSet::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 8, "{line:?}");
        assert_eq!(f[4], "Rust", "{line:?}");
        assert!(["write", "tree", "incremental", "serialize"].contains(&f[3]), "{line:?}");
        assert!(!f[5].is_empty(), "{line:?}");
        if f[1] == "empty" {
            assert_eq!(f[0], "empty-rust-write");
            assert_eq!((f[6], f[7]), ("-", "-"), "{line:?}");
        } else {
            assert_eq!(f[0], format!("{}-{}-{}", f[1], f[2], f[3]), "{line:?}");
            // origin: "crates.io CRATE VERSION", the crate the program uses
            let o: Vec<&str> = f[7].split(' ').collect();
            assert!(o.len() == 3 && o[0] == "crates.io", "origin of {}: {:?}", f[0], f[7]);
            assert_eq!(o[2], f[6], "{line:?}");
            let pinned = locked.get(o[1]).unwrap_or_else(|| panic!("{}: {} is not in Cargo.lock", f[0], o[1]));
            assert!(pinned.contains(f[6]), "{}: {} {} listed, Cargo.lock has {:?}", f[0], o[1], f[6], pinned);
        }
        assert!(all.insert(f[0].to_string()), "listed twice: {}", f[0]);
        if f[5] == "built" {
            built.insert(f[0].to_string());
        }
    }
    let bins: BTreeSet<String> = std::fs::read_dir(dir.join("src/bin"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    assert_eq!(built, bins);
}

/// limits.tsv states the documented limits of libraries that programs.tsv
/// lists: library, format, test (or * for all of them) and the reason.
#[test]
fn limits_tsv_names_listed_programs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let programs = std::fs::read_to_string(dir.join("programs.tsv")).unwrap();
    let listed: BTreeSet<(String, String, String)> = programs
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[1].to_string(), f[2].to_string(), f[3].to_string())
        })
        .collect();
    let text = std::fs::read_to_string(dir.join("limits.tsv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("library\tformat\ttest\treason"));
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 4, "{line:?}");
        assert!(!f[3].is_empty(), "{line:?}");
        assert!(
            listed.iter().any(|(l, fm, t)| l == f[0] && fm == f[1] && (f[2] == "*" || t == f[2])),
            "no such program: {line:?}"
        );
    }
}
