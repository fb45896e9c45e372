// bench/ab/ab_static.cpp — one side of an A/B comparison of two versions of etad's headers on
// the static gradient (tools/ab_static.sh), as bench/ab/ab_problems.cpp is for the tape: the
// script compiles this file twice, each time against one version's include/ and with etad and
// the benchmark namespaces renamed (-Detad=etad_<SIDE> ...), so that both versions live in one
// program and Google Benchmark interleaves their repetitions. Registered per side:
//   trig3, chain20, poly10 (bench/static_problems.hpp): handwritten and etad_static;
//   chain/1000 (bench/problems/chain.hpp): handwritten and etad_static (etad::loop);
//   slots: etad_static alone, a formula whose every node is a shared slot,
//     exp(x/y) + log(y z) atan(x/z) + sqrt(x^2 + z^2), where the place where the sweep computes
//     a slot's partials shows (docs/performance.md, "Partials taken early").
// Every etad gradient is checked against the hand-written one first (a wrong gradient is not a
// benchmark); the hand-written rows are the same code on both sides, an A/A check of the run.
#include "../problems/chain.hpp"
#include "../static_loop.hpp"
#include "../static_problems.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef ETAD_AB_SIDE
#  error "compile with -DETAD_AB_SIDE=\"name\" (tools/ab_static.sh does)"
#endif

namespace {

using namespace etad_bench;

template <class P, class F>
void add(const char* impl, F f) {
  benchmark::RegisterBenchmark((std::string(P::name) + ":" + impl + "@" ETAD_AB_SIDE).c_str(),
                               [f](benchmark::State& state) { run<P>(state, f); });
}

template <class P>
void add_problem() {
  check_or_abort<P>();
  add<P>("handwritten", [](const point<P::n>& p) { return P::handwritten(p); });
  add<P>("etad_static", [](const point<P::n>& p) { return P::etad_static(p); });
}

/// The formula of slots only (checked against its written-out gradient).
struct slots {
  static constexpr const char* name = "slots";
  static std::array<point<3>, point_count> points() {  // y z > 0: log(y z) is defined
    return {{{0.7, 1.3, 0.4}, {1.1, 0.6, 0.3}, {-0.4, 2.1, 0.9}, {1.9, 0.8, 0.2},
             {0.3, 1.7, 1.1}, {-1.2, 0.45, 0.65}, {0.85, 1.4, 1.3}, {1.5, 0.95, 0.7}}};
  }
  static auto etad_static(const point<3>& p) {
    return etad::gradient(
        [](auto x, auto y, auto z) {
          return exp(x / y) + log(y * z) * atan(x / z) + sqrt(x * x + z * z);
        },
        p[0], p[1], p[2]);
  }
  static void check() {
    for (const auto& p : points()) {
      const double x = p[0], y = p[1], z = p[2];
      const double e = std::exp(x / y), l = std::log(y * z), a = std::atan(x / z);
      const double q = std::sqrt(x * x + z * z);
      const double da = 1 / (1 + (x / z) * (x / z));
      const std::array<double, 3> g{e / y + l * da / z + x / q, -e * x / (y * y) + a / y,
                                    a / z - l * da * x / (z * z) + z / q};
      const auto r = etad_static(p);
      bool ok = close(r.value, e + l * a + q, 1e-12);
      for (std::size_t i = 0; i < 3; ++i) ok = ok && close(r.gradient[i], g[i], 1e-12);
      if (!ok) {
        std::fprintf(stderr, "slots: etad_static disagrees with the written-out gradient\n");
        std::abort();
      }
    }
  }
};

void add_chain(const char* impl, bool etad) {
  benchmark::RegisterBenchmark(
      (std::string("chain:") + impl + "@" ETAD_AB_SIDE "/1000").c_str(),
      [etad](benchmark::State& state) {
        tape_bench::chain_problem c(1000);
        std::vector<double> g(3);
        for (auto _ : state) {
          c.next();
          const double v = etad ? c.etad_static(g) : c.handwritten(g);
          benchmark::DoNotOptimize(v);
          benchmark::DoNotOptimize(g.data());
          benchmark::ClobberMemory();
        }
      });
}

const bool registered = [] {
  add_problem<trig3>();
  add_problem<chain20>();
  add_problem<poly10>();
  slots::check();
  add<slots>("etad_static", [](const point<3>& p) { return slots::etad_static(p); });
  tape_bench::chain_problem c(1000);
  std::vector<double> g_h(3), g(3);
  const double v_h = c.handwritten(g_h);
  const double v = c.etad_static(g);
  tape_bench::check_or_abort("chain:etad_static@" ETAD_AB_SIDE "/1000", v_h, g_h, v, g);
  add_chain("handwritten", false);
  add_chain("etad_static", true);
  return true;
}();

}  // namespace
