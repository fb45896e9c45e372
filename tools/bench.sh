#!/usr/bin/env bash
# Build etad's benchmarks in Release, run them, and print the table of ratios.
# Usage: tools/bench.sh [Google Benchmark options, e.g. --benchmark_filter=chain]
# (By default 10 interleaved repetitions of each benchmark, and the table of their medians; see
# below.)
# (Output: build/release/bench.json, plus build/release/bench-adolc-*.json, one per ADOL-C run.)
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh --bench
cmake --workflow --preset bench

bench=build/release/bench/etad_bench
if [[ ! -x $bench ]]; then
  echo "bench.sh: no $bench (are there any bench/*.cpp files?)" >&2
  exit 1
fi
# The benchmarks run in build/release/bench-run, next to a .adolcrc: ADOL-C (a peer) reads its
# buffer sizes from the working directory and, past them, writes its tapes to files.
run_dir=build/release/bench-run
mkdir -p "$run_dir"
tools/write_adolcrc.sh "$run_dir"
root=$PWD
json=build/release/bench.json

# The user's --benchmark_filter (if any) selects; the other options go to every run.
filter=.
options=()
repetitions_given=false
for arg in "$@"; do
  case "$arg" in
    --benchmark_filter=*) filter=${arg#--benchmark_filter=} ;;
    --benchmark_repetitions=*) repetitions_given=true; options+=("$arg") ;;
    *) options+=("$arg") ;;
  esac
done
# Unless told otherwise, every benchmark runs 10 times for 50 ms, the repetitions of all of them
# interleaved in random order, and the table shows medians: on a shared host one run of each
# moved the size-10 rows by up to 1.6x, and a busy spell then lands on one row only.
# (--benchmark_repetitions=1 gives the old single run; either takes 2.5-3 minutes here.)
if ! $repetitions_given; then
  options=(--benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
           --benchmark_min_time=0.05 --benchmark_display_aggregates_only=true "${options[@]}")
fi
mapfile -t selected < <("$bench" --benchmark_list_tests --benchmark_filter="$filter")
# ADOL-C never shrinks its store of locations: after a large tape, every later tape of the same
# process pays for the largest one (sum/10 costs 10x more after sum/10000). So each adolc
# benchmark runs in a process of its own, and all the others in one.
others=() adolc=()
for name in "${selected[@]}"; do
  if [[ $name == *:adolc/* || $name == *:adolc ]]; then adolc+=("$name"); else others+=("$name"); fi
done
exact() {  # a filter matching exactly the given benchmark names
  local IFS='|'
  echo "^($*)\$"
}

rm -f build/release/bench-adolc-*.json
files=()
# Console output shows progress; the JSON files feed the table.
if (( ${#others[@]} > 0 )); then
  (cd "$run_dir" && "$root/$bench" --benchmark_filter="$(exact "${others[@]}")" \
    --benchmark_out="$root/$json" --benchmark_out_format=json "${options[@]}")
  files+=("$json")
fi
for i in "${!adolc[@]}"; do
  out=build/release/bench-adolc-$i.json
  (cd "$run_dir" && "$root/$bench" --benchmark_filter="$(exact "${adolc[$i]}")" \
    --benchmark_out="$root/$out" --benchmark_out_format=json "${options[@]}") 2>&1 |
    { grep -v -e '^\*\*\*' -e '^Found ' -e 'adolcrc found' -e '^$' || true; }  # ADOL-C's banner
  files+=("$out")
done
echo
tools/bench_table.py "${files[@]}"
