// bench/custom_bench.cpp — etad's custom layer (include/etad/custom/) on the tape: checkpointing
// a loop (checkpoint_loop/N) and a run-time custom gradient against a compile-time rule
// (custom_gradient/N). Names: <problem>:<implementation>/<size>; every etad row also reports its
// tape's peak memory over one evaluation (record, gradient, recomputations) as peak_bytes.
#include "problems/checkpoint_loop.hpp"
#include "problems/common.hpp"
#include "problems/custom_gradient.hpp"
#include "problems/harness.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace tape_bench {
namespace {

template <class P>
inline constexpr std::array<long, 0> custom_sizes_of{};
template <> inline constexpr std::array<long, 3> custom_sizes_of<checkpoint_loop_problem>{100, 1000, 10000};
template <> inline constexpr std::array<long, 1> custom_sizes_of<custom_gradient_problem>{10000};

/// The issue asks every etad row to match the hand-written gradient this closely (relative, as
/// check_or_abort measures it).
constexpr double strict_tolerance = 1e-12;

template <class P>
void handwritten(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  time_gradient(state, "handwritten", p, [&](std::span<double> g) { return p.handwritten(g); });
}

/// What a row checks after its first evaluation, beyond the gradient (nothing by default).
template <class P>
using after_check = void (*)(benchmark::State&, const P&);

/// Registers `<problem>:<impl>/<size>`: one gradient per iteration by (p.*Method)(workspace, g),
/// timed by the harness of the tape rows. Before timing, once: one evaluation from a reset tape
/// with its peak memory reset, checked against the hand-written value and gradient to
/// strict_tolerance (a mismatch aborts), its peak reported as the counter peak_bytes.
template <class P, auto Method>
void add_etad(const char* impl, after_check<P> after = nullptr) {
  auto* b = benchmark::RegisterBenchmark(
      (std::string(P::name) + ":" + impl).c_str(), [impl, after](benchmark::State& state) {
        P p(std::size_t(state.range(0)));
        etad_workspace ws;
        const auto eval = [&](std::span<double> g) { return std::invoke(Method, p, ws, g); };
        {
          std::vector<double> g(p.sources()), g_h(p.sources());
          const double v_h = p.handwritten(g_h);
          ws.tape.reset();
          ws.tape.reset_peak_memory();
          const double v = eval(std::span<double>(g));
          check_or_abort(label<P>(impl, std::size_t(state.range(0))), v_h, g_h, v, g,
                         strict_tolerance);
          state.counters["peak_bytes"] = double(ws.tape.peak_memory());
          if (after != nullptr) after(state, p);
        }
        time_gradient(state, impl, p, eval);
      });
  for (long n : custom_sizes_of<P>) b->Arg(n);
}

/// etad_revolve: its sweep reversed every step once, running the binomial optimum of steps again
/// (reported as the counter recomputed_steps).
void check_revolve(benchmark::State& state, const checkpoint_loop_problem& p) {
  const etad::checkpoint_stats& s = p.stats();
  const auto n = std::size_t(state.range(0));
  if (s.steps != n || s.taped_steps != n || s.recomputed_steps != s.optimal_recomputations) {
    std::fprintf(stderr, "custom_bench: checkpoint_loop:etad_revolve/%zu: the sweep taped %zu "
                 "of %zu steps and ran %zu again (binomial optimum %zu)\n", n, s.taped_steps,
                 s.steps, s.recomputed_steps, s.optimal_recomputations);
    std::abort();
  }
  state.counters["recomputed_steps"] = double(s.recomputed_steps);
}

template <class P>
void add_handwritten() {
  auto* b = benchmark::RegisterBenchmark((std::string(P::name) + ":handwritten").c_str(),
                                         handwritten<P>);
  for (long n : custom_sizes_of<P>) b->Arg(n);
}

const bool registered = [] {
  using C = checkpoint_loop_problem;
  add_handwritten<C>();
  add_etad<C, &C::etad_tape>("etad_tape");
  add_etad<C, &C::etad_recompute>("etad_recompute");
  add_etad<C, &C::etad_revolve>("etad_revolve", check_revolve);

  using G = custom_gradient_problem;
  add_handwritten<G>();
  add_etad<G, &G::etad_rule>("etad_rule");
  add_etad<G, &G::etad_runtime>("etad_runtime");
  return true;
}();

}  // namespace
}  // namespace tape_bench
