#!/usr/bin/env bash
# Build the fuzz targets (tests/fuzz) with clang-19, libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer into build/fuzz, make
# their seed corpora, and run every target for SECONDS (default 60):
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]        (make fuzz FUZZ_SECONDS=N)
#
# TARGET: json msgpack cbor bson ubjson binn transcode writers (default all).
# Each target runs with -malloc_limit_mb=256 (an allocation driven by an
# untrusted length is a finding), -rss_limit_mb=2048, -timeout=10 and
# -max_len=4096, its dictionary where it has one, the seeds in
# build/fuzz/seeds/<target> (read only) and its growing corpus in
# build/fuzz/corpus/<target> (kept between runs). It prints one line a
# target, with its executions (libFuzzer's stat::number_of_executed_units)
# and executions per second, and at the end
#   FUZZ SUMMARY: <passed> passed, <failed> failed
# A target that finds a crash, leak, timeout or out-of-memory prints its
# reproducer (hex dump and base64 of the input libFuzzer saved under
# build/fuzz/crashes) and the command that replays it; the script then
# exits non-zero. The full log of each target is build/fuzz/<target>.log.
#
# Environment: FUZZ_JOBS (build parallelism, default 2), SDX_CORPUS (the
# corpus documents for the seeds, see tests/fuzz/make_seeds.py).
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json msgpack cbor bson ubjson binn transcode writers)
case "$seconds" in
'' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

ensure_debian_packages clang-19 libclang-rt-19-dev cmake python3 ||
    { echo "fuzz: cannot install clang-19 and libclang-rt-19-dev" >&2; exit 1; }

dir=build/fuzz
mkdir -p "$dir"
echo "== fuzz: building $dir (clang-19, libFuzzer, ASan, UBSan)"
if ! CC=clang-19 cmake -S . -B "$dir" -G "$(cmake_generator)" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSDX_FUZZ=ON -DSDX_BUILD_TESTS=ON -DSDX_BUILD_BENCH=OFF -DSDX_BUILD_CLI=ON \
    >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log" >&2
    echo "FUZZ SUMMARY: 0 passed, ${#targets[@]} failed (configure failed)"
    exit 1
fi
build_targets=(sdx)
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
if ! cmake --build "$dir" -j "${FUZZ_JOBS:-2}" --target "${build_targets[@]}" >"$dir.build.log" 2>&1; then
    tail -40 "$dir.build.log" >&2
    echo "FUZZ SUMMARY: 0 passed, ${#targets[@]} failed (build failed)"
    exit 1
fi

# Seeds: the corpus documents in every format and the conformance vectors
# (those the release and sanitizer trees' tests downloaded, when they did).
echo "== fuzz: seeds"
vectors=()
for b in build/release build/sanitize; do [ -d "$b" ] && vectors+=(--vectors "$b"); done
rm -rf "$dir/seeds"
ASAN_OPTIONS=detect_leaks=0 python3 tests/fuzz/make_seeds.py --sdx "$dir/sdx" --out "$dir/seeds" \
    "${vectors[@]}" || { echo "fuzz: making the seeds failed" >&2; exit 1; }

# The reproducer of a finding: hex dump, base64, the replay command.
show_reproducer() {
    local target="$1" file="$2"
    echo "---- reproducer of fuzz_$target: $file ($(wc -c <"$file") bytes)"
    echo "hex:"
    od -An -tx1 -v "$file" | head -64
    echo "base64:"
    base64 -w 76 "$file" | head -64 | sed 's/^/  /'
    echo "replay:"
    echo "  $dir/tests/fuzz/fuzz_$target $file"
    echo "  (or: echo '$(base64 -w 0 "$file" | head -c 4000)' | base64 -d > crash && $dir/tests/fuzz/fuzz_$target crash)"
    echo "----"
}

passed=0
failed=0
mkdir -p "$dir/crashes"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
for t in "${targets[@]}"; do
    bin="$dir/tests/fuzz/fuzz_$t"
    corpus="$dir/corpus/$t"
    log="$dir/$t.log"
    mkdir -p "$corpus" "$dir/seeds/$t"
    dict=()
    [ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict")
    [ "$t" = transcode ] && dict=("-dict=tests/fuzz/json.dict")
    rm -f "$dir/crashes/$t-"*
    nice -n 10 "$bin" -max_total_time="$seconds" -malloc_limit_mb=256 -rss_limit_mb=2048 \
        -timeout=10 -max_len=4096 -print_final_stats=1 "${dict[@]}" \
        -artifact_prefix="$dir/crashes/$t-" "$corpus" "$dir/seeds/$t" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    files=$(ls "$dir/crashes/$t-"* 2>/dev/null)
    if [ $rc -eq 0 ] && [ -z "$files" ]; then
        passed=$((passed + 1))
        printf 'fuzz_%-10s ok      %12s executions  %8s exec/s  %ss\n' "$t" "${execs:-?}" "${rate:-?}" "$seconds"
    else
        failed=$((failed + 1))
        printf 'fuzz_%-10s FAILED  %12s executions  %8s exec/s  (exit %s)\n' "$t" "${execs:-?}" "${rate:-?}" "$rc"
        grep -E "^fuzz:|ERROR: |SUMMARY: |runtime error|^  " "$log" | head -30
        for f in $files; do show_reproducer "$t" "$f"; done
        [ -z "$files" ] && tail -30 "$log"
    fi
done
echo "FUZZ SUMMARY: $passed passed, $failed failed"
[ $failed -eq 0 ]
