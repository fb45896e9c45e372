// bench/static_problems.hpp — the fixed formulas of the static-gradient benchmarks, each as the
// plain value, a hand-written gradient and etad::gradient. Shared by bench/static_bench.cpp (time)
// and bench/callgrind/static_driver.cpp (instruction counts), so both measure the same code.
#pragma once

#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace etad_bench {

/// What every gradient implementation returns: etad's plain aggregate {value, gradient}, so that
/// etad_static returns etad::gradient's result as it is and no implementation pays for a copy
/// into another type.
template <std::size_t N>
using value_and_gradient = etad::gradient_result<double, N>;

template <std::size_t N>
using point = std::array<double, N>;

// A few points per problem, cycled through by the benchmarks so that nothing is constant-folded.
// Each problem's points are inside its domain and away from zeros of its gradient (the check
// below is relative).
inline constexpr std::size_t point_count = 8;

// --- trig3 ----------------------------------------------------------------------------------
// f(x, y, z) = x sin y + e^z / (1 + x^2) - ln(1 + y^2 z^2)
struct trig3 {
  static constexpr std::string_view name = "trig3";
  static constexpr std::size_t n = 3;

  static std::array<point<3>, point_count> points() {
    return {{{0.7, 1.3, 0.4}, {1.1, 0.6, -0.3}, {-0.4, 2.1, 0.9}, {1.9, -0.8, 0.2},
             {0.3, 1.7, -1.1}, {-1.2, 0.45, 0.65}, {0.85, -1.4, 1.3}, {1.5, 0.95, -0.7}}};
  }

  static double value(const point<3>& p) {
    const double x = p[0], y = p[1], z = p[2];
    return x * std::sin(y) + std::exp(z) / (1 + x * x) - std::log(1 + y * y * z * z);
  }

  // df/dx = sin y - 2x e^z / (1 + x^2)^2
  // df/dy = x cos y - 2 y z^2 / (1 + y^2 z^2)
  // df/dz = e^z / (1 + x^2) - 2 y^2 z / (1 + y^2 z^2)
  static value_and_gradient<3> handwritten(const point<3>& p) {
    const double x = p[0], y = p[1], z = p[2];
    const double sy = std::sin(y), cy = std::cos(y);
    const double iq = 1 / (1 + x * x);
    const double t = std::exp(z) * iq;  // e^z / (1 + x^2)
    const double yz = y * z;
    const double r = 1 + yz * yz;
    const double ir = 1 / r;
    const double w = 2 * yz * ir;  // 2 y z / (1 + y^2 z^2)
    return {x * sy + t - std::log(r), {sy - 2 * x * t * iq, x * cy - w * z, t - w * y}};
  }

  static value_and_gradient<3> etad_static(const point<3>& p) {
    return etad::gradient(
        [](auto x, auto y, auto z) { return x * sin(y) + exp(z) / (1 + x * x) - log(1 + y * y * z * z); },
        p[0], p[1], p[2]);
  }
};

// --- chain20 --------------------------------------------------------------------------------
// Twenty scalar operations, each feeding the next, on three inputs, written as one expression:
//   a1 = x y, a2 = sin a1, a3 = a2 + z, a4 = e^a3, a5 = a4 x, a6 = 1 + a5, a7 = ln a6,
//   a8 = a7 / y, a9 = cos a8, a10 = a9 z, a11 = a10 - x, a12 = tanh a11, a13 = a12 + y,
//   a14 = atan a13, a15 = a14 z, a16 = a15 + x, a17 = sqrt a16, a18 = y a17, a19 = cos a18,
//   f = a20 = a19 / x.
// Domain used: x, z in [0.3, 1.5], y in [1.1, 1.9] (so a13 > 0, a16 > 0).
struct chain20 {
  static constexpr std::string_view name = "chain20";
  static constexpr std::size_t n = 3;

  static std::array<point<3>, point_count> points() {
    return {{{0.7, 1.3, 0.4}, {1.1, 1.6, 0.9}, {0.4, 1.1, 1.2}, {1.4, 1.9, 0.3},
             {0.9, 1.45, 1.5}, {0.35, 1.75, 0.6}, {1.25, 1.2, 0.75}, {0.55, 1.85, 1.05}}};
  }

  static double value(const point<3>& p) {
    const double x = p[0], y = p[1], z = p[2];
    using std::sin, std::cos, std::exp, std::log, std::tanh, std::atan, std::sqrt;
    return cos(y * sqrt(atan(tanh(cos(log(1 + exp(sin(x * y) + z) * x) / y) * z - x) + y) * z + x)) / x;
  }

  // Forward through a1..a20, then the adjoints b_k = df/da_k back down, accumulating into the
  // gradient wherever an input appears (as one would write it by hand, reciprocals reused).
  static value_and_gradient<3> handwritten(const point<3>& p) {
    const double x = p[0], y = p[1], z = p[2];
    const double a1 = x * y;
    const double s1 = std::sin(a1), c1 = std::cos(a1);
    const double a4 = std::exp(s1 + z);
    const double a6 = 1 + a4 * x;
    const double iy = 1 / y;
    const double a8 = std::log(a6) * iy;
    const double a9 = std::cos(a8), s8 = std::sin(a8);
    const double a12 = std::tanh(a9 * z - x);
    const double a13 = a12 + y;
    const double a14 = std::atan(a13);
    const double a17 = std::sqrt(a14 * z + x);
    const double a18 = y * a17;
    const double a19 = std::cos(a18), s18 = std::sin(a18);
    const double ix = 1 / x;
    const double f = a19 * ix;

    const double b18 = -s18 * ix;
    const double b16 = b18 * y / (2 * a17);
    const double b13 = b16 * z / (1 + a13 * a13);
    const double b11 = b13 * (1 - a12 * a12);
    const double b8 = -s8 * b11 * z;
    const double b5 = b8 * iy / a6;
    const double b3 = b5 * x * a4;
    const double b1 = b3 * c1;
    return {f,
            {-f * ix + b16 - b11 + b5 * a4 + b1 * y,
             b18 * a17 + b13 - b8 * a8 * iy + b1 * x,
             b16 * a14 + b11 * a9 + b3}};
  }

  static value_and_gradient<3> etad_static(const point<3>& p) {
    return etad::gradient(
        [](auto x, auto y, auto z) {
          return cos(y * sqrt(atan(tanh(cos(log(1 + exp(sin(x * y) + z) * x) / y) * z - x) + y) * z + x)) / x;
        },
        p[0], p[1], p[2]);
  }
};

// --- poly10 ---------------------------------------------------------------------------------
// The full cubic in two variables, ten terms with run-time coefficients c0..c9:
//   f = c0 + c1 x + c2 y + c3 x^2 + c4 x y + c5 y^2 + c6 x^3 + c7 x^2 y + c8 x y^2 + c9 y^3
struct poly10 {
  static constexpr std::string_view name = "poly10";
  static constexpr std::size_t n = 2;

  // Run-time coefficients: the benchmarks hide them from the optimizer (DoNotOptimize) before use.
  static std::array<double, 10>& coefficients() {
    static std::array<double, 10> c{0.5, -1.25, 2.0, 0.75, -0.3, 1.1, 0.2, -0.45, 0.9, -0.15};
    return c;
  }

  static std::array<point<2>, point_count> points() {
    return {{{0.7, 1.3}, {1.1, -0.6}, {-0.4, 2.1}, {1.9, -0.8},
             {0.3, 1.7}, {-1.2, 0.45}, {0.85, -1.4}, {1.5, 0.95}}};
  }

  static double value(const point<2>& p) {
    const double x = p[0], y = p[1];
    const auto& c = coefficients();
    return c[0] + c[1] * x + c[2] * y + c[3] * x * x + c[4] * x * y + c[5] * y * y + c[6] * x * x * x +
           c[7] * x * x * y + c[8] * x * y * y + c[9] * y * y * y;
  }

  // df/dx = c1 + 2 c3 x + c4 y + 3 c6 x^2 + 2 c7 x y + c8 y^2
  // df/dy = c2 + c4 x + 2 c5 y + c7 x^2 + 2 c8 x y + 3 c9 y^2
  static value_and_gradient<2> handwritten(const point<2>& p) {
    const double x = p[0], y = p[1];
    const auto& c = coefficients();
    const double xx = x * x, xy = x * y, yy = y * y;
    return {c[0] + c[1] * x + c[2] * y + c[3] * xx + c[4] * xy + c[5] * yy + c[6] * xx * x +
                c[7] * xx * y + c[8] * x * yy + c[9] * yy * y,
            {c[1] + 2 * c[3] * x + c[4] * y + 3 * c[6] * xx + 2 * c[7] * xy + c[8] * yy,
             c[2] + c[4] * x + 2 * c[5] * y + c[7] * xx + 2 * c[8] * xy + 3 * c[9] * yy}};
  }

  static value_and_gradient<2> etad_static(const point<2>& p) {
    const auto& c = coefficients();
    return etad::gradient(
        [&c](auto x, auto y) {
          return c[0] + c[1] * x + c[2] * y + c[3] * x * x + c[4] * x * y + c[5] * y * y +
                 c[6] * x * x * x + c[7] * x * x * y + c[8] * x * y * y + c[9] * y * y * y;
        },
        p[0], p[1]);
  }
};

// --- the check that must pass before anything is timed -----------------------------------------
inline bool close(double a, double b, double rel) {
  return std::abs(a - b) <= rel * std::fmax(std::abs(a), std::abs(b));
}

/// Aborts, with a message, unless etad's value and gradient equal the hand-written ones (and the
/// plain value) to `rel` relative at every benchmark point of Problem. A wrong gradient is not a
/// benchmark.
template <class Problem>
void check_or_abort(double rel = 1e-12) {
  for (const auto& p : Problem::points()) {
    const auto h = Problem::handwritten(p);
    const auto e = Problem::etad_static(p);
    const double v = Problem::value(p);
    bool ok = close(h.value, v, rel) && close(e.value, v, rel);
    for (std::size_t i = 0; i < Problem::n; ++i) ok = ok && close(e.gradient[i], h.gradient[i], rel);
    if (!ok) {
      std::fprintf(stderr, "%.*s: etad_static disagrees with handwritten (rel. tol. %g) at (",
                   static_cast<int>(Problem::name.size()), Problem::name.data(), rel);
      for (std::size_t i = 0; i < Problem::n; ++i) std::fprintf(stderr, "%s%.17g", i ? ", " : "", p[i]);
      std::fprintf(stderr, ")\n  value:      %.17g (plain), %.17g (hand), %.17g (etad)\n", v, h.value,
                   e.value);
      for (std::size_t i = 0; i < Problem::n; ++i)
        std::fprintf(stderr, "  gradient[%zu]: %.17g (hand), %.17g (etad)\n", i, h.gradient[i],
                     e.gradient[i]);
      std::abort();
    }
  }
}

}  // namespace etad_bench
