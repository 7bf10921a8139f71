#!/usr/bin/env bash
# Run every test: the release build, packaging (install, find_package,
# pkg-config, the amalgamation, a JSON-only build), the Python package
# (tests/python/run.sh: pytest, also with the sanitizers), the same tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer, the same tests built with
# clang-19, every fuzz target for 30 s (scripts/fuzz.sh), the aarch64 build
# (NEON kernels) under qemu, the benchmark suite's own tests (C and Rust), a
# quick run of the whole suite and its reproducibility check (--stability).
# Prints one summary line at the end; exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh

ensure_debian_packages cmake gcc g++ make pkg-config python3 python3-venv libjansson-dev ||
    { echo "cannot install build tools" >&2; exit 1; }
# clang for the clang build (step 2b) and the public headers' check
ensure_debian_packages clang-19 || echo "warning: clang-19 missing; the clang build and the public_headers test fail" >&2
mkdir -p build
# Node.js and npm for the JSON conformance suite (tests/conformance: its ctest
# test installs the pinned npm package itself, into each build tree).
bash scripts/install-test-deps.sh ||
    echo "warning: test dependencies missing; the conformance tests that need them fail" >&2

passed=0
failed=0
configs=()

# The sanitizer and emulator builds are several times slower than the
# release build; they are SDX_TEST_REDUCED builds (CMakeLists.txt), whose
# randomized tests run smaller counts and at half size. Every stage prints
# its start time, so a slow stage shows in the log.

# run_ctest NAME DIR: run ctest in DIR, add its counts to the totals.
run_ctest() {
    local name="$1" dir="$2" log="$2.ctest.log"
    echo "== $name: ctest (at ${SECONDS} s)"
    ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" >"$log" 2>&1
    local rc=$?
    cat "$log" | grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|FAIL|Error|error:" | tail -60
    local line p t
    line=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log" | tail -1)
    if [ -n "$line" ]; then
        t=$(echo "$line" | sed -E 's/.*out of ([0-9]+).*/\1/')
        p=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/')
        passed=$((passed + t - p))
        failed=$((failed + p))
    else
        failed=$((failed + 1))
    fi
    [ $rc -eq 0 ] && configs+=("$name: ok") || configs+=("$name: FAILED")
}

# add_summary OUTPUT PREFIX: add the counts of OUTPUT's last line "PREFIX
# SUMMARY: N passed, M failed" to the totals; returns 1 (and counts one
# failure) when there is no such line.
add_summary() {
    local line p f
    line=$(echo "$1" | grep -E "^$2 SUMMARY: [0-9]+ passed, [0-9]+ failed" | tail -1)
    if [ -z "$line" ]; then
        failed=$((failed + 1))
        return 1
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.*, ([0-9]+) failed.*/\1/')
    passed=$((passed + p)); failed=$((failed + f))
}

# 1. Release build (with the benchmark harness's tests; peers are built in 5).
if build_tree build/release -DCMAKE_BUILD_TYPE=Release -DSDX_BUILD_TESTS=ON -DSDX_BUILD_BENCH=ON \
    -DSDX_BENCH_PEERS=OFF; then
    run_ctest release build/release
else
    failed=$((failed + 1)); configs+=("release: BUILD FAILED")
fi

# 1b. Packaging (tests/packaging/check.sh): install the release build into a
#     temporary prefix and build an outside program with find_package,
#     pkg-config and the amalgamation; a JSON-only build with its tests.
echo "== packaging (at ${SECONDS} s)"
if [ -f build/release/CMakeCache.txt ]; then
    out=$(bash tests/packaging/check.sh build/release 2>&1)
    rc=$?
    echo "$out" | grep -vE "^ok: " | tail -60
    add_summary "$out" PACKAGING && [ $rc -eq 0 ] && configs+=("packaging: ok") || configs+=("packaging: FAILED")
else
    failed=$((failed + 1)); configs+=("packaging: no release build")
fi

# The corpus every later step uses: what the release build resolved
# (../shared/corpus, or the bundled copy unpacked into the build tree).
if [ -z "${SDX_CORPUS:-}" ] && [ -f build/release/CMakeCache.txt ]; then
    SDX_CORPUS=$(sed -n 's/^SDX_CORPUS_DIR:PATH=//p' build/release/CMakeCache.txt)
    export SDX_CORPUS
fi

# 1c. The Python package (python/, tests/python/run.sh): pip install
#     ./python into a virtualenv, pytest (differential against json,
#     msgpack, cbor2, pymongo's bson and py-ubjson with hypothesis, the
#     corpus, every error path, reference counts and memory over a million
#     calls), then the extension built with ASan and UBSan and pytest again.
echo "== python package (at ${SECONDS} s)"
if ! python3 -c "import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" \
    2>/dev/null; then
    ensure_debian_packages python3-dev || echo "warning: python3-dev missing; the Python package cannot build" >&2
fi
out=$(bash tests/python/run.sh 2>&1)
rc=$?
echo "$out" | grep -vE "^$" | tail -40
add_summary "$out" PYTHON && [ $rc -eq 0 ] && configs+=("python: ok") || configs+=("python: FAILED")

# 2. AddressSanitizer + UndefinedBehaviorSanitizer.
if build_tree build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSDX_SANITIZE=ON -DSDX_BUILD_TESTS=ON \
    -DSDX_BUILD_BENCH=ON -DSDX_BENCH_PEERS=OFF; then
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_ctest "asan+ubsan" build/sanitize
else
    failed=$((failed + 1)); configs+=("asan+ubsan: BUILD FAILED")
fi

# 2b. clang: the library, the command, the tests and sdx's benchmark
#     programs built with clang-19 and the project's warnings as errors
#     (-Wall -Wextra -Wpedantic -Werror ...), and every test run again.
if command -v clang-19 >/dev/null 2>&1; then
    if CC=clang-19 CXX=clang++-19 build_tree build/clang -DCMAKE_BUILD_TYPE=Release -DSDX_BUILD_TESTS=ON \
        -DSDX_BUILD_BENCH=ON -DSDX_BENCH_PEERS=OFF; then
        run_ctest clang build/clang
    else
        failed=$((failed + 1)); configs+=("clang: BUILD FAILED")
    fi
else
    failed=$((failed + 1)); configs+=("clang: clang-19 missing")
fi

# 2c. Fuzzing (tests/fuzz): every libFuzzer target for 30 s (clang-19,
# ASan, UBSan; scripts/fuzz.sh builds build/fuzz and the seeds), each target
# one passed or failed test; a finding's reproducer is printed here.
echo "== fuzz (30 s per target) (at ${SECONDS} s)"
out=$(scripts/fuzz.sh 30 2>&1)
rc=$?
echo "$out" | grep -E "^fuzz_|^FUZZ SUMMARY|^----|^hex:|^base64:|^replay:|^  |^ [0-9a-f][0-9a-f] " | head -200
if add_summary "$out" FUZZ; then
    [ $rc -eq 0 ] && configs+=("fuzz: ok") || configs+=("fuzz: FAILED")
else
    echo "$out" | tail -30
    configs+=("fuzz: FAILED")
fi

# 3. aarch64 with NEON kernels, under qemu (skipped without a cross compiler).
echo "== aarch64 (NEON) under qemu (at ${SECONDS} s)"
out=$(scripts/test-aarch64.sh 2>&1)
rc=$?
echo "$out" | grep -E "tests passed|skipped|FAIL|Error" | tail -20
line=$(echo "$out" | grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" | tail -1)
if echo "$out" | grep -q "NEON: skipped"; then
    configs+=("aarch64: skipped (no cross compiler)")
elif [ -n "$line" ]; then
    t=$(echo "$line" | sed -E 's/.*out of ([0-9]+).*/\1/')
    p=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/')
    passed=$((passed + t - p)); failed=$((failed + p))
    [ $rc -eq 0 ] && configs+=("aarch64: ok") || configs+=("aarch64: FAILED")
else
    echo "$out" | tail -30
    failed=$((failed + 1)); configs+=("aarch64: FAILED")
fi

# 4. The Rust runner's tests (generator and hash ported byte for byte).
echo "== rust runner: cargo test (at ${SECONDS} s)"
if command -v cargo >/dev/null 2>&1; then
    out=$(cd bench/rust && cargo test --release --locked 2>&1)
    rc=$?
    echo "$out" | grep -E "^test |test result: .* [1-9][0-9]* passed|error" | tail -20
    p=$(echo "$out" | grep -oE "[0-9]+ passed" | awk '{s+=$1} END {print s+0}')
    f=$(echo "$out" | grep -oE "[0-9]+ failed" | awk '{s+=$1} END {print s+0}')
    passed=$((passed + p)); failed=$((failed + f))
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
    [ $rc -eq 0 ] && configs+=("rust: ok") || { echo "$out" | tail -30; configs+=("rust: FAILED"); }
else
    configs+=("rust: skipped (no cargo)")
fi

# 5. The benchmark suite itself, quickly: every program built, its result
#    verified, timed briefly. A failing sdx program fails the test; a peer
#    that is missing or fails verification is reported, not failed.
echo "== benchmark suite (quick) (at ${SECONDS} s)"
bench_install_peers
if python3 bench/run.py --quick >build/bench-quick.log 2>&1; then
    passed=$((passed + 1)); configs+=("bench --quick: ok")
    grep -E "^== Summary" -A3 build/bench-quick.log
    # 6. Reproducibility: the cells where sdx has a program, measured twice
    #    on the quick data (tests/bench/stability_check.py). The mode's
    #    work is checked; whether this machine kept every ratio within 10 %
    #    is printed, not asserted (a timed outcome, decided in part by the
    #    machine's other tenants).
    echo "== benchmark suite: --stability (quick data) (at ${SECONDS} s)"
    if python3 tests/bench/stability_check.py >build/bench-stability.log 2>&1; then
        passed=$((passed + 1)); configs+=("bench --stability: ok")
        grep -E "^largest change|^reproduced within" build/bench-stability.log
    else
        failed=$((failed + 1)); configs+=("bench --stability: FAILED")
        tail -40 build/bench-stability.log
    fi
else
    failed=$((failed + 1)); configs+=("bench --quick: FAILED")
    tail -40 build/bench-quick.log
fi

echo
echo "(all stages: ${SECONDS} s)"
echo "SUMMARY: $passed passed, $failed failed ($(IFS=';'; echo "${configs[*]}"))"
[ $failed -eq 0 ]
