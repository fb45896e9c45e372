// etad/ops/exponential.hpp — exponentials and logarithms.
// Derivatives reuse the value f where that is exact (exp' = exp), saving a second call.
#pragma once

#include <etad/core/rule.hpp>
#include <etad/ops/detail/numbers.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>

namespace etad {

/// e^x. Domain R. d/dx = f: 0 at -inf (and where e^x underflows), +inf at +inf.
struct exp_op {
  static constexpr std::string_view name = "exp";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::exp; return exp(x); }
  static constexpr auto partials(const auto&, const auto& f) { return std::array{f}; }
};
template <operand X> constexpr auto exp(const X& x) { return etad::apply(exp_op{}, x); }

/// 2^x. Domain R. d/dx = f ln 2: 0 at -inf (and where 2^x underflows), +inf at +inf.
struct exp2_op {
  static constexpr std::string_view name = "exp2";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::exp2; return exp2(x); }
  static constexpr auto partials(const auto&, const auto& f) {
    return std::array{f * detail::like<std::remove_cvref_t<decltype(f)>>(detail::ln2)};
  }
};
template <operand X> constexpr auto exp2(const X& x) { return etad::apply(exp2_op{}, x); }

/// e^x - 1, accurate near 0. Domain R. d/dx = e^x, computed as exp(x): f + 1 cancels for
/// negative x (relative error 2e-8 at x = -20, and 0 instead of e^x from x = -38 on).
struct expm1_op {
  static constexpr std::string_view name = "expm1";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::expm1; return expm1(x); }
  static constexpr auto partials(const auto& x, const auto&) { using std::exp; return std::array{exp(x)}; }
};
template <operand X> constexpr auto expm1(const X& x) { return etad::apply(expm1_op{}, x); }

/// ln x. Domain (0, inf). d/dx = 1/x: +inf at 0 and at -0 (where the value is -inf); NaN value
/// below 0 (the partial there is the formula's, negative).
struct log_op {
  static constexpr std::string_view name = "log";
  static constexpr std::size_t arity = 1;
  static constexpr bool partials_need_value = false;
  static constexpr auto value(const auto& x) { using std::log; return log(x); }
  // x + 0: at x = -0, 1/x would be -inf, the slope from the side where log is not defined
  // (log(-x) at 0 had gradient +inf); -0 + 0 is +0, and nothing else changes.
  static constexpr auto partials(const auto& x, const auto&) { return std::array{1 / (x + 0)}; }
};
template <operand X> constexpr auto log(const X& x) { return etad::apply(log_op{}, x); }

/// log2 x. Domain (0, inf). d/dx = 1/(x ln 2); +inf at ±0, as log.
struct log2_op {
  static constexpr std::string_view name = "log2";
  static constexpr std::size_t arity = 1;
  static constexpr bool partials_need_value = false;
  static constexpr auto value(const auto& x) { using std::log2; return log2(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    return std::array{1 / ((x + 0) * detail::like<std::remove_cvref_t<decltype(x)>>(detail::ln2))};
  }
};
template <operand X> constexpr auto log2(const X& x) { return etad::apply(log2_op{}, x); }

/// log10 x. Domain (0, inf). d/dx = 1/(x ln 10); +inf at ±0, as log.
struct log10_op {
  static constexpr std::string_view name = "log10";
  static constexpr std::size_t arity = 1;
  static constexpr bool partials_need_value = false;
  static constexpr auto value(const auto& x) { using std::log10; return log10(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    return std::array{1 / ((x + 0) * detail::like<std::remove_cvref_t<decltype(x)>>(detail::ln10))};
  }
};
template <operand X> constexpr auto log10(const X& x) { return etad::apply(log10_op{}, x); }

/// ln(1 + x), accurate near 0. Domain (-1, inf). d/dx = 1/(1 + x); +inf at -1 (where the value
/// is -inf), 0 at +inf. Below -1 the value is NaN and the partial the formula's, negative (as
/// log below 0; -0 at -inf).
struct log1p_op {
  static constexpr std::string_view name = "log1p";
  static constexpr std::size_t arity = 1;
  static constexpr bool partials_need_value = false;
  static constexpr auto value(const auto& x) { using std::log1p; return log1p(x); }
  static constexpr auto partials(const auto& x, const auto&) { return std::array{1 / (1 + x)}; }
};
template <operand X> constexpr auto log1p(const X& x) { return etad::apply(log1p_op{}, x); }

}  // namespace etad
