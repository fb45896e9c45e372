// etad/ops/power.hpp — roots, powers and hypot.
// pow picks one of four rules from its argument types, so a constant exponent or base never
// costs the logarithm (or the NaN) of the partial it does not need.
#pragma once

#include <etad/core/rule.hpp>
#include <etad/ops/detail/numbers.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace etad {

/// sqrt x. Domain [0, inf). d/dx = 1/(2 f): +inf at x = 0 (the one-sided slope), NaN below 0.
struct sqrt_op {
  static constexpr std::string_view name = "sqrt";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::sqrt; return sqrt(x); }
  static constexpr auto partials(const auto&, const auto& f) { return std::array{1 / (2 * f)}; }
};
template <operand X> constexpr auto sqrt(const X& x) { return etad::apply(sqrt_op{}, x); }

/// cbrt x. Domain R. d/dx = 1/(3 f^2): +inf at x = 0.
struct cbrt_op {
  static constexpr std::string_view name = "cbrt";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::cbrt; return cbrt(x); }
  static constexpr auto partials(const auto&, const auto& f) { return std::array{1 / (3 * (f * f))}; }
};
template <operand X> constexpr auto cbrt(const X& x) { return etad::apply(cbrt_op{}, x); }

namespace detail {
// d/da a^b = b a^(b-1), taken as 0 when b = 0 (a^0 is constant, also at a = 0 where the formula
// would give 0 * inf).
constexpr auto pow_base_partial(const auto& a, const auto& b) {
  using std::pow;
  const auto d = b * pow(a, b - 1);
  return bool(b == 0) ? decltype(d){} : d;
}
// d/db a^b = a^b ln a, taken as 0 at a = 0 (the limit from b > 0, where a^b = 0) instead of
// 0 * -inf. For a < 0 it is NaN: a^b is real there only at integer b.
constexpr auto pow_exponent_partial(const auto& a, const auto& f) {
  using std::log;
  const auto d = f * log(a);
  return bool(a == 0) ? decltype(d){} : d;
}
}  // namespace detail

/// a^b for two expressions. Domain a > 0 (a < 0 only with integer b). Partials b a^(b-1) and
/// a^b ln a, with the conventions of detail::pow_base_partial / pow_exponent_partial at 0.
struct pow_op {
  static constexpr std::string_view name = "pow";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { using std::pow; return pow(a, b); }
  static constexpr auto partials(const auto& a, const auto& b, const auto& f) {
    return std::tuple{detail::pow_base_partial(a, b), detail::pow_exponent_partial(a, f)};
  }
};

/// a^n for an integer n fixed at run time. Domain R (a != 0 for n < 0). d/da = n a^(n-1); 0 for
/// n = 0.
struct powi_op {
  static constexpr std::string_view name = "powi";
  static constexpr std::size_t arity = 1;
  int n;
  constexpr auto value(const auto& a) const { using std::pow; return pow(a, n); }
  constexpr auto partials(const auto& a, const auto&) const {
    using std::pow;
    const auto d = n * pow(a, n - 1);
    return std::array{n == 0 ? decltype(d){} : d};
  }
};

/// a^c for a constant real exponent c. d/da = c a^(c-1) (0 for c = 0; +inf at a = 0 for 0<c<1).
template <class C>
struct pow_constant_exponent_op {
  static constexpr std::string_view name = "pow";
  static constexpr std::size_t arity = 1;
  C c;
  constexpr auto value(const auto& a) const { using std::pow; return pow(a, c); }
  constexpr auto partials(const auto& a, const auto&) const {
    // c in a's precision: with a float c in a long double computation, c - 1 must not be rounded
    // to float.
    return std::array{detail::pow_base_partial(a, detail::like<std::remove_cvref_t<decltype(a)>>(c))};
  }
};

/// c^b for a constant base c. d/db = c^b ln c (0 at c = 0; NaN for c < 0).
template <class C>
struct pow_constant_base_op {
  static constexpr std::string_view name = "pow";
  static constexpr std::size_t arity = 1;
  C c;
  constexpr auto value(const auto& b) const { using std::pow; return pow(c, b); }
  constexpr auto partials(const auto&, const auto& f) const {
    // ln c in f's precision, not in c's (a float c would make a long double partial float-accurate).
    return std::array{detail::pow_exponent_partial(detail::like<std::remove_cvref_t<decltype(f)>>(c), f)};
  }
};

/// pow(a, b): expression^expression, expression^integer, expression^real constant, or
/// constant^expression; with two numbers, std::pow.
template <operand A, operand B>
constexpr auto pow(const A& a, const B& b) {
  if constexpr (expression<A> && expression<B>)
    return etad::apply(pow_op{}, a, b);
  else if constexpr (expression<A> && std::is_integral_v<B>)
    return etad::apply(powi_op{static_cast<int>(b)}, a);
  else if constexpr (expression<A>)
    return etad::apply(pow_constant_exponent_op<B>{b}, a);
  else if constexpr (expression<B>)
    return etad::apply(pow_constant_base_op<A>{a}, b);
  else {
    using std::pow;
    return pow(a, b);
  }
}

/// hypot(a, b) = sqrt(a^2 + b^2) without overflow. Partials a/f, b/f; at (0, 0), where hypot is
/// not differentiable, 0 and 0 (the smallest subgradient, as abs uses at 0).
struct hypot_op {
  static constexpr std::string_view name = "hypot";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { using std::hypot; return hypot(a, b); }
  static constexpr auto partials(const auto& a, const auto& b, const auto& f) {
    const bool origin = bool(f == 0);
    using T = decltype(a / f);
    return std::tuple{origin ? T{} : T(a / f), origin ? T{} : T(b / f)};
  }
};
template <operand A, operand B>
constexpr auto hypot(const A& a, const B& b) { return etad::apply(hypot_op{}, a, b); }

}  // namespace etad
