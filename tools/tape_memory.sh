#!/usr/bin/env bash
# Build tools/tape_memory.cpp (the tape benchmarks' memory table, and a driver for profilers)
# with the benchmarks' flags and run it from build/tools, next to the .adolcrc it needs.
# Usage: tools/tape_memory.sh                                   the Markdown table
#        tools/tape_memory.sh run PROBLEM IMPL SIZE ITERATIONS  one implementation, for profiling
#        TAPE_MEMORY_WRAP="valgrind --tool=callgrind --dump-instr=yes" TAPE_MEMORY_MARCH=x86-64-v3 \
#          tools/tape_memory.sh run ...     (valgrind 3.19 cannot run AVX-512: build for AVX2 then)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=build/tools
mkdir -p "$out"

march=${TAPE_MEMORY_MARCH:-native}
exe=$out/tape_memory-$march
flags=(-std=c++20 -O3 -march="$march" -DNDEBUG -g -Wall -Wextra -Wpedantic -Werror -Iinclude)
libs=()
if [[ -f /usr/include/adolc/adolc.h ]]; then  # the same optional peer as bench/CMakeLists.txt
  flags+=(-DETAD_BENCH_HAVE_ADOLC=1)
  libs+=(-ladolc)
fi
sacado_config=/usr/include/trilinos/Sacado_config.h
if [[ -f $sacado_config ]]; then  # the config the benchmarks use (bench/sacado_config.cmake)
  mkdir -p "$out/sacado_config"
  cmake -DINPUT="$sacado_config" -DOUTPUT_DIR="$out/sacado_config" -P bench/sacado_config.cmake
  flags+=(-DETAD_BENCH_HAVE_SACADO=1 -isystem "$out/sacado_config" -isystem /usr/include/trilinos)
  libs+=(-ltrilinos_sacado)
fi
if [[ ! -x $exe || -n $(find tools/tape_memory.cpp tools/tape_memory.sh bench/sacado_config.cmake bench/problems include -newer "$exe" -print -quit) ]]; then
  g++ "${flags[@]}" tools/tape_memory.cpp -o "$exe" "${libs[@]}"
fi

tools/write_adolcrc.sh "$out"
cd "$out"
# ADOL-C prints what it read from .adolcrc (on stderr, at load); keep the output clean.
${TAPE_MEMORY_WRAP:-} "$root/$exe" "$@" 2>&1 |
  { grep -v -e '^\*\*\*' -e '^Found ' -e 'adolcrc found' -e '^$' || true; }
