# Driver of the consumer.* tests (registered by CMakeLists.txt here): builds and runs a small
# program that uses etad by one ROUTE, in a fresh WORK_DIR, with the compiler of the enclosing
# build (CXX). Run as `cmake -DROUTE=<route> -D... -P run_consumer.cmake`. Routes:
#   install            fresh `cmake --install` of ETAD_BINARY_DIR into PREFIX, and its contents
#   include_path       the compiler alone: -std=c++20 -I <etad>/include
#   find_package       find_package/CMakeLists.txt against PREFIX
#   add_subdirectory   add_subdirectory/CMakeLists.txt with external/etad -> the source tree
#   fetchcontent       fetchcontent/CMakeLists.txt, FetchContent with SOURCE_DIR, likewise
#   pkg_config         the compiler with `pkg-config --cflags etad`, PKG_CONFIG_PATH in PREFIX
#   conan_test_package the Conan test_package's CMake project against PREFIX (no Conan)
#   docs_in_sync       docs/consuming.md quotes the consumers' files verbatim
# Inputs (-D): ROUTE ETAD_SOURCE_DIR ETAD_BINARY_DIR ETAD_VERSION WORK_DIR PREFIX CXX GENERATOR
#   MAKE_PROGRAM, and optionally BOOST_DIR, BOOST_INCLUDE_DIRS (not implicit to CXX), PKG_CONFIG.
cmake_minimum_required(VERSION 3.25)

set(consumers_dir ${CMAKE_CURRENT_LIST_DIR})
# What main.cpp prints: f(x, y) = x sin y at (2, 0.5), then df/dx = sin 0.5, df/dy = 2 cos 0.5.
set(expected_output "^0\\.958851 0\\.479426 1\\.75517\n$")

# run(<what> COMMAND <command...>): runs it in WORK_DIR, prints the command, fails with its
# output; the output is left in run_output.
function(run what)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" COMMAND)
  list(JOIN arg_COMMAND " " shown)
  message(STATUS "${what}: ${shown}")
  execute_process(COMMAND ${arg_COMMAND} WORKING_DIRECTORY ${WORK_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${shown}\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

function(run_app exe)
  run("run" COMMAND ${exe})
  if(NOT run_output MATCHES "${expected_output}")
    message(FATAL_ERROR "${exe} printed\n${run_output}\nexpected a match of ${expected_output}")
  endif()
  message(STATUS "output: ${run_output}")
endfunction()

# The directories in -I flags for Boost, when the compiler does not search them already.
set(boost_flags "")
foreach(dir IN LISTS BOOST_INCLUDE_DIRS)
  list(APPEND boost_flags "-I${dir}")
endforeach()

# stage(<files...>): copies the consumer's files into WORK_DIR/src; external/etad links to etad.
function(stage)
  file(COPY ${ARGN} DESTINATION ${WORK_DIR}/src)
  file(MAKE_DIRECTORY ${WORK_DIR}/src/external)
  file(CREATE_LINK ${ETAD_SOURCE_DIR} ${WORK_DIR}/src/external/etad SYMBOLIC)
endfunction()

# cmake_consumer(<executable> <configure args...>): configures WORK_DIR/src into WORK_DIR/build
# with the enclosing build's generator and compiler and no build type, builds, runs.
function(cmake_consumer exe)
  set(args -S ${WORK_DIR}/src -B ${WORK_DIR}/build -G ${GENERATOR}
           -DCMAKE_CXX_COMPILER=${CXX} ${ARGN})
  if(MAKE_PROGRAM)
    list(APPEND args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
  endif()
  if(BOOST_DIR)
    list(APPEND args -DBoost_DIR=${BOOST_DIR})
  endif()
  run("configure" COMMAND ${CMAKE_COMMAND} ${args})
  set(configure_output "${run_output}" PARENT_SCOPE)
  run("build" COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
  run_app(${WORK_DIR}/build/${exe})
endfunction()

# Checks of the version file's answers to find_package(etad <requested>).
function(expect_version_compatible requested expected)
  set(PACKAGE_FIND_NAME etad)
  set(PACKAGE_FIND_VERSION ${requested})
  string(REPLACE "." ";" parts "${requested}")
  list(LENGTH parts PACKAGE_FIND_VERSION_COUNT)
  list(APPEND parts 0 0 0)
  list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
  list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
  set(PACKAGE_VERSION_COMPATIBLE "")
  include(${PREFIX}/share/cmake/etad/etadConfigVersion.cmake)
  if(NOT "${PACKAGE_VERSION_COMPATIBLE}" STREQUAL "${expected}")
    message(FATAL_ERROR "find_package(etad ${requested}) with etad ${PACKAGE_VERSION} installed: "
                        "compatible is '${PACKAGE_VERSION_COMPATIBLE}', expected '${expected}'")
  endif()
endfunction()

unset(ENV{CMAKE_BUILD_TYPE})  # (CMake >= 3.22 would take it as the consumers' build type)
if(NOT ROUTE STREQUAL "install")
  file(REMOVE_RECURSE ${WORK_DIR})
endif()
file(MAKE_DIRECTORY ${WORK_DIR})

if(ROUTE STREQUAL "install")
  file(REMOVE_RECURSE ${PREFIX})
  run("install" COMMAND ${CMAKE_COMMAND} --install ${ETAD_BINARY_DIR} --prefix ${PREFIX})

  foreach(file include/etad/etad.hpp share/cmake/etad/etadConfig.cmake
               share/cmake/etad/etadConfigVersion.cmake share/cmake/etad/etadTargets.cmake
               share/pkgconfig/etad.pc share/doc/etad/LICENSE)
    if(NOT EXISTS ${PREFIX}/${file})
      message(FATAL_ERROR "the install has no ${file}")
    endif()
  endforeach()
  # Every header, and nothing architecture dependent (header-only: nothing under lib*/).
  file(GLOB_RECURSE source_headers RELATIVE ${ETAD_SOURCE_DIR}/include ${ETAD_SOURCE_DIR}/include/*)
  file(GLOB_RECURSE installed_headers RELATIVE ${PREFIX}/include ${PREFIX}/include/*)
  if(NOT source_headers STREQUAL installed_headers)
    message(FATAL_ERROR "installed headers differ from include/:\n"
                        "source:    ${source_headers}\ninstalled: ${installed_headers}")
  endif()
  file(GLOB arch_dirs ${PREFIX}/lib*)
  if(arch_dirs)
    message(FATAL_ERROR "a header-only install put something in ${arch_dirs}")
  endif()

  # SameMinorVersion (see the top-level CMakeLists.txt): same major.minor, at least as new.
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${ETAD_VERSION}")
  set(major ${CMAKE_MATCH_1})
  set(minor ${CMAKE_MATCH_2})
  math(EXPR next_major "${major} + 1")
  math(EXPR next_minor "${minor} + 1")
  expect_version_compatible(${major}.${minor} TRUE)
  expect_version_compatible(${ETAD_VERSION} TRUE)
  expect_version_compatible(${major}.${next_minor} FALSE)
  expect_version_compatible(${next_major}.0 FALSE)
  if(minor GREATER 0)
    math(EXPR previous_minor "${minor} - 1")
    expect_version_compatible(${major}.${previous_minor} FALSE)
  endif()

  # etad.pc names the prefix installed to, not the one of the configure step.
  file(STRINGS ${PREFIX}/share/pkgconfig/etad.pc pc_prefix REGEX "^prefix=")
  if(NOT pc_prefix STREQUAL "prefix=${PREFIX}")
    message(FATAL_ERROR "etad.pc has '${pc_prefix}', expected 'prefix=${PREFIX}'")
  endif()
  message(STATUS "installed to ${PREFIX}")

elseif(ROUTE STREQUAL "include_path")
  file(COPY ${consumers_dir}/main.cpp DESTINATION ${WORK_DIR})
  run("compile" COMMAND ${CXX} -std=c++20 -I${ETAD_SOURCE_DIR}/include ${boost_flags}
                        main.cpp -o app)
  run_app(${WORK_DIR}/app)

elseif(ROUTE STREQUAL "find_package")
  stage(${consumers_dir}/find_package/CMakeLists.txt ${consumers_dir}/main.cpp)
  cmake_consumer(app -DCMAKE_PREFIX_PATH=${PREFIX})
  # Found in the fresh prefix, not in some other installation.
  file(STRINGS ${WORK_DIR}/build/CMakeCache.txt etad_dir REGEX "^etad_DIR:")
  if(NOT etad_dir MATCHES ":PATH=${PREFIX}/share/cmake/etad$")
    message(FATAL_ERROR "found etad elsewhere: ${etad_dir}")
  endif()

elseif(ROUTE STREQUAL "add_subdirectory" OR ROUTE STREQUAL "fetchcontent")
  stage(${consumers_dir}/${ROUTE}/CMakeLists.txt ${consumers_dir}/main.cpp
        ${consumers_dir}/parent_checks.cmake)
  cmake_consumer(app)  # the configure step runs parent_checks.cmake
  if(NOT configure_output MATCHES "etad left its parent project unaffected")
    message(FATAL_ERROR "the parent checks did not run:\n${configure_output}")
  endif()
  file(GLOB_RECURSE ctest_files ${WORK_DIR}/build/CTestTestfile.cmake)
  if(ctest_files)
    message(FATAL_ERROR "etad enabled testing in its parent: ${ctest_files}")
  endif()

elseif(ROUTE STREQUAL "pkg_config")
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "no pkg-config (tools/install-deps.sh installs it)")
  endif()
  set(ENV{PKG_CONFIG_PATH} ${PREFIX}/share/pkgconfig)
  run("modversion" COMMAND ${PKG_CONFIG} --modversion etad)
  string(STRIP "${run_output}" version)
  if(NOT version STREQUAL ETAD_VERSION)
    message(FATAL_ERROR "pkg-config --modversion etad: '${version}', expected '${ETAD_VERSION}'")
  endif()
  run("libs" COMMAND ${PKG_CONFIG} --libs etad)
  string(STRIP "${run_output}" libs)
  if(NOT libs STREQUAL "")
    message(FATAL_ERROR "pkg-config --libs etad: '${libs}', expected nothing (header-only)")
  endif()
  run("cflags" COMMAND ${PKG_CONFIG} --cflags etad)
  string(STRIP "${run_output}" cflags)
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  if(NOT "-I${PREFIX}/include" IN_LIST cflags OR cflags MATCHES "-std=")
    message(FATAL_ERROR "pkg-config --cflags etad: '${cflags}', expected -I${PREFIX}/include "
                        "and no -std")
  endif()
  file(COPY ${consumers_dir}/main.cpp DESTINATION ${WORK_DIR})
  run("compile" COMMAND ${CXX} -std=c++20 ${cflags} ${boost_flags} main.cpp -o app)
  run_app(${WORK_DIR}/app)

elseif(ROUTE STREQUAL "conan_test_package")
  # The CMake half of `conan create`'s test: test_package/ finds etad::etad through
  # find_package, here the installed etadConfig.cmake instead of the one Conan's CMakeDeps writes.
  set(expected_output "gradient: 0\\.479426 1\\.75517\n")
  stage(${ETAD_SOURCE_DIR}/test_package/CMakeLists.txt
        ${ETAD_SOURCE_DIR}/test_package/test_package.cpp)
  cmake_consumer(test_package -DCMAKE_PREFIX_PATH=${PREFIX})

elseif(ROUTE STREQUAL "docs_in_sync")
  set(doc ${ETAD_SOURCE_DIR}/docs/consuming.md)
  if(NOT EXISTS ${doc})
    message(FATAL_ERROR "no ${doc}")
  endif()
  file(READ ${doc} doc_text)
  # Each quoted file: the lines between its "# [snippet]" and "# [/snippet]" lines (all of it
  # when it has none), the regions joined, must appear verbatim in the document.
  set(missing "")
  foreach(file ${consumers_dir}/main.cpp ${consumers_dir}/find_package/CMakeLists.txt
               ${consumers_dir}/add_subdirectory/CMakeLists.txt
               ${consumers_dir}/fetchcontent/CMakeLists.txt ${ETAD_SOURCE_DIR}/conan/profiles/debian)
    file(READ ${file} text)
    set(quote "${text}")
    string(FIND "${text}" "# [snippet]\n" begin)
    if(begin GREATER -1)
      set(quote "")
      while(begin GREATER -1)
        math(EXPR begin "${begin} + 12")  # past the marker line
        string(SUBSTRING "${text}" ${begin} -1 text)
        string(FIND "${text}" "# [/snippet]\n" end)
        if(end EQUAL -1)
          message(FATAL_ERROR "${file}: a [snippet] region without its [/snippet] line")
        endif()
        string(SUBSTRING "${text}" 0 ${end} region)
        string(APPEND quote "${region}")
        string(SUBSTRING "${text}" ${end} -1 text)
        string(FIND "${text}" "# [snippet]\n" begin)
      endwhile()
    endif()
    string(FIND "${doc_text}" "${quote}" at)
    if(at EQUAL -1)
      string(APPEND missing "\n--- ${file}:\n${quote}")
    endif()
  endforeach()
  if(missing)
    message(FATAL_ERROR "docs/consuming.md does not quote these as they are built:${missing}")
  endif()
  message(STATUS "docs/consuming.md quotes every consumer verbatim")

else()
  message(FATAL_ERROR "unknown ROUTE '${ROUTE}'")
endif()
