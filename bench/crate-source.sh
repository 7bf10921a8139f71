#!/usr/bin/env bash
# Print the source directory of a crate listed in bench/crates/Cargo.toml,
# fetching it from crates.io first: crate-source.sh yyjson-sys
set -euo pipefail
cd "$(dirname "$0")/crates"
cargo fetch -q
cargo metadata --format-version 1 | python3 -c '
import json, os, sys
want = sys.argv[1]
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == want:
        print(os.path.dirname(p["manifest_path"]))
        sys.exit(0)
sys.exit("crate %s not in bench/crates/Cargo.toml" % want)' "$1"
