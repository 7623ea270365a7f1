#!/usr/bin/env bash
# C and C++ consumers: the CMake build (cargo underneath), the C tests under valgrind, the C++
# wrapper's GoogleTest tests, the examples, and the install / find_package / pkg-config /
# add_subdirectory consumer tests. Installs the system tools it needs when they are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh

need_commands cmake:cmake gcc:gcc gcc:libc6-dev g++:g++ make:make valgrind:valgrind \
  pkg-config:pkg-config readelf:binutils
[ -f /usr/include/gtest/gtest.h ] || apt_install libgtest-dev

cmake -S . -B build/cmake && cmake --build build/cmake -j2 && ctest --test-dir build/cmake --output-on-failure
