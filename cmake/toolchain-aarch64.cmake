# Cross-compiling sdx for 64-bit ARM Linux with the Debian/Ubuntu cross
# toolchain (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross); ctest runs the
# test executables under qemu-user. scripts/test-aarch64.sh uses this file:
#
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(SDX_AARCH64_TRIPLE aarch64-linux-gnu CACHE STRING "Target triple of the cross toolchain")
set(SDX_AARCH64_SYSROOT /usr/${SDX_AARCH64_TRIPLE} CACHE PATH
    "Where the target's libc lives (for qemu's -L)")

set(CMAKE_C_COMPILER ${SDX_AARCH64_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${SDX_AARCH64_TRIPLE}-g++)

find_program(SDX_QEMU_AARCH64 qemu-aarch64)
if(SDX_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SDX_QEMU_AARCH64} -L ${SDX_AARCH64_SYSROOT})
endif()

# Look for libraries and headers in the target's tree only, programs on the host.
set(CMAKE_FIND_ROOT_PATH ${SDX_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
