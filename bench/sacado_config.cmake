# Writes OUTPUT_DIR/Sacado_config.h: Debian's Sacado_config.h (INPUT) without its
# HAVE_SACADO_KOKKOS* and HAVE_SACADO_TEUCHOS* defines, which claim support whose headers are not
# installed. Put OUTPUT_DIR ahead of the Trilinos folder: Sacado includes it as
# <Sacado_config.h>, so include-path order decides. The file is rewritten only when its content
# changes (no needless rebuild). Included by bench/CMakeLists.txt, and run with
# `cmake -DINPUT=... -DOUTPUT_DIR=... -P` by tools/tape_memory.sh.
function(etad_write_sacado_config input output_dir)
  file(READ ${input} sacado_config)
  string(REGEX REPLACE "#[ \t]*define[ \t]+HAVE_SACADO_(KOKKOS|TEUCHOS)[A-Za-z0-9_]*"
         "/* removed by etad's bench/sacado_config.cmake */" sacado_config "${sacado_config}")
  file(WRITE ${output_dir}/Sacado_config.h.tmp "${sacado_config}")
  file(COPY_FILE ${output_dir}/Sacado_config.h.tmp ${output_dir}/Sacado_config.h
       ONLY_IF_DIFFERENT)
  file(REMOVE ${output_dir}/Sacado_config.h.tmp)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED INPUT AND DEFINED OUTPUT_DIR)
  etad_write_sacado_config(${INPUT} ${OUTPUT_DIR})
endif()
