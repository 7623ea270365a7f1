# Install rules: the libraries (with their SONAME symlink; stripped, the shared one's debug info
# in libtoolregistry.so.X.Y.Z.debug beside it unless TOOLREGISTRY_SPLIT_DEBUG is OFF), both
# headers, a relocatable CMake package (toolregistryConfig.cmake + toolregistryConfigVersion.cmake)
# and toolregistry.pc.
#
# The targets are imported (cargo builds them), so install(EXPORT) cannot describe them; the
# config file is written by hand from cmake/toolregistryConfig.cmake.in and finds everything
# relative to its own location, so the installed tree can be moved.

include(CMakePackageConfigHelpers)

set(_tr_lib_dir "${TOOLREGISTRY_LIB_DIR}")
set(_tr_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/toolregistry")

# file(INSTALL) keeps symlinks as symlinks.
install(FILES
    "${_tr_lib_dir}/libtoolregistry.so.${PROJECT_VERSION}"
    "${_tr_lib_dir}/${TOOLREGISTRY_SONAME}"
    "${_tr_lib_dir}/libtoolregistry.so"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# The debug info beside the library it belongs to, where its .gnu_debuglink tells gdb to look.
if(TOOLREGISTRY_DEBUG_FILE)
  install(FILES "${TOOLREGISTRY_DEBUG_FILE}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
install(FILES "${_tr_lib_dir}/libtoolregistry.a" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(FILES
    "${PROJECT_SOURCE_DIR}/include/toolregistry.h"
    "${PROJECT_SOURCE_DIR}/bindings/cpp/include/toolregistry.hpp"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/bindings/cpp/include/toolregistry"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" FILES_MATCHING PATTERN "*.hpp")

# Values substituted into the config file.
set(TOOLREGISTRY_DEFAULT_STATIC ${TOOLREGISTRY_STATIC})
set(TOOLREGISTRY_INSTALL_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
set(TOOLREGISTRY_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/toolregistryConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/toolregistryConfig.cmake"
  INSTALL_DESTINATION "${_tr_cmake_dir}"
  PATH_VARS TOOLREGISTRY_INSTALL_LIBDIR TOOLREGISTRY_INSTALL_INCLUDEDIR)
# Before 1.0 a minor release may break the ABI (the SONAME carries the minor), so only the same
# minor version is compatible; from 1.0 on, the same major.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_tr_compat SameMinorVersion)
else()
  set(_tr_compat SameMajorVersion)
endif()
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/toolregistryConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY ${_tr_compat})
install(FILES
    "${PROJECT_BINARY_DIR}/toolregistryConfig.cmake"
    "${PROJECT_BINARY_DIR}/toolregistryConfigVersion.cmake"
  DESTINATION "${_tr_cmake_dir}")

# pkg-config: prefix is computed from the .pc file's own directory, so this one moves too.
set(_tr_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  message(FATAL_ERROR "toolregistry: CMAKE_INSTALL_LIBDIR and CMAKE_INSTALL_INCLUDEDIR must be relative")
endif()
file(RELATIVE_PATH _tr_pc_to_prefix "/prefix/${_tr_pc_dir}" "/prefix")
string(REGEX REPLACE "/$" "" _tr_pc_to_prefix "${_tr_pc_to_prefix}")
set(TOOLREGISTRY_PC_PREFIX "\${pcfiledir}/${_tr_pc_to_prefix}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/toolregistry.pc.in"
               "${PROJECT_BINARY_DIR}/toolregistry.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/toolregistry.pc" DESTINATION "${_tr_pc_dir}")
