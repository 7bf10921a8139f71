#!/usr/bin/env bash
# Run every test: the release build, the same tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer, and the aarch64 build
# (NEON kernels) under qemu. Prints one summary line at the end; exits
# non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh

ensure_debian_packages cmake gcc make pkg-config || { echo "cannot install build tools" >&2; exit 1; }
mkdir -p build

passed=0
failed=0
configs=()

# run_ctest NAME DIR: run ctest in DIR, add its counts to the totals.
run_ctest() {
    local name="$1" dir="$2" log="$2.ctest.log"
    echo "== $name: ctest"
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

# 1. Release build.
if build_tree build/release -DCMAKE_BUILD_TYPE=Release -DSDX_BUILD_TESTS=ON; then
    run_ctest release build/release
else
    failed=$((failed + 1)); configs+=("release: BUILD FAILED")
fi

# 2. AddressSanitizer + UndefinedBehaviorSanitizer.
if build_tree build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSDX_SANITIZE=ON -DSDX_BUILD_TESTS=ON; then
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_ctest "asan+ubsan" build/sanitize
else
    failed=$((failed + 1)); configs+=("asan+ubsan: BUILD FAILED")
fi

# 3. aarch64 with NEON kernels, under qemu (skipped without a cross compiler).
echo "== aarch64 (NEON) under qemu"
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

echo
echo "SUMMARY: $passed passed, $failed failed ($(IFS=';'; echo "${configs[*]}"))"
[ $failed -eq 0 ]
