#!/bin/sh
# Build sdx for 64-bit ARM with the cross compiler and run the whole test
# suite under qemu-user (so the NEON kernels are tested on an x86 machine).
#
#   scripts/test-aarch64.sh            (from any directory)
#
# Installs gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user with
# apt-get when they are missing (with sudo when not root). If they cannot be
# had, prints "NEON: skipped (no aarch64 cross compiler)" and exits 0.
# Otherwise configures build/aarch64 with cmake/toolchain-aarch64.cmake,
# builds, and exits with the status of `ctest --output-on-failure`.
# Environment: SDX_TEST_SCALE (default 1) scales the randomized tests;
# JOBS sets the build parallelism.
set -u

root=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$root" || exit 1

have_tools() {
    command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
        command -v qemu-aarch64 >/dev/null 2>&1 &&
        [ -e /usr/aarch64-linux-gnu/include/stdio.h ]
}

install_tools() {
    command -v apt-get >/dev/null 2>&1 || return 1
    if [ "$(id -u)" = 0 ]; then
        sudo=
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    else
        return 1
    fi
    echo "installing the aarch64 cross compiler and qemu-user..."
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null 2>&1
}

if ! have_tools; then
    install_tools
    if ! have_tools; then
        echo "NEON: skipped (no aarch64 cross compiler)"
        exit 0
    fi
fi

build=build/aarch64
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}

cmake -S . -B "$build" \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchain-aarch64.cmake" \
    -DCMAKE_BUILD_TYPE=Release \
    -DSDX_BUILD_TESTS=ON || exit 1
cmake --build "$build" --parallel "$jobs" || exit 1

cd "$build" || exit 1
ctest --output-on-failure -j "$jobs"
