#!/usr/bin/env bash
# C and C++ consumers, Debug: the CMake build (cargo underneath) with warnings as errors, the C
# tests under valgrind, the C++ wrapper's GoogleTest tests and the examples (valgrind wants
# unoptimised programs). The Release build, its native runs and the install / find_package /
# pkg-config / add_subdirectory consumer tests are 11-c-cpp-release.sh: two parts, so that
# scripts/test.sh runs them beside each other or beside others. Both use the one
# `cargo build --release --lib` in target/ (the Rust library does not depend on the CMake build
# type). The tests run two at a time: most of this run is valgrind, which keeps each program on
# one core. Installs the system tools it needs when they are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh

need_commands cmake:cmake gcc:gcc gcc:libc6-dev g++:g++ make:make valgrind:valgrind \
  pkg-config:pkg-config readelf:binutils objcopy:binutils
[ -f /usr/include/gtest/gtest.h ] || apt_install libgtest-dev

cmake -S . -B build/cmake-debug -DCMAKE_BUILD_TYPE=Debug -DTOOLREGISTRY_WERROR=ON
cmake --build build/cmake-debug -j2
ctest --test-dir build/cmake-debug --output-on-failure -j2 -E '^consumer_'
