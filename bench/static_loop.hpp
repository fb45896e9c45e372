// bench/static_loop.hpp — the timing loop of the static benchmarks, shared by
// bench/static_bench.cpp and bench/ab/ab_static.cpp so that both time the same way.
#pragma once

#include "static_problems.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>

namespace etad_bench {

// Every benchmark cycles through its problem's points (so no input is a compile-time constant
// and consecutive calls differ) and sinks each result. The points (and poly10's coefficients)
// are hidden from the optimizer once before the loop.
template <class Problem, class Fn>
void run(benchmark::State& state, Fn fn) {
  auto pts = Problem::points();
  benchmark::DoNotOptimize(pts.data());
  if constexpr (requires { Problem::coefficients(); })
    benchmark::DoNotOptimize(Problem::coefficients().data());
  benchmark::ClobberMemory();
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = fn(pts[i]);
    benchmark::DoNotOptimize(r);
    i = (i + 1) % point_count;
  }
}

}  // namespace etad_bench
