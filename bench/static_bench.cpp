// bench/static_bench.cpp — etad::gradient on three fixed formulas against the plain value and a
// hand-written gradient: trig3 (transcendental, 3 inputs), chain20 (20 chained scalar ops, one
// expression), poly10 (10-term cubic with run-time coefficients). Formulas in static_problems.hpp.
#include "static_loop.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace etad_bench;

template <class Problem>
void value(benchmark::State& state) {
  run<Problem>(state, [](const auto& p) { return Problem::value(p); });
}

template <class Problem>
void handwritten(benchmark::State& state) {
  check_or_abort<Problem>();
  run<Problem>(state, [](const auto& p) { return Problem::handwritten(p); });
}

template <class Problem>
void etad_static(benchmark::State& state) {
  check_or_abort<Problem>();
  run<Problem>(state, [](const auto& p) { return Problem::etad_static(p); });
}

}  // namespace

BENCHMARK(value<trig3>)->Name("trig3:value");
BENCHMARK(handwritten<trig3>)->Name("trig3:handwritten");
BENCHMARK(etad_static<trig3>)->Name("trig3:etad_static");

BENCHMARK(value<chain20>)->Name("chain20:value");
BENCHMARK(handwritten<chain20>)->Name("chain20:handwritten");
BENCHMARK(etad_static<chain20>)->Name("chain20:etad_static");

BENCHMARK(value<poly10>)->Name("poly10:value");
BENCHMARK(handwritten<poly10>)->Name("poly10:handwritten");
BENCHMARK(etad_static<poly10>)->Name("poly10:etad_static");
