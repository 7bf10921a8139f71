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
