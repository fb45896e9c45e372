# Run with cmake -P by the compile_fail.<name>.fail tests: compile TARGET's SOURCE, and pass only
# if the compilation FAILS and its output matches the regex stored in REGEX_FILE.
#
# DIRECT=ON: run the compile command of TARGET's object from BUILD_DIR/compile_commands.json
# (exactly what the build would run), without a build tool, so that several of these tests can
# run at once. DIRECT=OFF: build TARGET with `cmake --build` (the tests then hold a lock).
file(READ ${REGEX_FILE} regex)

if(DIRECT)
  set(database ${BUILD_DIR}/compile_commands.json)
  if(NOT EXISTS ${database})
    message(FATAL_ERROR "compile-fail: ${database} is missing; re-run CMake to write it")
  endif()
  file(READ ${database} json)
  string(JSON count LENGTH "${json}")
  set(command "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON file GET "${json}" ${i} file)
      string(JSON line GET "${json}" ${i} command)
      # The source is compiled by two targets; TARGET's object is in a folder of its own.
      if(file STREQUAL SOURCE AND line MATCHES " -o ([^ ]*/${TARGET}\\.dir/[^ ]*)")
        set(object ${CMAKE_MATCH_1})
        set(command "${line}")
        string(JSON directory GET "${json}" ${i} directory)
        break()
      endif()
    endforeach()
  endif()
  if(command STREQUAL "")
    message(FATAL_ERROR "compile-fail: no compile command for ${TARGET} (${SOURCE}) in "
                        "${database}; re-run CMake to write it")
  endif()
  # Should it compile, the compiler writes the object where the build would: make its folder, as
  # the build tool does.
  if(NOT IS_ABSOLUTE "${object}")
    set(object ${directory}/${object})
  endif()
  get_filename_component(object_dir ${object} DIRECTORY)
  file(MAKE_DIRECTORY ${object_dir})
  separate_arguments(argv UNIX_COMMAND "${command}")
  execute_process(
    COMMAND ${argv}
    WORKING_DIRECTORY ${directory}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)  # same variable: stdout and stderr merged in order
else()
  execute_process(
    COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)
endif()

if(result EQUAL 0)
  message(FATAL_ERROR "compile-fail: ${TARGET} compiled, but it must not "
                      "(expected an error matching: ${regex})")
endif()
if(NOT output MATCHES "${regex}")
  message("${output}")  # the compiler's output verbatim, for the reader
  message(FATAL_ERROR "compile-fail: ${TARGET} failed to compile as required, but the "
                      "output above does not match the expected regex: ${regex}")
endif()
if(FIRST_ERROR)
  # The first line that reports an error (g++: "...: error: ...", clang++: "...: error: ...").
  string(REGEX MATCH "[^\n]*error:[^\n]*" first_error "${output}")
  if(NOT first_error MATCHES "${regex}")
    message("${output}")
    message(FATAL_ERROR "compile-fail: ${TARGET}'s first error is not the expected one "
                        "(${regex}): ${first_error}")
  endif()
endif()
message(STATUS "compile-fail: ${TARGET} failed with the expected message (${regex})")
