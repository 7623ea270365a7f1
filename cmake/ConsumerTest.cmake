# Consumer tests, one STEP per CTest test (see tests/consumer/CMakeLists.txt):
#   install               cmake --install into WORK_DIR/staging, then move it to WORK_DIR/prefix;
#                         the library stripped, its debug info beside it (with SPLIT_DEBUG)
#   find_package_c        configure, build and run tests/consumer/c against WORK_DIR/prefix
#   find_package_c_static the same with the static library
#   find_package_cpp      the same in C++ with toolregistry::cpp
#   pkg_config            cc discover.c $(pkg-config --cflags --libs toolregistry)
#   add_subdirectory      tests/consumer/subdir, which add_subdirectory()s the source tree
# Programs linked against the shared library must record the SONAME, not a path.

set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " command ${ARGN})
  message("$ ${command}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# Runs `program`, which must print the discover answer for "send an email".
function(run_discover program)
  run("${program}" "send an email")
  if(NOT run_output MATCHES "send_email")
    message(FATAL_ERROR "${program} did not find send_email")
  endif()
endfunction()

# The dynamic section of `program` must need the library by its SONAME (or not at all when static).
function(check_needed program expect_shared)
  find_program(READELF readelf REQUIRED)
  run("${READELF}" -d "${program}")
  if(expect_shared)
    if(NOT run_output MATCHES "NEEDED[^\n]*\\[${SONAME}\\]")
      message(FATAL_ERROR "${program} does not record the SONAME ${SONAME}")
    endif()
  elseif(run_output MATCHES "libtoolregistry")
    message(FATAL_ERROR "${program} should link the static library, but needs a shared one")
  endif()
endfunction()

function(build_consumer name)
  set(build "${WORK_DIR}/${name}-build")
  file(REMOVE_RECURSE "${build}")
  run("${CMAKE_COMMAND}" -S "${CONSUMERS_DIR}/${name}" -B "${build}" -G "${GENERATOR}"
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
      "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" ${ARGN})
  run("${CMAKE_COMMAND}" --build "${build}")
  set(build_dir "${build}" PARENT_SCOPE)
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${WORK_DIR}")
  run("${CMAKE_COMMAND}" --install "${PROJECT_BINARY_DIR}" --prefix "${WORK_DIR}/staging")
  file(RENAME "${WORK_DIR}/staging" "${prefix}")
  foreach(f include/toolregistry.h include/toolregistry.hpp include/toolregistry/types.hpp
            include/toolregistry/detail.hpp include/toolregistry/handles.hpp)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()
  # The library is shipped stripped, its debug info beside it behind a .gnu_debuglink.
  file(GLOB shipped "${prefix}/*/libtoolregistry.so.${VERSION}" "${prefix}/*/*/libtoolregistry.so.${VERSION}")
  list(GET shipped 0 shipped)
  find_program(READELF readelf REQUIRED)
  run("${READELF}" -S --wide "${shipped}")
  if(SPLIT_DEBUG)
    if(run_output MATCHES "\\.debug_info" OR NOT run_output MATCHES "\\.gnu_debuglink")
      message(FATAL_ERROR "${shipped} is not stripped or has no debug link")
    endif()
    run("${READELF}" -S --wide "${shipped}.debug")
    if(NOT run_output MATCHES "\\.debug_info")
      message(FATAL_ERROR "${shipped}.debug holds no debug info")
    endif()
  endif()
  file(GLOB_RECURSE installed RELATIVE "${prefix}" "${prefix}/*")
  list(SORT installed)
  string(REPLACE ";" "\n  " listing "${installed}")
  message("installed (then moved to ${prefix}):\n  ${listing}")
  # Nothing may point back into the staging directory.
  foreach(f IN LISTS installed)
    if(f MATCHES "\\.(cmake|pc)$")
      file(READ "${prefix}/${f}" text)
      if(text MATCHES "staging" OR text MATCHES "${PROJECT_BINARY_DIR}")
        message(FATAL_ERROR "${f} contains an absolute path; the package is not relocatable")
      endif()
    endif()
  endforeach()

elseif(STEP STREQUAL "find_package_c")
  # The package defaults to the kind it was built with; ask for the shared library explicitly.
  build_consumer(c -DTOOLREGISTRY_STATIC=OFF)
  check_needed("${build_dir}/consumer_c" TRUE)
  run_discover("${build_dir}/consumer_c")

elseif(STEP STREQUAL "find_package_c_static")
  build_consumer(c_static)
  check_needed("${build_dir}/consumer_c_static" FALSE)
  run_discover("${build_dir}/consumer_c_static")

elseif(STEP STREQUAL "find_package_cpp")
  build_consumer(cpp -DTOOLREGISTRY_STATIC=OFF)
  check_needed("${build_dir}/consumer_cpp" TRUE)
  run_discover("${build_dir}/consumer_cpp")

elseif(STEP STREQUAL "pkg_config")
  find_program(PKG_CONFIG pkg-config REQUIRED)
  file(GLOB pc_files "${prefix}/*/pkgconfig/toolregistry.pc" "${prefix}/*/*/pkgconfig/toolregistry.pc")
  list(GET pc_files 0 pc_file)
  get_filename_component(pc_dir "${pc_file}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  run("${PKG_CONFIG}" --cflags --libs toolregistry)
  string(STRIP "${run_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("${PKG_CONFIG}" --variable=libdir toolregistry)
  string(STRIP "${run_output}" libdir)
  set(program "${WORK_DIR}/pkg_config_discover")
  set(werror)
  if(WERROR)
    set(werror -Werror)
  endif()
  run("${C_COMPILER}" -std=c99 -Wall -Wextra ${werror}
      "${TOOLREGISTRY_SOURCE_DIR}/examples/discover.c" ${flags} -o "${program}")
  check_needed("${program}" TRUE)
  # Found through the loader's search path, by SONAME.
  set(ENV{LD_LIBRARY_PATH} "${libdir}")
  run_discover("${program}")

elseif(STEP STREQUAL "add_subdirectory")
  set(build "${WORK_DIR}/subdir-build")
  file(REMOVE_RECURSE "${build}")
  run("${CMAKE_COMMAND}" -S "${CONSUMERS_DIR}/subdir" -B "${build}" -G "${GENERATOR}"
      "-DTOOLREGISTRY_SOURCE_DIR=${TOOLREGISTRY_SOURCE_DIR}"
      "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
  run("${CMAKE_COMMAND}" --build "${build}")
  check_needed("${build}/consumer_subdir" TRUE)
  run_discover("${build}/consumer_subdir")

else()
  message(FATAL_ERROR "unknown STEP ${STEP}")
endif()
