#!/usr/bin/env bash
# A/B timing of etad's static gradient against another version of its headers, in ONE program
# (as tools/ab_bench.sh does for the tape): bench/ab/ab_static.cpp is compiled against the
# headers of REV ("base") and against the work tree's include/ ("work"), with etad's namespace
# renamed in each, and Google Benchmark interleaves the two sides' repetitions, so that a busy
# shared machine slows both alike. Prints, per problem and side, the medians of handwritten and
# etad_static and their ratio, then work/base of etad_static: the hand-written rows are the same
# code on both sides, so their base/work is the run's own noise (A/A). Both sides compile the work
# tree's bench files, so REV's headers must have every API those use.
# Usage: tools/ab_static.sh REV [REGEX] [REPETITIONS] [COMPILER]
#   tools/ab_static.sh HEAD . 30 clang++
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rev=${1:?usage: tools/ab_static.sh REV [REGEX] [REPETITIONS] [COMPILER]}
filter=${2:-.}
reps=${3:-20}
cxx=${4:-g++}
if (( reps < 2 )); then
  echo "ab_static.sh: REPETITIONS must be at least 2 (the table is of medians)" >&2
  exit 2
fi

out=build/ab-static/$(basename "$cxx")
rm -rf "$out/base"
mkdir -p "$out/base"
git archive "$rev" include | tar -x -C "$out/base"

flags=(-std=c++20 -O3 -march=native -DNDEBUG)
compile() {  # <side> <include dir>
  "$cxx" "${flags[@]}" -I"$2" -Detad=etad_"$1" -Detad_bench=etad_bench_"$1" \
    -Dtape_bench=tape_bench_"$1" -DETAD_AB_SIDE="\"$1\"" -c bench/ab/ab_static.cpp -o "$out/$1.o"
}
compile base "$out/base/include" &
base_pid=$!
compile work "$root/include" &
work_pid=$!
trap 'kill "$base_pid" "$work_pid" 2>/dev/null || true' EXIT  # one failed compile stops both
wait "$base_pid"
wait "$work_pid"
trap - EXIT
"$cxx" "$out/base.o" "$out/work.o" -o "$out/ab_static" -lbenchmark_main -lbenchmark -lpthread

"$out/ab_static" --benchmark_filter="$filter" --benchmark_repetitions="$reps" \
  --benchmark_enable_random_interleaving=true --benchmark_min_time=0.05 \
  --benchmark_display_aggregates_only=true \
  --benchmark_out="$out/ab.json" --benchmark_out_format=json >/dev/null
python3 - "$out/ab.json" "$cxx" <<'PY'
import json, sys
med = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    problem, rest = b["run_name"].split(":", 1)
    impl, side = rest.split("@")
    side, _, size = side.partition("/")
    name = problem + ("/" + size if size else "")
    med.setdefault(name, {})[(impl, side)] = b["cpu_time"]
print(f"{sys.argv[2]}, medians (ns)\n")
print("| problem | hand-written: base | work | etad_static: base | work | "
      "etad/hand: base | work | etad work/base |\n|---|---:|---:|---:|---:|---:|---:|---:|")
for name, t in med.items():
    hb, hw = t.get(("handwritten", "base")), t.get(("handwritten", "work"))
    eb, ew = t.get(("etad_static", "base")), t.get(("etad_static", "work"))
    cell = lambda v: f"{v:.2f}" if v else ""
    ratio = lambda a, b: f"{a / b:.3f}" if a and b else ""
    print(f"| {name} | {cell(hb)} | {cell(hw)} | {cell(eb)} | {cell(ew)} | {ratio(eb, hb)} | "
          f"{ratio(ew, hw)} | {ratio(ew, eb)} |")
PY
