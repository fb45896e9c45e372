#!/usr/bin/env python3
"""Ratio table of the tape benchmarks (bench/tape_bench.cpp, bench/tape_peers_bench.cpp).

Reads Google Benchmark JSON like tools/bench_table.py (median aggregate when repetitions were
run, else the mean) and prints, per problem and size: the hand-written time, every etad tape
variant and every peer as a ratio to it, and how many times faster etad_tape is than each peer
(peer time / etad_tape time). Targets from the tape issue are checked in the last column:
chain/1000 etad_tape <= 2.0x hand-written; sum, prod, log_sum_exp, normal_log_density,
quadratic_form, regression at their largest size <= 1.5x; etad_tape >= 3x faster than adolc and
sacado_rad everywhere. "best" is the fastest etad variant (etad_tape, etad_tape_scalar, ...).

Usage: tape_ratios.py [--time cpu|real] FILE.json [FILE.json ...]
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict

TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
PROBLEMS = ("sum", "prod", "log_sum_exp", "normal_log_density", "chain", "quadratic_form",
            "regression", "recurrence")
ETAD = ("etad_tape", "etad_tape_matvec", "etad_tape_scalar", "etad_tape_gradients",
        "etad_static")
PEERS = ("adolc", "sacado_rad", "sacado_fad")
# (problem, size) -> the most etad_tape (or its best variant) may take, in hand-written times.
TARGETS = {("chain", "1000"): 2.0, ("sum", "10000"): 1.5, ("prod", "10000"): 1.5,
           ("log_sum_exp", "10000"): 1.5, ("normal_log_density", "10000"): 1.5,
           ("quadratic_form", "256"): 1.5, ("regression", "100"): 1.5}
PEER_SPEEDUP = 3.0


def load(paths, field):
    runs, medians = defaultdict(list), {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for e in json.load(f).get("benchmarks", []):
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
    for name in dict.fromkeys([*runs, *medians]):
        head, _, size = name.partition("/")
        problem, sep, impl = head.partition(":")
        if sep and problem in PROBLEMS:
            table[(problem, size)][impl] = medians[name] if name in medians else statistics.fmean(runs[name])
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--time", choices=("cpu", "real"), default="cpu")
    args = parser.parse_args()
    table = load(args.files, f"{args.time}_time")
    if not table:
        print("tape_ratios.py: no tape benchmark results found", file=sys.stderr)
        return 1
    seen = {impl for row in table.values() for impl in row}
    etad = [i for i in ETAD if i in seen]
    peers = [p for p in PEERS if p in seen]
    head = (["problem", "size", "handwritten ns"] + [f"{i} / hw" for i in etad + peers] +
            [f"{p} / etad_tape" for p in peers] + ["targets"])
    print(f"{args.time} time; 'x / hw' is the ratio to the hand-written gradient, "
          "'peer / etad_tape' how many times faster etad_tape is.\n")
    print("| " + " | ".join(head) + " |")
    print("|---|---:|" + "---:|" * (len(head) - 3) + "---|")
    order = {p: k for k, p in enumerate(PROBLEMS)}
    for (problem, size) in sorted(table, key=lambda ps: (order[ps[0]], int(ps[1] or 0))):
        row = table[(problem, size)]
        hw = row.get("handwritten")
        cells = [problem, size, (f"{hw:,.0f}" if hw >= 100 else f"{hw:.3g}") if hw else ""]
        for impl in etad + peers:
            cells.append(f"{row[impl] / hw:.2f}" if hw and impl in row else "")
        tape = row.get("etad_tape")
        for peer in peers:
            cells.append(f"{row[peer] / tape:.2f}" if tape and peer in row else "")
        notes = []
        limit = TARGETS.get((problem, size))
        if limit and hw and tape:
            best = min(row[i] for i in etad if i in row and i != "etad_static")
            mark = "ok" if tape / hw <= limit else ("ok with best variant" if best / hw <= limit else "MISSED")
            notes.append(f"<= {limit}x hw: {mark}")
        for peer in ("adolc", "sacado_rad"):
            if tape and peer in row and row[peer] / tape < PEER_SPEEDUP:
                notes.append(f">= 3x {peer}: MISSED")
        cells.append("; ".join(notes))
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
