#!/usr/bin/env bash
# Build etad's benchmarks in Release, run them, and print the table of ratios.
# Usage: tools/bench.sh [Google Benchmark options, e.g. --benchmark_filter=chain]
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh --bench
cmake --workflow --preset bench

bench=build/release/bench/etad_bench
if [[ ! -x $bench ]]; then
  echo "bench.sh: no $bench (are there any bench/*.cpp files?)" >&2
  exit 1
fi
# Console output shows progress; the JSON file feeds the table.
"$bench" --benchmark_out=build/release/bench.json --benchmark_out_format=json "$@"
echo
tools/bench_table.py build/release/bench.json
