#!/usr/bin/env bash
# A/B timing of etad's tape against another version of its headers, in ONE program:
# bench/ab/ab_problems.cpp is compiled against the headers of REV ("base") and against the work
# tree's include/ ("work"), with etad's namespace renamed in each, and Google Benchmark
# interleaves the two sides' repetitions, so that a busy shared machine slows both alike.
# Prints each benchmark's medians and work/base, and the same for each side's fastest
# repetition (busy spells on the host only add time, so the minima are the steadier comparison
# of code). Read the ratio with the spread of an A/A run
# (REV = HEAD with a clean tree): where the code lands in the program alone moves a 40 ns
# benchmark by a few per cent. Both sides compile the work tree's bench/problems, so REV's
# headers must have every API those use.
# Usage: tools/ab_bench.sh REV [REGEX] [REPETITIONS]   (REPETITIONS >= 2: medians and minima)
#   tools/ab_bench.sh HEAD '^(sum|chain):.*/10$' 21
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rev=${1:?usage: tools/ab_bench.sh REV [REGEX] [REPETITIONS]}
filter=${2:-.}
reps=${3:-11}
if (( reps < 2 )); then
  echo "ab_bench.sh: REPETITIONS must be at least 2 (the table is of medians)" >&2
  exit 2
fi

out=build/ab
rm -rf "$out/base"
mkdir -p "$out/base"
git archive "$rev" include | tar -x -C "$out/base"

flags=(-std=c++20 -O3 -march=native -DNDEBUG)
g++ "${flags[@]}" -I"$out/base/include" -Detad=etad_base -Dtape_bench=tape_bench_base \
    -DETAD_AB_SIDE='"base"' -c bench/ab/ab_problems.cpp -o "$out/base.o" &
base_pid=$!
g++ "${flags[@]}" -I"$root/include" -Detad=etad_work -Dtape_bench=tape_bench_work \
    -DETAD_AB_SIDE='"work"' -c bench/ab/ab_problems.cpp -o "$out/work.o" &
work_pid=$!
trap 'kill "$base_pid" "$work_pid" 2>/dev/null || true' EXIT  # one failed compile stops both
wait "$base_pid"
wait "$work_pid"
trap - EXIT
g++ "$out/base.o" "$out/work.o" -o "$out/ab_bench" -lbenchmark_main -lbenchmark -lpthread

"$out/ab_bench" --benchmark_filter="$filter" --benchmark_repetitions="$reps" \
  --benchmark_enable_random_interleaving=true --benchmark_display_aggregates_only=true \
  --benchmark_out="$out/ab.json" --benchmark_out_format=json >/dev/null
python3 - "$out/ab.json" <<'PY'
import json, sys
rows, fastest = {}, {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    problem, rest = b["run_name"].split(":", 1)
    impl, size = rest.split("/")
    name, side = impl.split("@")
    key = (problem, int(size))
    if b.get("run_type") == "iteration":
        d = fastest.setdefault(key, {})
        d[side] = min(d.get(side, float("inf")), b["cpu_time"])
    elif b.get("aggregate_name") == "median":
        rows.setdefault(key, {})[side] = b["cpu_time"]
# The fastest repetition of each side as well: the host's busy spells only add time, so where
# the medians of a noisy run disagree with the minima, the minima say more about the code.
print("| problem | size | base ns | work ns | work / base | fastest: base | work | work / base |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|")
for (problem, size), t in rows.items():
    if "base" in t and "work" in t:
        base, work = t["base"], t["work"]
        f = fastest.get((problem, size), {})
        fb, fw = f.get("base"), f.get("work")
        tail = f"{fb:.1f} | {fw:.1f} | {fw / fb:.3f}" if fb and fw else " | | "
        print(f"| {problem} | {size} | {base:.1f} | {work:.1f} | {work / base:.3f} | {tail} |")
PY
