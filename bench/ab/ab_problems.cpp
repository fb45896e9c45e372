// bench/ab/ab_problems.cpp — one side of an A/B comparison of two versions of etad's headers
// (tools/ab_bench.sh). The script compiles this file twice, each time against one version's
// include/ and with every `etad` and `tape_bench` renamed (-Detad=etad_<SIDE>
// -Dtape_bench=tape_bench_<SIDE>), so that both versions live in one program and Google
// Benchmark can interleave their repetitions: machine noise then hits both alike, which runs
// of two programs one after the other do not guarantee. Each problem of bench/problems at each
// of its sizes is registered as <problem>:etad_tape@<SIDE>/<size>, its gradient checked against
// the hand-written one first (a wrong gradient is not a benchmark).
#include "../problems/all.hpp"

#include <benchmark/benchmark.h>

#include <span>
#include <string>
#include <vector>

#ifndef ETAD_AB_SIDE
#  error "compile with -DETAD_AB_SIDE=\"name\" (tools/ab_bench.sh does)"
#endif

namespace {

using namespace tape_bench;

template <class P>
void run(benchmark::State& state, long n) {
  P p(static_cast<std::size_t>(n));
  etad_workspace ws;
  std::vector<double> g(p.sources()), g_h(p.sources());
  const double v_h = p.handwritten(g_h);
  const double v = p.etad_tape(ws, g);
  check_or_abort(std::string(P::name) + ":etad_tape@" ETAD_AB_SIDE, v_h, g_h, v, g);
  for (auto _ : state) {
    p.next();
    double r = p.etad_tape(ws, g);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(g.data());
    benchmark::ClobberMemory();
  }
}

const bool registered = [] {
  for_each_problem([](auto tag) {
    using P = typename decltype(tag)::type;
    for (long n : sizes_of<P>)
      benchmark::RegisterBenchmark(
          (std::string(P::name) + ":etad_tape@" ETAD_AB_SIDE "/" + std::to_string(n)).c_str(),
          [n](benchmark::State& s) { run<P>(s, n); });
  });
  return true;
}();

}  // namespace
