# Run with cmake -P by the compile_fail.<name>.fail tests: build TARGET in BUILD_DIR, and pass
# only if the build FAILS and its output matches the regex stored in REGEX_FILE.
file(READ ${REGEX_FILE} regex)

execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)  # same variable: stdout and stderr merged in order

if(result EQUAL 0)
  message(FATAL_ERROR "compile-fail: ${TARGET} compiled, but it must not "
                      "(expected an error matching: ${regex})")
endif()
if(NOT output MATCHES "${regex}")
  message("${output}")  # the compiler's output verbatim, for the reader
  message(FATAL_ERROR "compile-fail: ${TARGET} failed to compile as required, but the "
                      "output above does not match the expected regex: ${regex}")
endif()
message(STATUS "compile-fail: ${TARGET} failed with the expected message (${regex})")
