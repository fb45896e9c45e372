// bench/tape_bench.cpp — the run-time tape (etad::tape) on the problems of bench/problems/,
// against the plain function (value), the hand-written gradient (handwritten) and, for chain,
// the recurrence and the reductions at sizes fixed at compile time, etad::gradient without a
// tape (etad_static). Names: <problem>:<implementation>/<size>.
// etad_tape is each problem written the way etad's API offers for it (reductions, map_sum,
// quadratic_form, map_sum with rows_times; statements of whole expressions for the scalar
// problems; a variable block as the inputs of the reductions and of quadratic_form). Variants:
// etad_tape_reals (those with a vector of reals as the inputs), etad_tape_scalar (the same problem written element by element or row by
// row, as with a tape without those APIs), etad_tape_matvec (regression with matvec, then
// map_sum), etad_tape_gradients (sum through the allocating gradients() instead of
// gradient(..., out)) and etad_tape_loop (the recurrence as one etad::while_loop statement).
// The peers (ADOL-C, Sacado) are registered from bench/tape_peers_bench.cpp, through
// register_peer_benchmarks(), so that their rows follow etad's, problem by problem.
#include "problems/all.hpp"
#include "problems/harness.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

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

/// etad_static at a size N fixed at compile time: P::etad_static<N>(x) is etad::gradient over
/// x, a std::array<double, N>: the problem's points, copied into arrays before timing
/// (fixed_points), as a program with sizes fixed at compile time holds them. The gradient stays
/// in the result that etad::gradient returns, as the hand-written one stays in g: checked once
/// against the hand-written gradient, not copied while timed.
template <class P, std::size_t N>
void etad_static_fixed(benchmark::State& state) {
  P p(N);
  auto points = p.template fixed_points<N>();
  {
    std::vector<double> g_h(N);
    const double v_h = p.handwritten(g_h);
    const auto r = P::template etad_static<N>(points[p.point()]);
    check_or_abort(label<P>("etad_static", N), v_h, g_h, r.value, r.gradient);
  }
  benchmark::DoNotOptimize(points);  // the points are unknown to the optimizer from here
  for (auto _ : state) {
    p.next();
    auto r = P::template etad_static<N>(points[p.point()]);
    benchmark::DoNotOptimize(r);
    benchmark::ClobberMemory();
  }
}

/// Registers `<problem>:<impl>/<size>` for every size of P: one gradient per iteration by the
/// member function Method, (p.*Method)(workspace, g), with a workspace (tape) kept across
/// iterations. Method is a template argument, so that the call is direct, as the hand-written
/// and the peers' are (through a member pointer held at run time it was an indirect call that
/// the compiler could not inline into the timing loop).
template <class P, auto Method>
void add_tape(const char* impl) {
  auto* b = benchmark::RegisterBenchmark(
      (std::string(P::name) + ":" + impl).c_str(), [impl](benchmark::State& state) {
        P p(std::size_t(state.range(0)));
        etad_workspace ws;
        time_gradient(state, impl, p,
                      [&](std::span<double> g) { return std::invoke(Method, p, ws, g); });
      });
  for (long n : sizes_of<P>) b->Arg(n);
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
    if constexpr (requires { &P::etad_static; }) add<P>("etad_static", etad_static<P>);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (benchmark::RegisterBenchmark((std::string(P::name) + ":etad_static").c_str(),
                                    etad_static_fixed<P, static_sizes_of<P>[I]>)
           ->Arg(long(static_sizes_of<P>[I])),
       ...);
    }(std::make_index_sequence<static_sizes_of<P>.size()>{});
    add_tape<P, &P::etad_tape>("etad_tape");
    if constexpr (requires { &P::etad_tape_scalar; })
      add_tape<P, &P::etad_tape_scalar>("etad_tape_scalar");
    if constexpr (requires { &P::etad_tape_reals; })
      add_tape<P, &P::etad_tape_reals>("etad_tape_reals");
    if constexpr (requires { &P::etad_tape_matvec; })
      add_tape<P, &P::etad_tape_matvec>("etad_tape_matvec");
    if constexpr (requires { &P::etad_tape_gradients; })
      add_tape<P, &P::etad_tape_gradients>("etad_tape_gradients");
    if constexpr (requires { &P::etad_tape_loop; })
      add_tape<P, &P::etad_tape_loop>("etad_tape_loop");
    register_peer_benchmarks(P::name);
  });
  return true;
}();

}  // namespace
}  // namespace tape_bench
