// bench/problems/harness.hpp — the Google Benchmark loop shared by bench/tape_bench.cpp and
// bench/tape_peers_bench.cpp: check once against the hand-written gradient, then time.
#pragma once

#include "common.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace tape_bench {

template <class P>
std::string label(const char* impl, std::size_t size) {
  return std::string(P::name) + ":" + impl + "/" + std::to_string(size);
}

/// Times eval(g) -> value, one gradient per iteration, cycling through the problem's points.
/// Before timing, the implementation's value and gradient are checked against the hand-written
/// ones at the first point (a mismatch aborts with a message).
template <class P, class Eval>
void time_gradient(benchmark::State& state, const char* impl, P& p, Eval&& eval) {
  std::vector<double> g(p.sources()), g_h(p.sources());
  {
    const double v_h = p.handwritten(g_h);
    const double v = eval(std::span<double>(g));
    check_or_abort(label<P>(impl, std::size_t(state.range(0))), v_h, g_h, v, g);
  }
  benchmark::DoNotOptimize(p);  // the data and points are unknown to the optimizer from here
  for (auto _ : state) {
    p.next();
    double v = eval(std::span<double>(g));
    benchmark::DoNotOptimize(v);
    benchmark::DoNotOptimize(g.data());
    benchmark::ClobberMemory();
  }
}

}  // namespace tape_bench
