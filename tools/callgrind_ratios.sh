#!/usr/bin/env bash
# Instruction counts per gradient (valgrind --tool=callgrind) for the static benchmark problems,
# and the ratios etad_static/handwritten and handwritten/value: the stable complement of the
# timings on a noisy machine.
#
# Usage: tools/callgrind_ratios.sh [--cxx COMPILER]... [--iterations N] [--include DIR]
#   --cxx         compiler to build the driver with; repeatable (default: g++ and clang++)
#   --iterations  gradients per measured run (default 100000)
#   --include     etad include directory (default: include/ of this checkout), e.g. to measure a
#                 patched copy of the headers
# Environment: CXXFLAGS_CALLGRIND (default "-O3 -march=x86-64-v3 -DNDEBUG"). Not -march=native:
# valgrind 3.19 cannot run AVX-512 code, which -march=native emits on AVX-512 machines.
#
# Each (problem, implementation) runs twice, with N and with 0 iterations; the difference divided
# by N cancels start-up, the correctness check and I/O. What remains per gradient includes the
# driver's loop (about 5 instructions: index update, result sink). The callgrind output of every
# run is kept in build/callgrind/<compiler>/ for callgrind_annotate (built with --dump-instr=yes).
set -euo pipefail
cd "$(dirname "$0")/.."

compilers=()
iterations=100000
include_dir=$PWD/include
while (( $# )); do
  case "$1" in
    --cxx) compilers+=("$2"); shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --include) include_dir=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "callgrind_ratios.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
(( ${#compilers[@]} )) || compilers=(g++ clang++)
flags=${CXXFLAGS_CALLGRIND:--O3 -march=x86-64-v3 -DNDEBUG}
command -v valgrind >/dev/null || { echo "callgrind_ratios.sh: valgrind not found (apt install valgrind)" >&2; exit 1; }

problems=(trig3 chain20 poly10)
impls=(value handwritten etad_static)

# Total instructions of one run, from the callgrind output's "totals:" line.
instructions() {  # <driver> <out file> <problem> <impl> <iterations>
  valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$2" "$1" "$3" "$4" "$5" \
    >/dev/null 2>&1 || { echo "callgrind_ratios.sh: '$1 $3 $4 $5' failed under valgrind" >&2; exit 1; }
  awk '/^totals:/ { print $2; exit }' "$2"
}

for cxx in "${compilers[@]}"; do
  out=build/callgrind/$(basename "$cxx")
  mkdir -p "$out"
  # shellcheck disable=SC2086  # $flags is a list of flags
  "$cxx" -std=c++20 $flags -I"$include_dir" bench/callgrind/static_driver.cpp -o "$out/static_driver"

  echo "### $("$cxx" --version | head -n1), $flags"
  echo
  echo "Instructions per call ($iterations calls, minus a 0-call baseline; headers: ${include_dir#"$PWD"/})."
  echo
  echo "| problem | value | handwritten | etad_static | etad_static / handwritten | handwritten / value |"
  echo "|---|---:|---:|---:|---:|---:|"
  for problem in "${problems[@]}"; do
    declare -A per=()
    for impl in "${impls[@]}"; do
      base=$(instructions "$out/static_driver" "$out/$problem-$impl-0.out" "$problem" "$impl" 0)
      full=$(instructions "$out/static_driver" "$out/$problem-$impl.out" "$problem" "$impl" "$iterations")
      per[$impl]=$(awk -v a="$full" -v b="$base" -v n="$iterations" 'BEGIN { printf "%.1f", (a - b) / n }')
    done
    awk -v p="$problem" -v v="${per[value]}" -v h="${per[handwritten]}" -v e="${per[etad_static]}" \
      'BEGIN { printf "| %s | %s | %s | %s | %.2f× | %.2f× |\n", p, v, h, e, e / h, h / v }'
    unset per
  done
  echo
done
