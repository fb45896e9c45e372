// bench/callgrind/call_sites_driver.cpp — chain/10's recording on the tape (10 etad::call
// statements of chain's loop body, and the gradient), where the translation unit calls that body
// through etad::call at ETAD_CALL_SITES places (1 or 3), for counting instructions under
// valgrind (tools/call_sites.sh). Where a program runs should not change what it costs: with g++
// the static sweep's functions are inlined by the compiler's heuristics, which weigh how many
// places call them (ETAD_PROGRAM_INLINE in include/etad/core/config.hpp). Not part of
// etad_bench (bench/CMakeLists.txt globs bench/*.cpp only).
// Usage: call_sites_driver <iterations>
#include "../problems/chain.hpp"

#include <cstddef>
#include <cstdlib>

#ifndef ETAD_CALL_SITES
#  define ETAD_CALL_SITES 1
#endif

namespace {

using tape_bench::chain_problem;

template <class T>
inline void sink(const T& v) {
  asm volatile("" : : "r,m"(v) : "memory");
}

// The measured place: chain/10 on the tape, gradient included.
[[gnu::noinline]] double recorded(etad::tape& tp, const std::array<double, 3>& p) {
  tp.reset();
  const etad::real<double> x = tp.variable(p[0]), y = tp.variable(p[1]), z = tp.variable(p[2]);
  etad::real<double> t = x;
  for (int i = 0; i < 10; ++i) t = etad::call(chain_problem::step, t, x, y, z);
  const auto [dx, dy, dz] = tp.gradient(t, x, y, z);
  return t.value() + dx + dy + dz;
}

#if ETAD_CALL_SITES > 1
// Two more places that call the same body: one while recording is paused, one on a constant.
[[gnu::noinline]] double paused(etad::tape& tp, const std::array<double, 3>& p) {
  tp.reset();
  const etad::real<double> x = tp.variable(p[0]), y = tp.variable(p[1]), z = tp.variable(p[2]);
  const etad::stop_recording<double> pause;
  return etad::call(chain_problem::step, x, x, y, z).value();
}
[[gnu::noinline]] double constant(const std::array<double, 3>& p) {
  const etad::real<double> c = p[0];
  return etad::call(chain_problem::step, c, c, c, c).value();
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 0;
  etad::tape tp;
  std::array<double, 3> p{0.6, 0.7, 0.9};
  sink(p);
  for (long k = 0; k < iterations; ++k) sink(recorded(tp, p));
#if ETAD_CALL_SITES > 1
  sink(paused(tp, p) + constant(p));
#endif
  return 0;
}
