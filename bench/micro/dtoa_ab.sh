#!/bin/sh
# Before and after for sdx_dtoa_json (bench/micro/dtoa_ab.c): the working
# tree's src/num/dtoa.c against revision REV's, on the doubles of the .f64
# files given. EXTRA_CFLAGS is added to both compilations, e.g.
# -Wa,-mbranches-within-32B-boundaries to take code alignment out of the
# comparison.
#   bench/micro/dtoa_ab.sh REV FILE.f64 ...
set -eu
[ $# -ge 2 ] || { echo "usage: $0 REV FILE.f64 ..." >&2; exit 2; }
rev=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/num"
git -C "$root" show "$rev:src/num/dtoa.c" > "$tmp/src/num/dtoa.c"
git -C "$root" show "$rev:src/num/pow10_table.h" > "$tmp/src/num/pow10_table.h"
flags="-O3 -DNDEBUG -std=c11 ${EXTRA_CFLAGS:-}"
# the old file first on the include path, so that it takes its own table
cc $flags -I"$tmp/src" -I"$root/src" -I"$root/include" -Dsdx_dtoa_json=old_dtoa_json \
    -Dsdx_dtoa_shortest=old_dtoa_shortest -c "$tmp/src/num/dtoa.c" -o "$tmp/old.o"
cc $flags -I"$root/src" -I"$root/include" -c "$root/src/num/dtoa.c" -o "$tmp/new.o"
cc $flags -I"$root/bench/micro" "$root/bench/micro/dtoa_ab.c" "$tmp/old.o" "$tmp/new.o" -o "$tmp/dtoa_ab"
"$tmp/dtoa_ab" "$@"
