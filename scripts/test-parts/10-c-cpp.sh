#!/usr/bin/env bash
# C and C++ consumers: the CMake build (cargo underneath), the C tests under valgrind, the C++
# wrapper's GoogleTest tests, the examples, and the install / find_package / pkg-config /
# add_subdirectory consumer tests. Installs the system tools it needs when they are missing.
#
# Two build types, warnings as errors in both: Debug runs every test (valgrind wants unoptimised
# programs), Release builds everything again with optimisation, which is where GCC's
# -Wformat-truncation and similar warnings appear, and runs the tests natively plus the consumer
# tests (the install is what a Release build ships). Both use the one `cargo build --release --lib`
# in target/ (the Rust library does not depend on the CMake build type). The Debug tests run two at
# a time: most of that run is valgrind, which keeps each program on one core.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh

need_commands cmake:cmake gcc:gcc gcc:libc6-dev g++:g++ make:make valgrind:valgrind \
  pkg-config:pkg-config readelf:binutils objcopy:binutils
[ -f /usr/include/gtest/gtest.h ] || apt_install libgtest-dev

common=(-DTOOLREGISTRY_WERROR=ON)

cmake -S . -B build/cmake-debug -DCMAKE_BUILD_TYPE=Debug "${common[@]}"
cmake --build build/cmake-debug -j2
ctest --test-dir build/cmake-debug --output-on-failure -j2 -E '^consumer_'

cmake -S . -B build/cmake-release -DCMAKE_BUILD_TYPE=Release -DTOOLREGISTRY_VALGRIND=OFF "${common[@]}"
cmake --build build/cmake-release -j2
ctest --test-dir build/cmake-release --output-on-failure
