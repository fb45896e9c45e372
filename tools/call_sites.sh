#!/usr/bin/env bash
# Instructions per evaluation of chain/10 on the tape (etad::call of the loop body) when the
# translation unit calls that body at one place and at three (bench/callgrind/call_sites_driver.cpp),
# with each compiler: the two columns should agree (see ETAD_PROGRAM_INLINE).
# Usage: tools/call_sites.sh [--include DIR]   (default: include/ of this checkout)
# Environment: CXXFLAGS_CALLGRIND (default "-O3 -march=x86-64-v3 -DNDEBUG"; valgrind 3.19 cannot
# run AVX-512 code).
set -euo pipefail
cd "$(dirname "$0")/.."
include_dir=$PWD/include
if [[ ${1:-} == --include ]]; then include_dir=$(cd "$2" && pwd); fi
flags=${CXXFLAGS_CALLGRIND:--O3 -march=x86-64-v3 -DNDEBUG}
command -v valgrind >/dev/null || { echo "call_sites.sh: valgrind not found (apt install valgrind)" >&2; exit 1; }
out=build/callgrind/call_sites
mkdir -p "$out"

instructions() {  # <driver> <iterations>
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$1" "$2" >/dev/null 2>&1
  awk '/^totals:/ { print $2; exit }' "$out/callgrind.out"
}

echo "| compiler | 1 place | 3 places |"
echo "|---|---:|---:|"
for cxx in g++ clang++; do
  row="| $cxx |"
  for sites in 1 3; do
    exe=$out/driver-$cxx-$sites
    # shellcheck disable=SC2086  # $flags is a list of flags
    "$cxx" -std=c++20 $flags -DETAD_CALL_SITES="$sites" -I"$include_dir" \
      bench/callgrind/call_sites_driver.cpp -o "$exe"
    a=$(instructions "$exe" 1000)
    b=$(instructions "$exe" 2000)
    row+=" $(( (b - a) / 1000 )) |"
  done
  echo "$row"
done
