#!/usr/bin/env bash
# The single-file distribution (make amalgamation, scripts/amalgamate.py):
#
#   1. writes sdx.h and sdx.c twice and compares the bytes (deterministic);
#   2. compiles sdx.c with gcc and clang-19 at -std=c11 -O2 -Wall -Wextra
#      -Wpedantic -Wshadow -Wstrict-prototypes -Werror, with `cc -c sdx.c`
#      in a directory that holds only sdx.h and sdx.c (clang is skipped,
#      with a message, when clang-19 is not installed); with gcc also once
#      (at -O0) with each of -DSDX_NO_MSGPACK, -DSDX_NO_CBOR, -DSDX_NO_BSON,
#      -DSDX_NO_UBJSON, -DSDX_NO_BINN and -DSDX_NO_STDIO, and with all five
#      format switches (JSON only), each object leaving no sdx_ symbol
#      undefined;
#   3. compiles a file that includes only "sdx.h" as C11 (gcc, clang) and as
#      C++11 (g++, clang++), warnings as errors;
#   4. on x86, checks that in each compiled sdx.c only the functions of
#      src/simd/avx2.c and avx512.c hold AVX, AVX-512 or BMI instructions
#      (the target regions hold the kernels, and nothing else); links a
#      program to each and checks that run-time dispatch picks the widest
#      SIMD kernels the CPU has (sdx_simd_name(), which `sdx --version`
#      prints) and that SDX_SIMD caps them;
#   5. builds the unit tests (tests/unit/test_*.c) against a library compiled
#      from the amalgamation (CMake option SDX_AMALGAMATION=ON) and runs them.
#
# Fails (exit 1) if anything fails.
#
#   tests/amalgamation/check.sh [--aarch64] [--keep]
#
#   --aarch64  also build the unit tests for aarch64 (NEON kernels) against
#              the amalgamation and run them under qemu (needs
#              aarch64-linux-gnu-gcc and qemu-aarch64; skipped without)
#   --keep     keep the temporary directory
# Environment: JOBS (default 1) is the build parallelism; BUILD (default
# build/amalgamation-check) the CMake build tree.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$root" || exit 1

aarch64=0
keep=0
for a in "$@"; do
    case "$a" in
    --aarch64) aarch64=1 ;;
    --keep) keep=1 ;;
    *) echo "usage: $0 [--aarch64] [--keep]" >&2; exit 2 ;;
    esac
done
jobs=${JOBS:-1}
build=${BUILD:-build/amalgamation-check}
start=$(date +%s)

tmp=$(mktemp -d)
if [ $keep -eq 0 ]; then trap 'rm -rf "$tmp"' EXIT; else echo "temporary directory: $tmp"; fi

fail=0
failed() { echo "FAIL: $*"; fail=1; }
pick() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 && { echo "$c"; return 0; }; done; return 1; }
cflags=(-std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Werror)

# 1. generate, deterministically
mkdir -p "$tmp/a" "$tmp/b"
python3 scripts/amalgamate.py --out "$tmp/a" || { echo "FAIL: scripts/amalgamate.py"; exit 1; }
python3 scripts/amalgamate.py --out "$tmp/b" || { echo "FAIL: scripts/amalgamate.py"; exit 1; }
for f in sdx.h sdx.c; do
    cmp -s "$tmp/a/$f" "$tmp/b/$f" || failed "$f differs between two runs"
done
echo "generated: sdx.h $(wc -l <"$tmp/a/sdx.h") lines, sdx.c $(wc -l <"$tmp/a/sdx.c") lines"
dist="$tmp/a" # sdx.h and sdx.c only

# 2. sdx.c alone
compilers=(gcc)
if command -v clang-19 >/dev/null 2>&1; then
    compilers+=(clang-19)
else
    echo "SKIP: clang-19 is not installed (scripts/test.sh installs it)"
fi
for cc in "${compilers[@]}"; do
    if (cd "$dist" && "$cc" "${cflags[@]}" -c sdx.c -o "$tmp/sdx-$cc.o") 2>"$tmp/log"; then
        echo "ok: $cc -c sdx.c"
    else
        failed "$cc -c sdx.c"; head -40 "$tmp/log"
    fi
done
for sw in MSGPACK CBOR BSON UBJSON BINN STDIO "MSGPACK CBOR BSON UBJSON BINN"; do
    defs=$(printf -- '-DSDX_NO_%s ' $sw)
    name=$(echo "$sw" | tr ' ' '-')
    # shellcheck disable=SC2086
    if (cd "$dist" && gcc "${cflags[@]/-O2/-O0}" $defs -c sdx.c -o "$tmp/no-$name.o") 2>"$tmp/log"; then
        # the library's own symbols the object needs but does not define:
        # none, or a program using what is left would not link
        undef=$(nm -u "$tmp/no-$name.o" | awk '{print $NF}' | grep '^sdx_' | sort -u | tr '\n' ' ')
        if [ -z "$undef" ]; then echo "ok: gcc -c ${defs}sdx.c (links alone)"; else
            failed "gcc -c ${defs}sdx.c leaves undefined: $undef"
        fi
    else
        failed "gcc -c ${defs}sdx.c"; head -40 "$tmp/log"
    fi
done

# 3. sdx.h alone, as C and as C++ (as the main file's include, as a user has it)
printf '#include "sdx.h"\nint main(void) { return sdx_strerror(SDX_OK) == 0; }\n' >"$tmp/use.c"
for cc in "${compilers[@]}"; do
    if "$cc" "${cflags[@]}" -fsyntax-only -I "$dist" "$tmp/use.c" 2>"$tmp/log"; then
        echo "ok: sdx.h alone with $cc (C11)"
    else
        failed "sdx.h with $cc (C11)"; head -40 "$tmp/log"
    fi
done
for cxx in $(pick g++) $(pick clang++-19); do
    if "$cxx" -std=c++11 -Wall -Wextra -Wpedantic -Wshadow -Werror -fsyntax-only -I "$dist" -x c++ \
        "$tmp/use.c" 2>"$tmp/log"; then
        echo "ok: sdx.h alone with $cxx (C++11)"
    else
        failed "sdx.h with $cxx (C++11)"; head -40 "$tmp/log"
    fi
done

# 4. run-time dispatch: the widest kernels this CPU runs, and SDX_SIMD caps
best=scalar
x86=0
case "$(uname -m)" in
x86_64 | amd64 | i?86)
    x86=1
    flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
    has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
    has sse2 && best=sse2
    has avx2 && has bmi1 && has bmi2 && best=avx2
    [ $best = avx2 ] && has avx512f && has avx512bw && has avx512vl && best=avx512
    ;;
aarch64 | arm64) best=neon ;;
esac
# the file-local functions of src/simd/avx2.c and avx512.c, as named in sdx.c,
# and those other sources define with SDX_TARGET_AVX512
python3 - "$root" >"$tmp/kernel-names" <<'EOF' || failed "listing the kernels' functions"
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import amalgamate as a
p = a.Project(sys.argv[1])
s = a.Scanner(p)
srcs = p.sources()
plan, scans = a.plan_renames(p, s, srcs)
import re
# and the functions defined elsewhere with SDX_TARGET_AVX512 (src/simd/short_copy.h):
# called only after the writer's init found the avx512 level; and with
# SDX_TARGET_AVX512_VBMI2 (src/json/parse.c): only after dispatch found VBMI2
marked = re.compile(r"SDX_TARGET_AVX512\w*\s+static\s+[\w\s\*]*?\b(\w+)\s*\(")
for path, _, _, _ in srcs:
    fid = a.file_id(p, path)
    if a.rel(path) in ("src/simd/avx2.c", "src/simd/avx512.c"):
        for name, kind in sorted(scans[path].locals.items()):
            if kind == "function":
                print(a.RENAME_PREFIX + fid + "__" + name if name in plan[path] else name)
    else:
        with open(path, encoding="utf-8") as f:
            for name in sorted(set(marked.findall(f.read()))):
                print(a.RENAME_PREFIX + fid + "__" + name if name in plan.get(path, ()) else name)
EOF
if [ $x86 -eq 1 ] && command -v objdump >/dev/null 2>&1; then
    for cc in "${compilers[@]}"; do
        [ -f "$tmp/sdx-$cc.o" ] || continue
        # every function with a VEX- or EVEX-encoded instruction
        bad=$(objdump -d --no-show-raw-insn "$tmp/sdx-$cc.o" | awk '
            /^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3); sub(/\..*/, "", fn) }
            /^ +[0-9a-f]+:\t(v[a-z]|andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx|k[a-z]+ +%k)/ { print fn }' |
            sort -u | grep -vxF -f "$tmp/kernel-names" | tr '\n' ' ')
        if [ -n "$bad" ]; then
            failed "$cc: AVX/BMI instructions outside the kernels' target regions, in: $bad"
        else
            echo "ok: $cc: AVX/BMI instructions in the kernels' functions only"
        fi
    done
fi
cat >"$tmp/simd.c" <<'EOF'
#include <stdio.h>
#include "sdx.h"
int main(void) { puts(sdx_simd_name()); return 0; }
EOF
for cc in "${compilers[@]}"; do
    [ -f "$tmp/sdx-$cc.o" ] || continue
    if ! "$cc" -std=c11 -I "$dist" "$tmp/simd.c" "$tmp/sdx-$cc.o" -lm -o "$tmp/simd-$cc" 2>"$tmp/log"; then
        failed "linking a program to sdx.c ($cc)"; head -20 "$tmp/log"; continue
    fi
    got=$(env -u SDX_SIMD "$tmp/simd-$cc")
    if [ "$got" = "$best" ]; then echo "ok: $cc: dispatch picks $got"; else failed "$cc: dispatch picks $got, the CPU has $best"; fi
    for cap in scalar sse2 avx2; do
        case "$best:$cap" in scalar:* | sse2:avx2 | neon:*) continue ;; esac
        got=$(SDX_SIMD=$cap "$tmp/simd-$cc")
        [ "$got" = "$cap" ] || failed "$cc: SDX_SIMD=$cap gives $got"
    done
done

# 5. the unit tests against the amalgamated library
units=()
for f in tests/unit/test_*.c; do units+=("$(basename "$f" .c)"); done
names=$(printf '%s\n' "${units[@]}" | sed 's/^test_//' | paste -sd'|')
gen=$(command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")

# unit_tests DIR [cmake options...]: configure DIR with SDX_AMALGAMATION=ON,
# build the unit tests, run them
unit_tests() {
    local dir="$1"
    shift
    mkdir -p "$dir"
    cmake -S . -B "$dir" -G "$gen" -DSDX_AMALGAMATION=ON -DSDX_BUILD_TESTS=ON -DSDX_BUILD_CLI=OFF \
        -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.configure.log" 2>&1 ||
        { failed "configuring $dir"; tail -30 "$dir.configure.log"; return 1; }
    cmake --build "$dir" -j "$jobs" --target "${units[@]}" >"$dir.build.log" 2>&1 ||
        { failed "building the unit tests in $dir"; grep -E "error|Error" "$dir.build.log" | head -30; return 1; }
    [ "$(ar t "$dir/libsdx.a" 2>/dev/null)" = "sdx.c.o" ] ||
        { failed "$dir/libsdx.a is not the one object of amalgamation/sdx.c"; return 1; }
    if ctest --test-dir "$dir" -R "^($names)\$" --output-on-failure -j "$jobs" >"$dir.ctest.log" 2>&1; then
        echo "ok: $(grep -E 'tests passed' "$dir.ctest.log")"
    else
        failed "unit tests in $dir"; grep -E "Failed|\*\*\*|FAIL" "$dir.ctest.log" | head -40
    fi
    local n
    n=$(grep -cE '^ *[0-9]+/[0-9]+ Test' "$dir.ctest.log")
    [ "$n" -eq ${#units[@]} ] || failed "$dir: ctest ran $n tests, tests/unit has ${#units[@]}"
}

echo "== unit tests against the amalgamation ($build)"
unit_tests "$build"

if [ $aarch64 -eq 1 ]; then
    if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && command -v qemu-aarch64 >/dev/null 2>&1; then
        (cd "$dist" && aarch64-linux-gnu-gcc "${cflags[@]}" -c sdx.c -o "$tmp/sdx-aarch64.o") 2>"$tmp/log" &&
            echo "ok: aarch64-linux-gnu-gcc -c sdx.c" ||
            { failed "aarch64-linux-gnu-gcc -c sdx.c"; head -40 "$tmp/log"; }
        echo "== unit tests against the amalgamation, aarch64 under qemu ($build-aarch64)"
        unit_tests "$build-aarch64" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchain-aarch64.cmake"
    else
        echo "SKIP: aarch64 (no aarch64-linux-gnu-gcc or qemu-aarch64; scripts/test-aarch64.sh installs them)"
    fi
fi

echo "amalgamation: $([ $fail -eq 0 ] && echo 'all passed' || echo 'FAILED') ($(($(date +%s) - start)) s)"
exit $fail
