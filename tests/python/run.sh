#!/usr/bin/env bash
# The Python package's tests (tests/python), a stage of scripts/test.sh:
#   1. a virtualenv build/pytest-venv with the test requirements
#      (tests/python/requirements.txt, from PyPI; made once per version of
#      the file), `pip install ./python` into it (the package built from
#      the repository's sources), and pytest;
#   2. the same extension built with AddressSanitizer and
#      UndefinedBehaviorSanitizer (-fsanitize=address,undefined
#      -fno-sanitize-recover=undefined) into build/py-asan, and pytest again
#      on it with fewer examples (SDX_PYTEST_QUICK=1), libasan preloaded
#      (CPython itself is not built with it) and leak detection off
#      (CPython keeps memory until exit by design).
# Prints each run's pytest summary and last "PYTHON SUMMARY: N passed, M
# failed"; exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
venv="$root/build/pytest-venv"
passed=0
failed=0

die() { echo "tests/python: $*" >&2; echo "PYTHON SUMMARY: $passed passed, $((failed + 1)) failed"; exit 1; }

py=$(python3 -c "
import sys
sys.path.insert(0, 'tests')
import pyvenv
print(pyvenv.ensure_venv('$venv', 'tests/python/requirements.txt', lambda m: sys.exit(m)))
") || die "cannot make the virtualenv $venv"

# count N passed / M failed / K error(s) of a pytest output into the totals
count() {
    local line p f e
    line=$(echo "$1" | grep -E "^=*.*( passed| failed| error)" | tail -1)
    p=$(echo "$line" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+")
    f=$(echo "$line" | grep -oE "[0-9]+ failed" | grep -oE "[0-9]+")
    e=$(echo "$line" | grep -oE "[0-9]+ errors?" | grep -oE "[0-9]+")
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0} + ${e:-0}))
    [ -n "$line" ] || failed=$((failed + 1))
}

echo "== python: pip install ./python"
if ! "$py" -m pip install --disable-pip-version-check -q --no-build-isolation --force-reinstall --no-deps \
    ./python >build/pytest-install.log 2>&1; then
    tail -30 build/pytest-install.log
    die "pip install ./python failed (a C compiler and Python's headers are needed)"
fi

echo "== python: pytest"
out=$(cd tests/python && SDX_EXPECT_MODULE="$venv" "$py" -m pytest -q -p no:cacheprovider 2>&1)
rc=$?
echo "$out" | grep -E "^(FAILED|ERROR)|^E  " | head -40
echo "$out" | tail -1
count "$out"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { echo "$out" | tail -30; failed=$((failed + 1)); }

# The direct paths have a copy of their walk for AVX-512 (python/src/jd_tmpl.h),
# taken where the library's kernels are AVX-512's: the copy without it too
# on such a machine (on another, both runs take that one).
echo "== python: the direct paths with SDX_SIMD=avx2"
out=$(cd tests/python && SDX_SIMD=avx2 SDX_EXPECT_SIMD=avx2 SDX_EXPECT_MODULE="$venv" "$py" -m pytest -q \
    -p no:cacheprovider test_direct.py 2>&1)
rc=$?
echo "$out" | grep -E "^(FAILED|ERROR)|^E  " | head -40
echo "$out" | tail -1
count "$out"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { echo "$out" | tail -30; failed=$((failed + 1)); }

echo "== python: pytest with ASan and UBSan"
asan=$(gcc -print-file-name=libasan.so)
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g"
rm -rf build/py-asan
if ! (cd python && SDX_CFLAGS="$san" SDX_LDFLAGS="-fsanitize=address,undefined" "$py" setup.py -q \
    build_py --build-lib "$root/build/py-asan/lib" \
    build_ext --build-lib "$root/build/py-asan/lib" --build-temp "$root/build/py-asan/temp") \
    >build/py-asan.log 2>&1 || [ ! -f "$asan" ]; then
    tail -30 build/py-asan.log
    die "cannot build the extension with the sanitizers"
fi
out=$(cd tests/python && PYTHONPATH="$root/build/py-asan/lib" SDX_EXPECT_MODULE="$root/build/py-asan" \
    SDX_PYTEST_QUICK=1 SDX_SANITIZED=1 LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$py" -m pytest -q -p no:cacheprovider 2>&1)
rc=$?
echo "$out" | grep -E "^(FAILED|ERROR)|^E  |ERROR: AddressSanitizer|runtime error" | head -40
echo "$out" | tail -1
count "$out"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { echo "$out" | tail -30; failed=$((failed + 1)); }

echo "PYTHON SUMMARY: $passed passed, $failed failed"
[ $failed -eq 0 ]
