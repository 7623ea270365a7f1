# Builds the Rust crate with cargo and wraps the result in imported targets.
#
# cargo does its own dependency tracking, so the build step always runs and is cheap when nothing
# changed. It is `cargo build --release --lib` whatever CMAKE_BUILD_TYPE is (the build type is the
# C and C++ programs' own), in the crate's target/ directory by default, so every CMake build
# directory, the other bindings and a plain `cargo build --release` share one library build.
# Its outputs are copied into ${PROJECT_BINARY_DIR}/toolregistry-lib under their installed
# names (libtoolregistry.so.X.Y.Z plus the SONAME and development symlinks): the library's SONAME is
# libtoolregistry.so.0.MINOR (set by build.rs), so the loader looks for that name next to the
# RPATH CMake gives the test programs. With TOOLREGISTRY_SPLIT_DEBUG the copies are stripped of
# debug info, kept beside the shared library in libtoolregistry.so.X.Y.Z.debug (see
# cmake/SplitDebug.cmake). The copies are only refreshed when cargo produced a new file, so
# programs are not relinked needlessly.
#
# Defines:
#   toolregistry::toolregistry_shared   SHARED IMPORTED
#   toolregistry::toolregistry_static   STATIC IMPORTED (with the system libraries Rust's std needs)
#   toolregistry::toolregistry          the one picked by TOOLREGISTRY_STATIC (shared by default)
#   toolregistry_cargo                  the custom target running cargo
# Sets TOOLREGISTRY_LIB_DIR, TOOLREGISTRY_SONAME, TOOLREGISTRY_DEBUG_FILE (empty without
# TOOLREGISTRY_SPLIT_DEBUG), TOOLREGISTRY_STATIC_SYSTEM_LIBS.

find_program(CARGO_EXECUTABLE cargo
  HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin"
  DOC "cargo, the Rust build tool")
if(NOT CARGO_EXECUTABLE)
  message(FATAL_ERROR "toolregistry: cargo not found; install a Rust toolchain (https://rustup.rs) "
                      "or set CARGO_EXECUTABLE")
endif()

set(TOOLREGISTRY_CARGO_TARGET_DIR "${PROJECT_SOURCE_DIR}/target" CACHE PATH
    "cargo --target-dir (default: the crate's own target/, shared with plain cargo builds)")
option(TOOLREGISTRY_CARGO_OFFLINE
       "Pass --offline to cargo (the crates in Cargo.lock must already be in cargo's cache)" OFF)

# cargo's release profile keeps line tables (debug = "line-tables-only") for backtraces and
# valgrind; what is installed carries them in a separate file instead.
if(CMAKE_OBJCOPY)
  set(TOOLREGISTRY_OBJCOPY "${CMAKE_OBJCOPY}" CACHE FILEPATH
      "objcopy, which splits the library's debug info into a separate file")
else()
  find_program(TOOLREGISTRY_OBJCOPY NAMES objcopy llvm-objcopy
    DOC "objcopy, which splits the library's debug info into a separate file")
endif()
option(TOOLREGISTRY_SPLIT_DEBUG
       "Strip the library's debug info, keeping it beside the library in a .debug file" ON)
if(TOOLREGISTRY_SPLIT_DEBUG AND NOT TOOLREGISTRY_OBJCOPY)
  message(FATAL_ERROR "toolregistry: objcopy not found (binutils); install it or configure with "
                      "-DTOOLREGISTRY_SPLIT_DEBUG=OFF")
endif()

# What rustc prints for `--print native-static-libs` on Linux/glibc (minus -lc, which every C
# link has): the static library needs them, the shared one links them itself.
find_package(Threads REQUIRED)
set(TOOLREGISTRY_STATIC_SYSTEM_LIBS Threads::Threads ${CMAKE_DL_LIBS} m rt util)
set(TOOLREGISTRY_STATIC_SYSTEM_LIBS_PC "-lpthread -ldl -lm -lrt -lutil")

function(toolregistry_add_cargo_library)
  if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
    message(WARNING "toolregistry: the CMake build is written and tested for Linux only")
  endif()

  set(version "${PROJECT_VERSION}")
  if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(soname "libtoolregistry.so.0.${PROJECT_VERSION_MINOR}")
  else()
    set(soname "libtoolregistry.so.${PROJECT_VERSION_MAJOR}")
  endif()
  set(cargo_out "${TOOLREGISTRY_CARGO_TARGET_DIR}/release")
  set(lib_dir "${PROJECT_BINARY_DIR}/toolregistry-lib")
  file(MAKE_DIRECTORY "${lib_dir}")

  set(cargo_args build --release --lib --locked
      --manifest-path "${PROJECT_SOURCE_DIR}/Cargo.toml"
      --target-dir "${TOOLREGISTRY_CARGO_TARGET_DIR}")
  if(TOOLREGISTRY_CARGO_OFFLINE)
    list(APPEND cargo_args --offline)
  endif()

  set(split_debug)
  set(debug_file)
  if(TOOLREGISTRY_SPLIT_DEBUG)
    set(split_debug "-DOBJCOPY=${TOOLREGISTRY_OBJCOPY}")
    set(debug_file "${lib_dir}/libtoolregistry.so.${version}.debug")
  endif()
  set(copy "${PROJECT_SOURCE_DIR}/cmake/SplitDebug.cmake")

  add_custom_target(toolregistry_cargo ALL
    COMMAND "${CARGO_EXECUTABLE}" ${cargo_args}
    COMMAND "${CMAKE_COMMAND}" "-DSRC=${cargo_out}/libtoolregistry.so"
            "-DDST=${lib_dir}/libtoolregistry.so.${version}" ${split_debug} -P "${copy}"
    COMMAND "${CMAKE_COMMAND}" -E create_symlink
            "libtoolregistry.so.${version}" "${lib_dir}/${soname}"
    COMMAND "${CMAKE_COMMAND}" -E create_symlink "${soname}" "${lib_dir}/libtoolregistry.so"
    COMMAND "${CMAKE_COMMAND}" "-DSRC=${cargo_out}/libtoolregistry.a"
            "-DDST=${lib_dir}/libtoolregistry.a" ${split_debug} -P "${copy}"
    BYPRODUCTS "${lib_dir}/libtoolregistry.so.${version}" "${lib_dir}/${soname}"
               "${lib_dir}/libtoolregistry.so" "${lib_dir}/libtoolregistry.a" ${debug_file}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "cargo build --release --lib (libtoolregistry.so, libtoolregistry.a)"
    USES_TERMINAL
    VERBATIM)

  add_library(toolregistry::toolregistry_shared SHARED IMPORTED GLOBAL)
  set_target_properties(toolregistry::toolregistry_shared PROPERTIES
    IMPORTED_LOCATION "${lib_dir}/libtoolregistry.so.${version}"
    IMPORTED_SONAME "${soname}"
    INTERFACE_INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include")
  add_dependencies(toolregistry::toolregistry_shared toolregistry_cargo)

  add_library(toolregistry::toolregistry_static STATIC IMPORTED GLOBAL)
  set_target_properties(toolregistry::toolregistry_static PROPERTIES
    IMPORTED_LOCATION "${lib_dir}/libtoolregistry.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES C
    INTERFACE_INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include"
    INTERFACE_LINK_LIBRARIES "${TOOLREGISTRY_STATIC_SYSTEM_LIBS}")
  add_dependencies(toolregistry::toolregistry_static toolregistry_cargo)

  # toolregistry::toolregistry is an imported target of the chosen kind in its own right (not an
  # ALIAS), as in the installed package config, so both places define the same kinds of targets.
  if(TOOLREGISTRY_STATIC)
    add_library(toolregistry::toolregistry STATIC IMPORTED GLOBAL)
    set_target_properties(toolregistry::toolregistry PROPERTIES
      IMPORTED_LOCATION "${lib_dir}/libtoolregistry.a"
      IMPORTED_LINK_INTERFACE_LANGUAGES C
      INTERFACE_LINK_LIBRARIES "${TOOLREGISTRY_STATIC_SYSTEM_LIBS}")
  else()
    add_library(toolregistry::toolregistry SHARED IMPORTED GLOBAL)
    set_target_properties(toolregistry::toolregistry PROPERTIES
      IMPORTED_LOCATION "${lib_dir}/libtoolregistry.so.${version}"
      IMPORTED_SONAME "${soname}")
  endif()
  set_target_properties(toolregistry::toolregistry PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include")
  add_dependencies(toolregistry::toolregistry toolregistry_cargo)

  set(TOOLREGISTRY_LIB_DIR "${lib_dir}" PARENT_SCOPE)
  set(TOOLREGISTRY_DEBUG_FILE "${debug_file}" PARENT_SCOPE)
  set(TOOLREGISTRY_SONAME "${soname}" PARENT_SCOPE)
endfunction()
