# Shared shell helpers for the project's scripts (sourced, not run).

# Install Debian packages that are missing (apt-get; sudo when not root).
# Returns non-zero if any could not be installed.
ensure_debian_packages() {
    local missing=()
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing Debian packages: ${missing[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 && return 0
    $sudo apt-get update -q >/dev/null 2>&1
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
}

# The CMake generator: Ninja when it is installed.
cmake_generator() {
    if command -v ninja >/dev/null 2>&1; then echo "Ninja"; else echo "Unix Makefiles"; fi
}

# Configure and build a CMake tree: build_tree DIR [cmake options...]
build_tree() {
    local dir="$1"
    shift
    cmake -S . -B "$dir" -G "$(cmake_generator)" "$@" >"$dir.configure.log" 2>&1 ||
        { mkdir -p "$dir"; cat "$dir.configure.log" >&2; return 1; }
    cmake --build "$dir" -j "$(nproc)" >"$dir.build.log" 2>&1 || { cat "$dir.build.log" >&2; return 1; }
}

# Unpack Debian packages into PREFIX without installing them (for peers
# whose packages would drag in what nothing uses: libmsgpack-cxx-dev depends
# on libboost-dev, Boost 1.74, which conflicts with any other Boost
# development package). The stamp PREFIX/.unpacked-PACKAGE holds the
# package's version (bench/CMakeLists.txt reads it for programs.tsv). Skips
# packages already unpacked. Returns non-zero if any could not be fetched.
extract_debian_packages() {
    local prefix="$1"
    shift
    mkdir -p "$prefix"
    local tmp rc=0
    tmp=$(mktemp -d)
    for p in "$@"; do
        [ -s "$prefix/.unpacked-$p" ] && continue
        if (cd "$tmp" && apt-get download -q "$p" >/dev/null 2>&1) ||
            { (apt-get update -q >/dev/null 2>&1 || sudo apt-get update -q >/dev/null 2>&1) &&
              (cd "$tmp" && apt-get download -q "$p" >/dev/null 2>&1); }; then
            dpkg-deb -x "$tmp"/"$p"_*.deb "$prefix" &&
                dpkg-deb -f "$tmp"/"$p"_*.deb Version >"$prefix/.unpacked-$p" || rc=1
        else
            echo "cannot download Debian package $p" >&2
            rc=1
        fi
    done
    rm -rf "$tmp"
    return $rc
}

# Every Debian package the benchmark suite's peers come from. msgpack's
# development packages are unpacked into build/deps (see above); its
# runtime library is installed normally. simdjson and Boost.JSON come from
# PyPI at pinned versions (bench/fetch-peer.py, run by CMake: pip download,
# hence python3-pip).
BENCH_DEBIAN_PACKAGES="cmake gcc g++ make pkg-config python3 python3-pip libjansson-dev
    rapidjson-dev libyajl-dev libcjson-dev libjson-c-dev nlohmann-json3-dev
    libmsgpackc2 libmsgpuck-dev libcbor-dev libbson-dev"
BENCH_UNPACKED_PACKAGES="libmsgpack-dev libmsgpack-cxx-dev"

# Install (or unpack) every peer of the benchmark suite; missing ones are
# reported by the suite itself.
bench_install_peers() {
    # shellcheck disable=SC2086
    ensure_debian_packages $BENCH_DEBIAN_PACKAGES ||
        echo "warning: some peer libraries could not be installed; the suite reports them as missing" >&2
    # shellcheck disable=SC2086
    extract_debian_packages build/deps $BENCH_UNPACKED_PACKAGES ||
        echo "warning: msgpack-c could not be unpacked; the suite reports it as missing" >&2
}
