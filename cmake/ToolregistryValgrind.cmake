# The memory checker for the C and C++ tests: TR_VALGRIND_COMMAND is a command prefix (empty when
# valgrind is missing or TOOLREGISTRY_VALGRIND is OFF).
#
# valgrind fails a test (exit code 99) on any invalid read/write or use of uninitialised memory,
# and on "definitely" or "indirectly" lost blocks. "Possibly lost" and "still reachable" are not
# errors: Rust's std keeps a few process-lifetime allocations (thread-local storage, the stdout
# buffer) that valgrind files there. The leak_canary test proves the wiring: it leaks one string on
# purpose and passes only when valgrind fails it. It was also proved once by hand on a real
# test: dropping one tr_string_free(names) in test_basic.c (all 155 checks still passed) made
# c_test_basic fail with "13 bytes in 1 blocks are definitely lost" and exit code 99.

find_program(VALGRIND_EXECUTABLE valgrind)
option(TOOLREGISTRY_VALGRIND "Run the C and C++ tests under valgrind" ON)
if(TOOLREGISTRY_VALGRIND AND NOT VALGRIND_EXECUTABLE)
  # Fail loudly rather than silently run the tests without their memory checker.
  message(FATAL_ERROR "toolregistry: valgrind not found; install it (apt-get install valgrind) or "
                      "configure with -DTOOLREGISTRY_VALGRIND=OFF")
endif()
set(TR_VALGRIND_ERROR_CODE 99)
# Clang writes DWARF 5 by default, which valgrind before 3.20 cannot read ("Possibly corrupted
# debuginfo file", and every test under it fails): give valgrind DWARF 4 in the programs it runs.
if(TOOLREGISTRY_VALGRIND AND VALGRIND_EXECUTABLE AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  add_compile_options(-gdwarf-4)
endif()
# No --track-origins: it finds no more errors, it only says where an uninitialised value came
# from, and it makes every run slower (the C++ tests 31.8 s against 19.9 s here). To see the
# origin of a reported use, run the failing test again with it by hand.
set(TR_VALGRIND_COMMAND)
if(TOOLREGISTRY_VALGRIND AND VALGRIND_EXECUTABLE)
  set(TR_VALGRIND_COMMAND "${VALGRIND_EXECUTABLE}" --quiet --leak-check=full
      --errors-for-leak-kinds=definite,indirect --error-exitcode=${TR_VALGRIND_ERROR_CODE}
      --fair-sched=yes)
endif()

