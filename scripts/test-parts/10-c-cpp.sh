#!/usr/bin/env bash
# C and C++ consumers: the CMake build (cargo underneath), the C tests under valgrind, the C++
# wrapper's GoogleTest tests, the examples, and the install / find_package / pkg-config /
# add_subdirectory consumer tests. Installs the system tools it needs when they are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

packages=()
command -v cmake >/dev/null 2>&1 || packages+=(cmake)
command -v gcc >/dev/null 2>&1 || packages+=(gcc libc6-dev)
command -v g++ >/dev/null 2>&1 || packages+=(g++)
command -v make >/dev/null 2>&1 || packages+=(make)
command -v valgrind >/dev/null 2>&1 || packages+=(valgrind)
command -v pkg-config >/dev/null 2>&1 || packages+=(pkg-config)
command -v readelf >/dev/null 2>&1 || packages+=(binutils)
[ -f /usr/include/gtest/gtest.h ] || packages+=(libgtest-dev)
if [ ${#packages[@]} -gt 0 ]; then
  apt-get update && apt-get install -y "${packages[@]}"
fi

cmake -S . -B build/cmake && cmake --build build/cmake -j2 && ctest --test-dir build/cmake --output-on-failure
