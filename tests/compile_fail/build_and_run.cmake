# Run with cmake -P by the compile_fail.<name>.ok tests: build TARGET in BUILD_DIR, then run the
# program it makes (EXECUTABLE), which returns 0 only if it computed the right result. So the
# case's correct form is shown to compile AND to work, not only to compile.
execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message("${output}")
  message(FATAL_ERROR "compile-fail: ${TARGET} (the correct form) did not compile")
endif()
execute_process(COMMAND ${EXECUTABLE} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "compile-fail: ${TARGET} compiled, but running it gave ${result}, not 0 "
                      "(a wrong result)")
endif()
message(STATUS "compile-fail: ${TARGET} compiled and ran correctly")
