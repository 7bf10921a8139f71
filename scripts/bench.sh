#!/usr/bin/env bash
# The main job: the benchmark suite on its built-in default data (generated
# sizes 2 and 4 plus the corpus: SDX_CORPUS, ../shared/corpus, or the copy
# bundled in tests/corpus). Installs the peers from Debian's packages; the
# Rust peers come from crates.io through cargo. Extra arguments go to bench/run.py (e.g. --quick, --full,
# --filter REGEX, --record).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

bench_install_peers
if ! command -v cargo >/dev/null 2>&1; then
    echo "note: cargo not found; the Rust peers will be reported as missing" >&2
fi
exec python3 bench/run.py "$@"
