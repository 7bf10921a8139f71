//! programs.tsv lists every program of src/bin as "built" (and the missing
//! combinations with their reason), with the columns of the C side's list.
use std::collections::BTreeSet;

#[test]
fn programs_tsv_matches_the_binaries() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(dir.join("programs.tsv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("program\tlibrary\tformat\ttest\tlanguage\tstatus"));
    let mut built = BTreeSet::new();
    let mut all = BTreeSet::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 6, "{line:?}");
        assert_eq!(f[4], "Rust", "{line:?}");
        assert!(["write", "tree", "incremental"].contains(&f[3]), "{line:?}");
        if f[1] == "empty" {
            assert_eq!(f[0], "empty-rust-write");
        } else {
            assert_eq!(f[0], format!("{}-{}-{}", f[1], f[2], f[3]), "{line:?}");
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
