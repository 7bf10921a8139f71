#!/usr/bin/env bash
# The packaging test (scripts/test.sh runs it on the release build):
#
#   tests/packaging/check.sh BUILD_DIR
#
# 1. `cmake --install BUILD_DIR --prefix TMP` puts the headers, libsdx.a,
#    libsdx.so.MAJOR, the command, its man page, the CMake package and
#    sdx.pc where GNUInstallDirs says;
# 2. the installed command, sdx.pc and the CMake package report the version
#    of include/sdx/common.h;
# 3. a small outside program (tests/packaging/outside) is built and run
#    three ways: find_package(sdx) (shared and static), pkg-config, and the
#    amalgamation (scripts/amalgamate.py; sdx.c compiled with gcc and
#    clang at -Wall -Wextra -Werror);
# 4. a JSON-only build (every SDX_NO_ format switch) builds the library, the
#    command and the unit tests that apply, passes them, and its sizes are
#    printed beside the full build's;
# 5. tests/amalgamation/check.sh: the amalgamation with both compilers and
#    every switch, its SIMD regions and dispatch, and the unit tests against
#    a library built from sdx.c.
# Prints one line per check and "PACKAGING SUMMARY: N passed, M failed".
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
build=$(cd "${1:?usage: check.sh BUILD_DIR}" && pwd)
. scripts/lib.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }
# run_logged NAME LOG CMD...: run CMD, its output into LOG; show LOG on failure
run_logged() {
    local name="$1" log="$2"
    shift 2
    if "$@" >"$log" 2>&1; then return 0; fi
    echo "---- $name:"
    tail -40 "$log"
    return 1
}

version=$(sed -n 's/^#define SDX_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/sdx/common.h |
    paste -sd.)
major=${version%%.*}
echo "sdx $version"

# 1. Install
prefix="$tmp/prefix"
if run_logged install "$tmp/install.log" cmake --install "$build" --prefix "$prefix"; then
    ok "cmake --install into a temporary prefix"
else
    bad "cmake --install"
fi
libdir=$(dirname "$(find "$prefix" -name libsdx.a | head -1)")
for f in include/sdx/sdx.h include/sdx/json.h include/sdx/cbor.h bin/sdx share/man/man1/sdx.1 \
    "${libdir#"$prefix"/}/libsdx.a" "${libdir#"$prefix"/}/libsdx.so.$major" \
    "${libdir#"$prefix"/}/libsdx.so" "${libdir#"$prefix"/}/pkgconfig/sdx.pc" \
    "${libdir#"$prefix"/}/cmake/sdx/sdxConfig.cmake" "${libdir#"$prefix"/}/cmake/sdx/sdxConfigVersion.cmake"; do
    if [ -e "$prefix/$f" ]; then ok "installed $f"; else bad "not installed: $f"; fi
done
soname=$(objdump -p "$libdir/libsdx.so" 2>/dev/null | sed -n 's/^ *SONAME *//p')
[ "$soname" = "libsdx.so.$major" ] && ok "SONAME $soname" || bad "SONAME '$soname', expected libsdx.so.$major"

# 2. Versions
v=$("$prefix/bin/sdx" --version 2>&1)
case "$v" in "sdx $version "*) ok "sdx --version: $v" ;; *) bad "sdx --version says '$v'" ;; esac
export PKG_CONFIG_PATH="$libdir/pkgconfig"
v=$(pkg-config --modversion sdx 2>&1)
[ "$v" = "$version" ] && ok "pkg-config --modversion sdx: $v" || bad "pkg-config --modversion sdx: '$v'"
[ "$(pkg-config --variable=prefix sdx)" = "$prefix" ] && ok "sdx.pc prefix is the install prefix" ||
    bad "sdx.pc prefix: $(pkg-config --variable=prefix sdx)"
if man -l "$prefix/share/man/man1/sdx.1" >/dev/null 2>&1 || ! command -v man >/dev/null; then
    ok "the man page renders (or man is not installed)"
else
    bad "man -l sdx.1"
fi

# 3. An outside program, three ways. Its expected output line:
expect="$version 37 {\"name\":\"sdx\",\"n\":[1,-2,3.5,18446744073709551615],\"ok\":true}"
check_run() { # NAME PROGRAM
    local out
    out=$("$2" 2>&1)
    if [ $? -eq 0 ] && [ "$out" = "$expect" ]; then ok "$1 runs: $out"; else bad "$1 printed '$out'"; fi
}
src="$root/tests/packaging/outside"
# 3a. find_package(sdx)
if run_logged find_package "$tmp/fp.log" cmake -S "$src" -B "$tmp/fp" -G "$(cmake_generator)" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release &&
    run_logged find_package "$tmp/fp-build.log" cmake --build "$tmp/fp"; then
    ok "find_package(sdx) configures and builds"
    check_run "find_package, sdx::sdx (shared)" "$tmp/fp/outside_shared"
    check_run "find_package, sdx::sdx_static" "$tmp/fp/outside_static"
    if ldd "$tmp/fp/outside_shared" | grep -q "$libdir/libsdx.so.$major"; then
        ok "outside_shared uses the installed libsdx.so.$major"
    else
        bad "outside_shared does not load $libdir/libsdx.so.$major"
    fi
    if ldd "$tmp/fp/outside_static" | grep -q libsdx; then bad "outside_static loads libsdx"; else
        ok "outside_static is linked statically"
    fi
else
    bad "find_package(sdx)"
fi
# 3b. pkg-config (shared, and static with --static)
if run_logged pkg-config "$tmp/pc.log" sh -c "cc -std=c11 -Wall -Wextra -Werror \"$src/main.c\" \
    \$(pkg-config --cflags --libs sdx) -Wl,-rpath,\"$libdir\" -o \"$tmp/outside_pc\""; then
    ok "cc \$(pkg-config --cflags --libs sdx)"
    check_run "pkg-config program" "$tmp/outside_pc"
else
    bad "building with pkg-config"
fi
if run_logged pkg-config-static "$tmp/pcs.log" sh -c "cc -std=c11 -Wall -Wextra -Werror -static \
    \"$src/main.c\" \$(pkg-config --static --cflags --libs sdx) -o \"$tmp/outside_pcs\""; then
    ok "cc -static \$(pkg-config --static --cflags --libs sdx)"
    check_run "pkg-config --static program" "$tmp/outside_pcs"
else
    bad "building with pkg-config --static"
fi
# 3c. The amalgamation: two files, compiled on their own.
amalg="$tmp/amalgamation"
if run_logged amalgamate "$tmp/amalg.log" python3 scripts/amalgamate.py --out "$amalg"; then
    ok "scripts/amalgamate.py writes sdx.h and sdx.c"
    for cc in gcc clang-19; do
        if ! command -v $cc >/dev/null; then bad "$cc is not installed"; continue; fi
        mkdir -p "$tmp/a-$cc"
        if run_logged "amalgamation $cc" "$tmp/a-$cc.log" sh -c "cd \"$amalg\" && $cc -std=c11 -O2 \
            -Wall -Wextra -Wpedantic -Werror -c sdx.c -o \"$tmp/a-$cc/sdx.o\" && $cc -std=c11 -Wall \
            -Wextra -Werror -DUSE_AMALGAMATION -I. \"$src/main.c\" \"$tmp/a-$cc/sdx.o\" -lm \
            -o \"$tmp/a-$cc/outside\""; then
            ok "$cc -c sdx.c (amalgamation) and the program"
            check_run "amalgamation program ($cc)" "$tmp/a-$cc/outside"
        else
            bad "$cc: the amalgamation"
        fi
    done
else
    bad "scripts/amalgamate.py"
fi

# 4. A JSON-only build: the library, the command, the unit tests that
# apply (the JSON conformance suites need every format's tools and are left
# to the full builds).
jo="$tmp/jsononly"
if run_logged "JSON-only build" "$tmp/jo.log" cmake -S . -B "$jo" -G "$(cmake_generator)" \
    -DCMAKE_BUILD_TYPE=Release -DSDX_NO_MSGPACK=ON -DSDX_NO_CBOR=ON -DSDX_NO_BSON=ON \
    -DSDX_NO_UBJSON=ON -DSDX_NO_BINN=ON && run_logged "JSON-only build" "$tmp/jo-build.log" \
    cmake --build "$jo" -j "$(nproc)"; then
    ok "JSON-only build (SDX_NO_MSGPACK, _CBOR, _BSON, _UBJSON, _BINN)"
    if run_logged "JSON-only tests" "$tmp/jo-test.log" ctest --test-dir "$jo" -j "$(nproc)"; then
        ok "JSON-only build: $(grep -E 'tests passed' "$tmp/jo-test.log")"
    else
        bad "JSON-only build's tests"
    fi
    formats=$("$jo/sdx" formats | awk 'NR > 1 {print $1}' | paste -sd' ')
    [ "$formats" = "json" ] && ok "the JSON-only command knows: $formats" || bad "JSON-only sdx formats: $formats"
    size_of() { size "$1" | awk 'NR == 2 {print $4}'; }
    printf '%-28s %12s %12s\n' "size (text+data+bss)" "full" "JSON-only"
    printf '%-28s %12s %12s\n' "libsdx.so" "$(size_of "$build/libsdx.so")" "$(size_of "$jo/libsdx.so")"
    printf '%-28s %12s %12s\n' "sdx (command)" "$(size_of "$build/sdx")" "$(size_of "$jo/sdx")"
else
    bad "JSON-only build"
fi

# 5. The amalgamation's own test (tests/amalgamation/check.sh): both
# compilers, every switch, the SIMD regions and dispatch, and the unit tests
# built against a library made from sdx.c.
if bash tests/amalgamation/check.sh >"$tmp/amalg-check.log" 2>&1; then
    ok "tests/amalgamation/check.sh: $(grep -c '^ok: ' "$tmp/amalg-check.log") checks, $(grep -E 'tests passed' "$tmp/amalg-check.log" | tail -1)"
else
    grep -vE '^ok: ' "$tmp/amalg-check.log" | tail -60
    bad "tests/amalgamation/check.sh"
fi

echo "PACKAGING SUMMARY: $passed passed, $failed failed"
[ $failed -eq 0 ]
