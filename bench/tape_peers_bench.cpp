// bench/tape_peers_bench.cpp — the peer AD libraries on the problems of bench/problems/, when
// bench/CMakeLists.txt found them: adolc (ADOL-C, re-taped every evaluation), sacado_rad (Sacado
// reverse mode) and sacado_fad (Sacado forward mode, for the problems with 2 or 3 inputs).
// bench/tape_bench.cpp calls register_peer_benchmarks() after etad's rows of each problem.
#include "problems/all.hpp"
#include "problems/harness.hpp"

#if ETAD_BENCH_HAVE_ADOLC
#include "problems/adolc.hpp"
#endif
#if ETAD_BENCH_HAVE_SACADO
#include "problems/sacado.hpp"
#endif

#include <benchmark/benchmark.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tape_bench {

namespace {

#if ETAD_BENCH_HAVE_ADOLC
template <class P>
void adolc(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  {
    std::vector<double> g(p.sources());
    adolc_gradient(p, g);
    if (adolc_last_stats().spilled()) {
      state.SkipWithError("ADOL-C wrote its tape to a file: run from a directory with a .adolcrc "
                          "raising OBUFSIZE, LBUFSIZE, VBUFSIZE and TBUFSIZE (tools/bench.sh "
                          "writes one)");
      return;
    }
  }
  time_gradient(state, "adolc", p, [&](std::span<double> g) { return adolc_gradient(p, g); });
}
#endif

#if ETAD_BENCH_HAVE_SACADO
template <class P>
void sacado_rad(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  std::vector<sacado_rad_t> x;
  time_gradient(state, "sacado_rad", p,
                [&](std::span<double> g) { return sacado_rad_gradient(p, x, g); });
}

template <class P, std::size_t K>
void sacado_fad(benchmark::State& state) {
  P p(std::size_t(state.range(0)));
  time_gradient(state, "sacado_fad", p,
                [&](std::span<double> g) { return sacado_fad_gradient<K>(p, g); });
}

// Forward mode only where the inputs are few (its cost grows with their number).
template <class P>
inline constexpr std::size_t fad_inputs = 0;
template <>
inline constexpr std::size_t fad_inputs<normal_log_density_problem> = 2;
template <>
inline constexpr std::size_t fad_inputs<chain_problem> = 3;
template <>
inline constexpr std::size_t fad_inputs<recurrence_problem> = 3;
#endif

template <class P>
[[maybe_unused]] void add(const char* impl, void (*fn)(benchmark::State&)) {
  auto* b = benchmark::RegisterBenchmark((std::string(P::name) + ":" + impl).c_str(), fn);
  for (long n : sizes_of<P>) b->Arg(n);
}

}  // namespace

void register_peer_benchmarks(std::string_view problem) {
  for_each_problem([problem](auto tag) {
    using P = typename decltype(tag)::type;
    if (problem != P::name) return;
#if ETAD_BENCH_HAVE_ADOLC
    add<P>("adolc", adolc<P>);
#endif
#if ETAD_BENCH_HAVE_SACADO
    add<P>("sacado_rad", sacado_rad<P>);
    if constexpr (fad_inputs<P> != 0) add<P>("sacado_fad", sacado_fad<P, fad_inputs<P>>);
#endif
  });
}

}  // namespace tape_bench
