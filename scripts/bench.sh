#!/usr/bin/env bash
# The main job: the benchmark on its built-in default data (the corpus in
# ../shared/corpus, or SDX_CORPUS). Installs what it needs itself.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh

ensure_debian_packages cmake gcc make pkg-config libjansson-dev
corpus="${SDX_CORPUS:-../shared/corpus}"
mkdir -p build
build_tree build/bench -DCMAKE_BUILD_TYPE=Release -DSDX_BUILD_BENCH=ON -DSDX_BUILD_TESTS=OFF
build/bench/bench/json_write "$@" "$corpus/twitter.json" "$corpus/citm_catalog.json" "$corpus/canada.json"
