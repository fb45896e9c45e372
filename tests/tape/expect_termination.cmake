# Run with cmake -P by the tape.destroyed_on_another_thread.* tests: run PROGRAM with ARG, and
# pass only if it does NOT exit normally (it ends in std::terminate) and its output matches
# REGEX (etad's message, written before terminating).
execute_process(
  COMMAND ${PROGRAM} ${ARG}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARG} exited normally, but it must end in std::terminate:\n${output}")
endif()
if(NOT output MATCHES "${REGEX}")
  message(FATAL_ERROR "${PROGRAM} ${ARG} ended (${result}), but without the expected message "
                      "'${REGEX}':\n${output}")
endif()
message(STATUS "${PROGRAM} ${ARG}: ended as required (${result}) with etad's message")
