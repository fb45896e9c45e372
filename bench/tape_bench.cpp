// bench/tape_bench.cpp — the run-time tape (etad::tape) on the problems of bench/problems/,
// against the plain function (value), the hand-written gradient (handwritten) and, for chain,
// etad::gradient without a tape (etad_static). Names: <problem>:<implementation>/<size>.
// Variants of etad_tape: etad_tape_scalar (reductions written element by element),
// etad_tape_fused (the single-statement APIs: map_sum, quadratic_form, map_sum with rows_times),
// etad_tape_matvec (regression with matvec, then map_sum) and etad_tape_gradients (sum through
// the allocating gradients() instead of gradient(..., out)).
// The peers (ADOL-C, Sacado) are registered from bench/tape_peers_bench.cpp, through
// register_peer_benchmarks(), so that their rows follow etad's, problem by problem.
#include "problems/all.hpp"
#include "problems/harness.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <span>
#include <string>

namespace tape_bench {

// Defined in bench/tape_peers_bench.cpp (registers nothing when no peer was found).
void register_peer_benchmarks(std::string_view problem);

namespace {

template <class P>
void value(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  benchmark::DoNotOptimize(p);
  for (auto _ : state) {
    p.next();
    double v = p.value();
    benchmark::DoNotOptimize(v);
    benchmark::ClobberMemory();
  }
}

template <class P>
void handwritten(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  time_gradient(state, "handwritten", p, [&](std::span<double> g) { return p.handwritten(g); });
}

template <class P>
void etad_static(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  time_gradient(state, "etad_static", p, [&](std::span<double> g) { return p.etad_static(g); });
}

template <class P>
void etad_tape(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  etad_workspace ws;
  time_gradient(state, "etad_tape", p, [&](std::span<double> g) { return p.etad_tape(ws, g); });
}

template <class P>
void etad_tape_scalar(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  etad_workspace ws;
  time_gradient(state, "etad_tape_scalar", p,
                [&](std::span<double> g) { return p.etad_tape_scalar(ws, g); });
}

template <class P>
void etad_tape_fused(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  etad_workspace ws;
  time_gradient(state, "etad_tape_fused", p,
                [&](std::span<double> g) { return p.etad_tape_fused(ws, g); });
}

template <class P>
void etad_tape_matvec(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  etad_workspace ws;
  time_gradient(state, "etad_tape_matvec", p,
                [&](std::span<double> g) { return p.etad_tape_matvec(ws, g); });
}

template <class P>
void etad_tape_gradients(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  etad_workspace ws;
  time_gradient(state, "etad_tape_gradients", p,
                [&](std::span<double> g) { return p.etad_tape_gradients(ws, g); });
}

template <class P>
void add(const char* impl, void (*fn)(benchmark::State&)) {
  auto* b = benchmark::RegisterBenchmark((std::string(P::name) + ":" + impl).c_str(), fn);
  for (long n : sizes_of<P>) b->Arg(n);
}

const bool registered = [] {
  for_each_problem([](auto tag) {
    using P = typename decltype(tag)::type;
    add<P>("value", value<P>);
    add<P>("handwritten", handwritten<P>);
    if constexpr (requires(const P& p, std::span<double> g) { p.etad_static(g); })
      add<P>("etad_static", etad_static<P>);
    add<P>("etad_tape", etad_tape<P>);
    if constexpr (requires(const P& p, etad_workspace& ws, std::span<double> g) {
                    p.etad_tape_scalar(ws, g);
                  })
      add<P>("etad_tape_scalar", etad_tape_scalar<P>);
    if constexpr (requires(const P& p, etad_workspace& ws, std::span<double> g) {
                    p.etad_tape_fused(ws, g);
                  })
      add<P>("etad_tape_fused", etad_tape_fused<P>);
    if constexpr (requires(const P& p, etad_workspace& ws, std::span<double> g) {
                    p.etad_tape_matvec(ws, g);
                  })
      add<P>("etad_tape_matvec", etad_tape_matvec<P>);
    if constexpr (requires(const P& p, etad_workspace& ws, std::span<double> g) {
                    p.etad_tape_gradients(ws, g);
                  })
      add<P>("etad_tape_gradients", etad_tape_gradients<P>);
    register_peer_benchmarks(P::name);
  });
  return true;
}();

}  // namespace
}  // namespace tape_bench
