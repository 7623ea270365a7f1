# cmake -DSRC=<cargo's library> -DDST=<copy> [-DOBJCOPY=<objcopy>] -P SplitDebug.cmake
#
# Copies the library cargo built to DST, as it is shipped: with OBJCOPY, stripped of its debug
# info, which goes to DST.debug beside it, linked by a .gnu_debuglink section (the name and a
# CRC of DST.debug), where gdb, valgrind and perf look for it. Without OBJCOPY, a plain copy.
# Does nothing when DST is already newer than SRC, so programs linked to DST are not relinked
# needlessly. Works for the shared library and, without the link, for the static archive.
if(EXISTS "${DST}" AND NOT "${SRC}" IS_NEWER_THAN "${DST}")
  return()
endif()
get_filename_component(name "${DST}" NAME)
set(tmp "${DST}.tmp")
if(OBJCOPY)
  if(name MATCHES "\\.a$")
    # An archive keeps no debug link: its objects end up in the user's program.
    execute_process(COMMAND "${OBJCOPY}" --strip-debug "${SRC}" "${tmp}" RESULT_VARIABLE rc)
  else()
    # The debug file first: --add-gnu-debuglink records its name and checksum.
    execute_process(COMMAND "${OBJCOPY}" --only-keep-debug "${SRC}" "${DST}.debug" RESULT_VARIABLE rc)
    if(rc EQUAL 0)
      execute_process(COMMAND "${OBJCOPY}" --strip-debug "--add-gnu-debuglink=${DST}.debug"
                              "${SRC}" "${tmp}" RESULT_VARIABLE rc)
    endif()
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "toolregistry: ${OBJCOPY} failed (${rc}) on ${SRC}")
  endif()
else()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${SRC}" "${tmp}")
  file(REMOVE "${DST}.debug")
endif()
file(RENAME "${tmp}" "${DST}")
