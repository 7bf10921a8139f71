#!/usr/bin/env bash
# The ctest test msgpack_suite: install the pinned npm package
# msgpack-test-suite if needed, write its cases out and check them.
#
#   run_suite.sh TOOL NPM_PREFIX WORK_DIR
set -u
tool="$1" prefix="$2" work="$3"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

bash "$root/scripts/install-test-deps.sh" --msgpack-suite "$prefix" || exit 1
mkdir -p "$work"
node "$here/extract_suite.mjs" "$prefix/node_modules/msgpack-test-suite" "$work/cases.txt" || exit 1
# shellcheck disable=SC2086 # the emulator prefix is words (tests/*/CMakeLists.txt)
exec ${SDX_TEST_EMULATOR:-} "$tool" suite "$work/cases.txt"
