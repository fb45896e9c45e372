# Checks for the subproject consumers (add_subdirectory, FetchContent): pulling etad in must not
# change anything of its parent's. Call etad_snapshot_parent() before adding etad and
# etad_check_parent_unaffected(<etad source dir>) after; any difference is a FATAL_ERROR.
# (That etad does not call enable_testing() is checked by the test driver after generation:
# the consumer's build tree must hold no CTestTestfile.cmake.)

# Settings a subproject could leak into its parent: through the cache (set(... CACHE ... FORCE)
# changes the value a parent without its own binding sees) or through PARENT_SCOPE.
set(_etad_watched
  CMAKE_BUILD_TYPE CMAKE_CONFIGURATION_TYPES
  CMAKE_CXX_FLAGS CMAKE_CXX_FLAGS_DEBUG CMAKE_CXX_FLAGS_RELEASE CMAKE_CXX_FLAGS_RELWITHDEBINFO
  CMAKE_CXX_STANDARD CMAKE_CXX_STANDARD_REQUIRED CMAKE_CXX_EXTENSIONS
  CMAKE_EXE_LINKER_FLAGS CMAKE_SHARED_LINKER_FLAGS CMAKE_POSITION_INDEPENDENT_CODE
  CMAKE_INTERPROCEDURAL_OPTIMIZATION CMAKE_MODULE_PATH CMAKE_PREFIX_PATH CMAKE_INSTALL_PREFIX
  CMAKE_EXPORT_COMPILE_COMMANDS CMAKE_RUNTIME_OUTPUT_DIRECTORY BUILD_SHARED_LIBS BUILD_TESTING)

macro(etad_snapshot_parent)
  foreach(_etad_var IN LISTS _etad_watched)
    set(_etad_before_${_etad_var} "${${_etad_var}}")
    set(_etad_before_cache_${_etad_var} "$CACHE{${_etad_var}}")
  endforeach()
  get_directory_property(_etad_before_options COMPILE_OPTIONS)
  get_directory_property(_etad_before_definitions COMPILE_DEFINITIONS)
endmacro()

function(etad_check_parent_unaffected etad_dir)
  set(problems "")
  foreach(var IN LISTS _etad_watched)
    if(NOT "${${var}}" STREQUAL "${_etad_before_${var}}")
      string(APPEND problems "\n  ${var}: '${_etad_before_${var}}' -> '${${var}}'")
    endif()
    if(NOT "$CACHE{${var}}" STREQUAL "${_etad_before_cache_${var}}")
      string(APPEND problems
        "\n  ${var} (cache): '${_etad_before_cache_${var}}' -> '$CACHE{${var}}'")
    endif()
  endforeach()
  get_directory_property(options COMPILE_OPTIONS)
  get_directory_property(definitions COMPILE_DEFINITIONS)
  if(NOT "${options}" STREQUAL "${_etad_before_options}"
     OR NOT "${definitions}" STREQUAL "${_etad_before_definitions}")
    string(APPEND problems "\n  the parent's compile options or definitions changed")
  endif()

  # As a subproject etad builds its library target and nothing else.
  foreach(target etad_tests etad_bench etad_warnings etad_header_check)
    if(TARGET ${target})
      string(APPEND problems "\n  target ${target} exists")
    endif()
  endforeach()
  get_property(targets DIRECTORY ${etad_dir} PROPERTY BUILDSYSTEM_TARGETS)
  if(NOT targets STREQUAL "etad")
    string(APPEND problems "\n  etad's directory defines the targets '${targets}', not just 'etad'")
  endif()
  get_property(subdirectories DIRECTORY ${etad_dir} PROPERTY SUBDIRECTORIES)
  if(subdirectories)
    string(APPEND problems "\n  etad added the subdirectories ${subdirectories}")
  endif()
  foreach(option ETAD_BUILD_TESTS ETAD_BUILD_BENCHMARKS ETAD_INSTALL)
    if(${option})
      string(APPEND problems "\n  ${option} defaults to ON in a subproject")
    endif()
  endforeach()

  if(problems)
    message(FATAL_ERROR "etad, added as a subproject, changed its parent:${problems}")
  endif()
  message(STATUS "etad left its parent project unaffected")
endfunction()
