# cmake -DCOMMAND=<valgrind|args|program> -DERROR_CODE=<n> -P ExpectLeak.cmake
#
# Runs a program that leaks on purpose under the C tests' valgrind command and passes only if
# valgrind failed it with ERROR_CODE and reported a definite leak: the memory checker is wired up
# and would fail a real test that leaked.
string(REPLACE "|" ";" COMMAND "${COMMAND}")
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL ERROR_CODE)
  message(FATAL_ERROR "expected valgrind to exit with ${ERROR_CODE} on a deliberate leak, got ${rc}")
endif()
if(NOT err MATCHES "are definitely lost")
  message(FATAL_ERROR "valgrind did not report the deliberate leak as definitely lost")
endif()
message("OK: valgrind failed the deliberately leaking program (exit ${rc})")
