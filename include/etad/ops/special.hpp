// etad/ops/special.hpp — error and gamma functions, and the digamma function their derivatives
// need (the standard library has none).
#pragma once

#include <etad/core/rule.hpp>
#include <etad/ops/detail/numbers.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>

namespace etad {

namespace detail {

// Polygamma functions of order 0 and 1 for floating-point x: shift x up to >= 10 by the
// recurrence, then the asymptotic series (truncation error below 1e-16 relative there);
// reflection for x < 0. Poles (x = 0, -1, -2, ...) give NaN.
template <class T>
T digamma_value(T x) {
  using std::floor, std::log, std::tan, std::isnan;
  if (isnan(x) || (x <= 0 && x == floor(x))) return std::numeric_limits<T>::quiet_NaN();
  if (x == std::numeric_limits<T>::infinity()) return x;
  T r = 0;
  if (x < 0) {  // psi(x) = psi(1 - x) - pi / tan(pi x)
    r = -static_cast<T>(pi) / tan(static_cast<T>(pi) * x);
    x = 1 - x;
  }
  for (; x < 10; x += 1) r -= 1 / x;
  const T z = 1 / (x * x);
  // ln x - 1/(2x) - sum B_2k / (2k x^2k), k = 1..7
  const T series =
      z * (T(-1) / 12 + z * (T(1) / 120 + z * (T(-1) / 252 + z * (T(1) / 240 +
      z * (T(-1) / 132 + z * (T(691) / 32760 + z * (T(-1) / 12)))))));
  return r + log(x) - 1 / (2 * x) + series;
}

template <class T>
T trigamma_value(T x) {
  using std::floor, std::sin, std::isnan;
  if (isnan(x) || (x <= 0 && x == floor(x))) return std::numeric_limits<T>::quiet_NaN();
  if (x == std::numeric_limits<T>::infinity()) return 0;
  if (x < 0) {  // psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)
    const T s = sin(static_cast<T>(pi) * x);
    return static_cast<T>(pi * pi) / (s * s) - trigamma_value(1 - x);
  }
  T r = 0;
  for (; x < 10; x += 1) r += 1 / (x * x);
  const T z = 1 / (x * x);
  // 1/x + 1/(2x^2) + sum B_2k / x^(2k+1), k = 1..8 (stopping at k = 6 left 1e-14 relative)
  const T series = z * (T(1) / 6 + z * (T(-1) / 30 + z * (T(1) / 42 + z * (T(-1) / 30 +
                   z * (T(5) / 66 + z * (T(-691) / 2730 + z * (T(7) / 6 + z * (T(-3617) / 510))))))));
  return r + 1 / x + z / 2 + series / x;
}

}  // namespace detail

/// erf x. Domain R. d/dx = 2/sqrt(pi) e^(-x^2): saturates to exactly 0 at ±inf and once
/// e^(-x^2) underflows (|x| > 27.3 in double, 10.2 in float, 106.8 in long double), where erf
/// is ±1 (x^2 overflowing to inf also gives e^-inf = 0). NaN at NaN.
struct erf_op {
  static constexpr std::string_view name = "erf";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::erf; return erf(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    using std::exp;
    return std::array{detail::like<std::remove_cvref_t<decltype(x)>>(detail::two_over_sqrt_pi) *
                      exp(-(x * x))};
  }
};
template <operand X> constexpr auto erf(const X& x) { return etad::apply(erf_op{}, x); }

/// erfc x = 1 - erf x. Domain R. d/dx = -2/sqrt(pi) e^(-x^2), saturating to -0 as erf's.
struct erfc_op {
  static constexpr std::string_view name = "erfc";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::erfc; return erfc(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    using std::exp;
    return std::array{-detail::like<std::remove_cvref_t<decltype(x)>>(detail::two_over_sqrt_pi) *
                      exp(-(x * x))};
  }
};
template <operand X> constexpr auto erfc(const X& x) { return etad::apply(erfc_op{}, x); }

/// digamma psi(x) = d/dx ln Gamma(x). Domain R without 0, -1, -2, ... (NaN there).
/// d/dx = trigamma(x), computed numerically (so digamma has no derivative rule of order 2).
struct digamma_op {
  static constexpr std::string_view name = "digamma";
  static constexpr std::size_t arity = 1;
  template <class X> static X value(const X& x) { return detail::digamma_value(x); }
  template <class X> static auto partials(const X& x, const X&) { return std::array{detail::trigamma_value(x)}; }
};
template <operand X> constexpr auto digamma(const X& x) {
  if constexpr (expression<X>)
    return etad::apply(digamma_op{}, x);
  else
    return detail::digamma_value(static_cast<std::conditional_t<std::is_integral_v<X>, double, X>>(x));
}

/// Gamma(x). Domain R without 0, -1, -2, ... d/dx = Gamma(x) psi(x) = f digamma(x). At the
/// poles the value is ±inf at ±0 and NaN at negative integers (IEEE), the partial NaN (digamma
/// is NaN there: inf * NaN). +inf at +inf, and where Gamma overflows (x > 171.6 in double, 35.0
/// in float, 1755.5 in long double): inf * psi, psi > 0. NaN at NaN and -inf.
struct tgamma_op {
  static constexpr std::string_view name = "tgamma";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::tgamma; return tgamma(x); }
  static constexpr auto partials(const auto& x, const auto& f) { return std::array{f * digamma(x)}; }
};
template <operand X> constexpr auto tgamma(const X& x) { return etad::apply(tgamma_op{}, x); }

/// ln |Gamma(x)|. Domain R without 0, -1, -2, ... d/dx = digamma(x) (also for x < 0). At the
/// poles the value is +inf (IEEE) and the partial NaN: the slope is -inf on one side and +inf on
/// the other. At +inf value and slope +inf; at -inf value +inf (IEEE), partial NaN.
struct lgamma_op {
  static constexpr std::string_view name = "lgamma";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::lgamma; return lgamma(x); }
  static constexpr auto partials(const auto& x, const auto&) { return std::array{digamma(x)}; }
};
template <operand X> constexpr auto lgamma(const X& x) { return etad::apply(lgamma_op{}, x); }

}  // namespace etad
