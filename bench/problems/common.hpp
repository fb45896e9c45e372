// bench/problems/common.hpp — what every tape-benchmark problem shares: deterministic data, the
// gradient check against the hand-written gradient, and the etad workspace.
//
// Each problem (one header per problem in this folder) is a class built from its size, with
//   name, sizes                      the benchmark name and the sizes it is run at
//   sources()                        how many inputs the gradient is taken with respect to
//   next()                           moves to the next of a few nearby input points (so that
//                                    consecutive evaluations differ and nothing is folded)
//   value()                          the plain double function
//   handwritten(g)                   value, and the analytic gradient into g (scalar C++)
//   etad_tape(ws, g)                 value, and the gradient by an etad::tape, everything a user
//                                    pays per evaluation: reset (of the previous evaluation,
//                                    first, so that the tape can be inspected after a call),
//                                    recording, backward sweep
//   formula<AD>(inputs)              the same function generically, for the scalar AD peers
//                                    (ADOL-C adouble, Sacado Rad / Fad), natural scalar code
//   scalar_ops()                     the scalar operations of the formula, counted by hand
// and, where they apply, etad_tape_scalar(ws, g) (reductions written element by element) and
// etad_static(g) (etad::gradient, no tape).
#pragma once

#include <etad/etad.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tape_bench {

/// Deterministic pseudo-random numbers (splitmix64): the same data on every machine and run.
class random_stream {
public:
  explicit random_stream(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  }
  /// Standard normal (Box-Muller; one value per call, the simplest reproducible way).
  double normal() {
    const double u = uniform(0x1.0p-53, 1.0), v = uniform(0.0, 1.0);
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

private:
  std::uint64_t state_;
};

/// How many nearby input points every problem cycles through.
inline constexpr std::size_t point_count = 8;

/// What an etad_tape implementation keeps between evaluations: the tape (kept, so that after the
/// first rounds an evaluation allocates no tape memory) and vectors of reals it refills.
struct etad_workspace {
  etad::tape tape;
  std::vector<etad::real<double>> a, b;
};

/// Aborts unless (value, g) matches the hand-written (value_h, g_h) to a relative 1e-9 (each
/// component compared relative to itself, with a floor of 1e-3 times the largest component so
/// that tiny components are not held to a tighter absolute standard than the rest).
inline void check_or_abort(const std::string& label, double value_h, std::span<const double> g_h,
                           double value, std::span<const double> g, double tolerance = 1e-9) {
  auto fail = [&](const char* what, std::size_t i, double want, double got) {
    if (i == std::size_t(-1))
      std::fprintf(stderr, "tape_bench: %s: %s differs from the hand-written one: %.17g "
                   "(hand-written) vs %.17g\n", label.c_str(), what, want, got);
    else
      std::fprintf(stderr, "tape_bench: %s: %s %zu differs from the hand-written one: %.17g "
                   "(hand-written) vs %.17g\n", label.c_str(), what, i, want, got);
    std::abort();
  };
  if (g.size() != g_h.size()) fail("gradient size", std::size_t(-1), double(g_h.size()), double(g.size()));
  if (!(std::abs(value - value_h) <= tolerance * std::max(1.0, std::abs(value_h))))
    fail("value", std::size_t(-1), value_h, value);
  double scale = 0;
  for (double v : g_h) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double ref = std::max(std::abs(g_h[i]), 1e-3 * scale);
    if (!(std::abs(g[i] - g_h[i]) <= tolerance * ref)) fail("gradient component", i, g_h[i], g[i]);
  }
}

/// One evaluation on the tape of a 3-input problem (chain, recurrence) at the point p: reset,
/// the variables x, y, z, r = run(x, y, z), the gradient of r into g; returns r's value. It and
/// the lambdas given to it are always inlined: called, they cost chain/10's etad_tape 5,603
/// instructions per evaluation instead of 5,401.
template <class Run>
__attribute__((always_inline)) inline double tape_gradient(etad_workspace& ws,
                                                           const std::array<double, 3>& p,
                                                           std::span<double> g, Run run) {
  auto& tp = ws.tape;
  tp.reset();  // the previous evaluation: forgotten, its memory kept
  const etad::real<double> x = tp.variable(p[0]), y = tp.variable(p[1]), z = tp.variable(p[2]);
  const etad::real<double> r = run(x, y, z);
  const auto [dx, dy, dz] = tp.gradient(r, x, y, z);
  g[0] = dx;
  g[1] = dy;
  g[2] = dz;
  return r.value();
}

/// etad::gradient of f at the point p (a function of 3 inputs), the gradient written into g:
/// the etad_static row of the 3-input problems (chain, recurrence).
template <class F>
double static_gradient(const F& f, const std::array<double, 3>& p, std::span<double> g) {
  const auto r = etad::gradient(f, p[0], p[1], p[2]);
  std::copy(r.gradient.begin(), r.gradient.end(), g.begin());
  return r.value;
}

/// Copies the result of etad::tape::gradients (every source is connected, or asked for as zero)
/// into g.
inline void copy_gradients(const std::vector<std::optional<double>>& r, std::span<double> g) {
  for (std::size_t i = 0; i < r.size(); ++i) g[i] = *r[i];
}

}  // namespace tape_bench
