// tests/support/generated_sum.hpp — the reference for the sums tools/compile_time.py generates:
// value and gradient of sum_k c[k] * A_k(u_k) * B_k(v_k * w_k), computed term by term from
// derivatives written out here, independently of etad's rules.
#pragma once

#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <cstddef>

namespace etad_test {

// Term k of the generated sum is c[k] * A(u) * B(v * w): A and B are functions number a and b of
// op_value below, u is input number u (x, y, z) and (v, w) = pairs[p], for (a, b, u, p) =
// term_spec(k) — the rotation of tools/compile_time.py (term_spec there).
struct spec {
  std::size_t a, b, u, p;
};
inline constexpr spec term_spec(std::size_t k) {
  return {k % 12, (k / 12 + 7 * k) % 12, (k / 144 + k) % 3, (k / 432 + 2 * k) % 3};
}
inline constexpr std::array<std::array<std::size_t, 2>, 3> pairs{{{1, 2}, {2, 0}, {0, 1}}};  // yz, zx, xy

// The twelve functions of the generator (sin cos exp tanh atan sinh cosh log1p sqrt asinh erf
// cbrt, in that order) and their derivatives, written independently of etad's rules.
inline double op_value(std::size_t i, double t) {
  switch (i) {
    case 0: return std::sin(t);
    case 1: return std::cos(t);
    case 2: return std::exp(t);
    case 3: return std::tanh(t);
    case 4: return std::atan(t);
    case 5: return std::sinh(t);
    case 6: return std::cosh(t);
    case 7: return std::log1p(t);
    case 8: return std::sqrt(t);
    case 9: return std::asinh(t);
    case 10: return std::erf(t);
    default: return std::cbrt(t);
  }
}

inline double op_derivative(std::size_t i, double t) {
  switch (i) {
    case 0: return std::cos(t);
    case 1: return -std::sin(t);
    case 2: return std::exp(t);
    case 3: return 1 / (std::cosh(t) * std::cosh(t));
    case 4: return 1 / (1 + t * t);
    case 5: return std::cosh(t);
    case 6: return std::sinh(t);
    case 7: return 1 / (1 + t);
    case 8: return 0.5 / std::sqrt(t);
    case 9: return 1 / std::sqrt(t * t + 1);
    case 10: return 1.1283791670955126 * std::exp(-t * t);  // 2 / sqrt(pi)
    default: return 1 / (3 * std::cbrt(t) * std::cbrt(t));
  }
}

template <std::size_t terms>
std::array<double, terms> coefficients() {
  std::array<double, terms> c{};
  for (std::size_t k = 0; k < terms; ++k) c[k] = 0.5 + static_cast<double>((k * 37) % 101) / 100;
  return c;
}

template <std::size_t terms>
etad::gradient_result<double, 3> reference(const std::array<double, terms>& c,
                                           const std::array<double, 3>& in) {
  etad::gradient_result<double, 3> r{0, {0, 0, 0}};
  for (std::size_t k = 0; k < terms; ++k) {
    const auto [a, b, u, p] = term_spec(k);
    const std::size_t v = pairs[p][0], w = pairs[p][1];
    const double s = in[v] * in[w];
    const double fa = op_value(a, in[u]), fb = op_value(b, s), db = op_derivative(b, s);
    r.value += c[k] * fa * fb;
    r.gradient[u] += c[k] * op_derivative(a, in[u]) * fb;
    r.gradient[v] += c[k] * fa * db * in[w];
    r.gradient[w] += c[k] * fa * db * in[v];
  }
  return r;
}

}  // namespace etad_test
