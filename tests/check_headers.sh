#!/bin/sh
# Every public header, included alone, compiles warning-free as C11 with
# gcc and with clang (-Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
# -Werror), and as C++11 with g++ and clang++ (the headers are meant for C++
# callers too: extern "C"). scripts/test.sh installs clang-19; a compiler
# that is missing is a failure, named.
#
# usage: check_headers.sh INCLUDE_DIR
set -u
inc="$1"
fail=0
pick() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 && { echo "$c"; return 0; }; done; return 1; }
cc_gcc=$(pick gcc) || { echo "FAIL: gcc not found"; fail=1; }
cc_clang=$(pick clang-19 clang) || { echo "FAIL: clang not found (scripts/test.sh installs clang-19)"; fail=1; }
cxx_gcc=$(pick g++) || cxx_gcc=""
cxx_clang=$(pick clang++-19 clang++) || cxx_clang=""
n=0
for h in "$inc"/sdx/*.h; do
    name=sdx/$(basename "$h")
    for c in ${cc_gcc:-} ${cc_clang:-}; do
        if ! printf '#include <%s>\n' "$name" | "$c" -std=c11 -Wall -Wextra -Wpedantic -Wshadow \
            -Wstrict-prototypes -Werror -fsyntax-only -I "$inc" -x c - 2>/tmp/hdr.$$; then
            echo "FAIL: $name with $c:"; cat /tmp/hdr.$$; fail=1
        fi
        n=$((n + 1))
    done
    for c in $cxx_gcc $cxx_clang; do
        if ! printf '#include <%s>\n' "$name" | "$c" -std=c++11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only \
            -I "$inc" -x c++ - 2>/tmp/hdr.$$; then
            echo "FAIL: $name with $c (C++):"; cat /tmp/hdr.$$; fail=1
        fi
        n=$((n + 1))
    done
done
rm -f /tmp/hdr.$$
echo "public headers: $n compilations, $( [ $fail -eq 0 ] && echo 'all clean' || echo 'FAILED')"
exit $fail
