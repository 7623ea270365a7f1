#!/usr/bin/env bash
# C and C++ consumers, Release: everything 10-c-cpp.sh builds, again with optimisation and
# warnings as errors (GCC's -Wformat-truncation and similar warnings appear only there), the tests
# run natively, and the consumer tests: install, find_package, pkg-config and add_subdirectory (the
# install is what a Release build ships). Installs the system tools it needs when they are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh

need_commands cmake:cmake gcc:gcc gcc:libc6-dev g++:g++ make:make pkg-config:pkg-config \
  readelf:binutils objcopy:binutils
[ -f /usr/include/gtest/gtest.h ] || apt_install libgtest-dev

cmake -S . -B build/cmake-release -DCMAKE_BUILD_TYPE=Release -DTOOLREGISTRY_VALGRIND=OFF -DTOOLREGISTRY_WERROR=ON
cmake --build build/cmake-release -j2
ctest --test-dir build/cmake-release --output-on-failure
