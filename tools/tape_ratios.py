#!/usr/bin/env python3
"""Ratio table of the tape benchmarks (bench/tape_bench.cpp, bench/tape_peers_bench.cpp).

Reads Google Benchmark JSON like tools/bench_table.py (median aggregate when repetitions were
run, else the mean) and prints, per problem and size: the hand-written time, every etad tape
variant and every peer as a ratio to it, and how many times faster etad_tape is than each peer
(peer time / etad_tape time). Targets from the tape issue are checked in the last column:
chain/1000 etad_tape <= 2.0x hand-written and etad_static <= 1.2x; sum, prod, log_sum_exp, normal_log_density,
quadratic_form, regression at their largest size <= 1.5x; etad_tape >= 3x faster than adolc and
sacado_rad everywhere. "best" is the fastest etad variant (etad_tape, etad_tape_scalar, ...).

With --run DIR (repeatable), each DIR holds the JSON files of one run of tools/bench.sh
(bench.json and bench-adolc-*.json): every ratio is computed within its run, and the table shows
the median over the runs with the lowest and highest in brackets; targets are judged on the
median. On a shared machine, one run's ratios move by 10-30 %.

With --stat min, each benchmark's time is the fastest of its repetitions instead of their median
(needs the repetitions in the JSON, as tools/bench.sh writes it): the host's busy spells only add
time, so the minimum shows what each row costs when it is left alone. The targets are judged on
the median (the default); the minimum is for reading how much of a miss is the host.

Usage: tape_ratios.py [--time cpu|real] [--stat median|min] FILE.json [FILE.json ...]
       tape_ratios.py [--time cpu|real] [--stat median|min] --run DIR --run DIR ...
"""
import argparse
import glob
import os
import json
import statistics
import sys
from collections import defaultdict

TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
PROBLEMS = ("sum", "prod", "log_sum_exp", "normal_log_density", "chain", "quadratic_form",
            "regression", "recurrence")
ETAD = ("etad_tape", "etad_tape_reals", "etad_tape_matvec", "etad_tape_scalar", "etad_tape_gradients",
        "etad_tape_loop", "etad_static")
PEERS = ("adolc", "sacado_rad", "sacado_fad")
# (problem, size) -> the most etad_tape (or its best variant) may take, in hand-written times.
TARGETS = {("chain", "1000"): 2.0, ("sum", "10000"): 1.5, ("prod", "10000"): 1.5,
           ("log_sum_exp", "10000"): 1.5, ("normal_log_density", "10000"): 1.5,
           ("quadratic_form", "256"): 1.5, ("regression", "100"): 1.5}
# (problem, size) -> the most etad_static (chain: etad::loop) may take, in hand-written times.
STATIC_TARGETS = {("chain", "1000"): 1.2}
PEER_SPEEDUP = 3.0


def load(paths, field, stat="median"):
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
            if stat == "min" and runs.get(name):
                table[(problem, size)][impl] = min(runs[name])
            else:
                table[(problem, size)][impl] = (medians[name] if name in medians
                                                else statistics.fmean(runs[name]))
    return table


def ratios(table):
    """(problem, size) -> {column: ratio} for one run, and the hand-written times."""
    out, hand = {}, {}
    for key, row in table.items():
        hw = row.get("handwritten")
        tape = row.get("etad_tape")
        r = {}
        for impl in ETAD + PEERS:
            if hw and impl in row:
                r[f"{impl} / hw"] = row[impl] / hw
        for peer in PEERS:
            if tape and peer in row:
                r[f"{peer} / etad_tape"] = row[peer] / tape
        if hw:
            best = [row[i] for i in ETAD if i in row and i != "etad_static"]
            if best:
                r["best / hw"] = min(best) / hw
            hand[key] = hw
        out[key] = r
    return out, hand


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--run", action="append", default=[], metavar="DIR")
    parser.add_argument("--time", choices=("cpu", "real"), default="cpu")
    parser.add_argument("--stat", choices=("median", "min"), default="median")
    args = parser.parse_args()
    field = f"{args.time}_time"
    if args.run:
        tables = [load(sorted(glob.glob(os.path.join(d, "*.json"))), field, args.stat)
                  for d in args.run]
    else:
        tables = [load(args.files, field, args.stat)]
    tables = [t for t in tables if t]
    if not tables:
        print("tape_ratios.py: no tape benchmark results found", file=sys.stderr)
        return 1
    per_run = [ratios(t) for t in tables]
    seen = {impl for t in tables for row in t.values() for impl in row}
    etad = [i for i in ETAD if i in seen]
    peers = [p for p in PEERS if p in seen]
    columns = [f"{i} / hw" for i in etad + peers] + [f"{p} / etad_tape" for p in peers]
    head = ["problem", "size", "handwritten ns"] + columns + ["targets"]
    runs = len(per_run)
    of_reps = "fastest" if args.stat == "min" else "median"
    print(f"{args.time} time ({of_reps} of each benchmark's repetitions); "
          "'x / hw' is the ratio to the hand-written gradient, "
          "'peer / etad_tape' how many times faster etad_tape is" +
          (f"; median of {runs} runs (lowest-highest)" if runs > 1 else "") + ".\n")
    print("| " + " | ".join(head) + " |")
    print("|---|---:|" + "---:|" * (len(head) - 3) + "---|")
    order = {p: k for k, p in enumerate(PROBLEMS)}
    keys = {k for r, _ in per_run for k in r}

    def values(key, column):
        return [r[key][column] for r, _ in per_run if key in r and column in r[key]]

    def cell(vs):
        if not vs:
            return ""
        m = statistics.median(vs)
        return f"{m:.2f}" if len(vs) == 1 else f"{m:.2f} ({min(vs):.2f}-{max(vs):.2f})"

    for key in sorted(keys, key=lambda ps: (order[ps[0]], int(ps[1] or 0))):
        problem, size = key
        hws = [h[key] for _, h in per_run if key in h]
        hw = statistics.median(hws) if hws else None
        cells = [problem, size, (f"{hw:,.0f}" if hw >= 100 else f"{hw:.3g}") if hw else ""]
        cells += [cell(values(key, c)) for c in columns]
        notes = []
        limit = TARGETS.get(key)
        tape_hw = values(key, "etad_tape / hw")
        if limit and tape_hw:
            tape_m = statistics.median(tape_hw)
            best_m = statistics.median(values(key, "best / hw"))
            mark = "ok" if tape_m <= limit else ("ok with best variant" if best_m <= limit else "MISSED")
            notes.append(f"<= {limit}x hw: {mark}")
        static_limit = STATIC_TARGETS.get(key)
        static_hw = values(key, "etad_static / hw")
        if static_limit and static_hw:
            mark = "ok" if statistics.median(static_hw) <= static_limit else "MISSED"
            notes.append(f"etad_static <= {static_limit}x hw: {mark}")
        for peer in ("adolc", "sacado_rad"):
            vs = values(key, f"{peer} / etad_tape")
            if vs and statistics.median(vs) < PEER_SPEEDUP:
                notes.append(f">= 3x {peer}: MISSED")
        cells.append("; ".join(notes))
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
