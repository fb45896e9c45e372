#!/usr/bin/env python3
"""Print a Markdown table of ratios from Google Benchmark JSON output.

Benchmark names follow `<problem>:<implementation>[/size]`, e.g. `chain:handwritten/1000` or
`poly:etad_static` (Google Benchmark appends `->Arg(n)` to the name as `/n`). The table has one
row per problem and size and one column per implementation; each cell holds the CPU time in ns
and its ratio to the `handwritten` and to the `value` implementation of the same row.

Usage: bench_table.py [--time cpu|real] FILE.json [FILE.json ...]   (FILE `-` reads stdin)
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict

TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
BASELINES = ("handwritten", "value")  # ratio columns, and the first columns of the table


def load(paths):
    """Yield the benchmark entries of every input file."""
    for path in paths:
        if path == "-":
            data = json.load(sys.stdin)
        else:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        yield from data.get("benchmarks", [])


def collect(entries, field):
    """Map (problem, size) -> implementation -> time in ns.

    With --benchmark_repetitions the median aggregate is used; otherwise the mean of the
    iteration runs of that name."""
    runs = defaultdict(list)    # run name -> [ns] of plain runs
    medians = {}                # run name -> ns of the median aggregate
    for e in entries:
        if e.get("error_occurred"):
            continue
        name = e.get("run_name", e["name"])
        ns = e[field] * TO_NS[e.get("time_unit", "ns")]
        if e.get("run_type") == "aggregate":
            if e.get("aggregate_name") == "median":
                medians[name] = ns
        else:
            runs[name].append(ns)

    table = defaultdict(dict)
    for name in dict.fromkeys([*runs, *medians]):  # in order of appearance
        head, _, size = name.partition("/")
        problem, sep, impl = head.partition(":")
        if not sep:  # not <problem>:<implementation>; keep it visible anyway
            problem, impl = head, "?"
        if name in medians:
            table[(problem, size)][impl] = medians[name]
        else:
            table[(problem, size)][impl] = statistics.fmean(runs[name])
    return table


def fmt_ns(ns):
    return f"{ns:.3g}" if ns < 100 else f"{ns:,.0f}"


def fmt_ratio(ns, base):
    return f"{ns / base:.2f}×" if base else "–"


def render(table, field):
    # Baselines first, then the other implementations in order of first appearance.
    seen = list(dict.fromkeys(impl for row in table.values() for impl in row))
    impls = [b for b in BASELINES if b in seen] + [i for i in seen if i not in BASELINES]
    out = [f"Each cell: {field} time in ns (ratio to handwritten / ratio to value).", "",
           "| problem | size | " + " | ".join(impls) + " |",
           "|---|---:|" + "---:|" * len(impls)]
    for (problem, size) in table:  # rows in the order the benchmarks ran
        row = table[(problem, size)]
        cells = []
        for impl in impls:
            ns = row.get(impl)
            if ns is None:
                cells.append("")
                continue
            ratios = " / ".join(fmt_ratio(ns, row.get(b)) for b in BASELINES)
            cells.append(f"{fmt_ns(ns)} ({ratios})")
        out.append(f"| {problem} | {size or '–'} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="Google Benchmark JSON output (- for stdin)")
    parser.add_argument("--time", choices=("cpu", "real"), default="cpu",
                        help="which time to report and divide (default: cpu)")
    args = parser.parse_args()
    table = collect(load(args.files), f"{args.time}_time")
    if not table:
        print("bench_table.py: no benchmark results found", file=sys.stderr)
        return 1
    print(render(table, args.time))
    return 0


if __name__ == "__main__":
    sys.exit(main())
