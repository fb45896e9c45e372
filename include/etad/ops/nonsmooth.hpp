// etad/ops/nonsmooth.hpp — abs, min/max, rounding and fma.
// Policy at kinks: abs'(0) = 0; min/max send the whole gradient to one argument (the first on a
// tie) and none to the other — not 0 * partial — so an infinite slope there cannot make a NaN.
#pragma once

#include <etad/core/rule.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>

namespace etad {

/// |x|. Domain R. d/dx = sign x, with sign 0 = 0 (a subgradient; TensorFlow's choice) and NaN
/// at NaN (on a nested tape, with a NaN second derivative too).
struct abs_op {
  static constexpr std::string_view name = "abs";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::abs; return abs(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    using T = std::remove_cvref_t<decltype(x)>;
    // At NaN the partial is x * x, not x: both are NaN, but on a nested tape the partial is a
    // real whose derivative is the second derivative, and that of x is 1 (abs''(NaN) came out 1);
    // that of x * x is 2 x, NaN.
    return std::array{bool(x > 0) ? T(1) : bool(x < 0) ? T(-1) : bool(x == 0) ? T(0) : T(x * x)};
  }
};
template <operand X> constexpr auto abs(const X& x) { return etad::apply(abs_op{}, x); }

namespace detail {
// Shared by the four min/max rules: the gradient goes to the argument whose value was chosen.
struct choice_rule {
  static constexpr std::size_t arity = 2;
  static constexpr auto partials_for(bool second, const auto& a) {
    using T = std::remove_cvref_t<decltype(a)>;
    return std::array{second ? T(0) : T(1), second ? T(1) : T(0)};
  }
};
}  // namespace detail

/// fmin(a, b): the smaller, ignoring a NaN argument. The gradient goes to the argument returned
/// (to a on a tie, to the non-NaN one if one is NaN). Both NaN: the value is NaN and the
/// gradient goes to b (a NaN a is always passed over).
struct fmin_op : detail::choice_rule {
  static constexpr std::string_view name = "fmin";
  static constexpr bool second(const auto& a, const auto& b) { return bool(b < a) || bool(a != a); }
  static constexpr auto value(const auto& a, const auto& b) { using std::fmin; return fmin(a, b); }
  static constexpr auto partials(const auto& a, const auto& b, const auto&) { return partials_for(second(a, b), a); }
  static constexpr bool gated = true;
  static constexpr auto gate(const auto& a, const auto& b, const auto&) { return std::array{!second(a, b), second(a, b)}; }
};
template <operand A, operand B> constexpr auto fmin(const A& a, const B& b) { return etad::apply(fmin_op{}, a, b); }

/// fmax(a, b): the larger, ignoring a NaN argument; gradient as fmin (both NaN: to b).
struct fmax_op : detail::choice_rule {
  static constexpr std::string_view name = "fmax";
  static constexpr bool second(const auto& a, const auto& b) { return bool(b > a) || bool(a != a); }
  static constexpr auto value(const auto& a, const auto& b) { using std::fmax; return fmax(a, b); }
  static constexpr auto partials(const auto& a, const auto& b, const auto&) { return partials_for(second(a, b), a); }
  static constexpr bool gated = true;
  static constexpr auto gate(const auto& a, const auto& b, const auto&) { return std::array{!second(a, b), second(a, b)}; }
};
template <operand A, operand B> constexpr auto fmax(const A& a, const B& b) { return etad::apply(fmax_op{}, a, b); }

/// min(a, b) with std::min's semantics: (b < a) ? b : a (so a NaN in a is returned, and with
/// it the gradient; both NaN: to a).
struct min_op : detail::choice_rule {
  static constexpr std::string_view name = "min";
  static constexpr bool second(const auto& a, const auto& b) { return bool(b < a); }
  static constexpr auto value(const auto& a, const auto& b) { return second(a, b) ? b : a; }
  static constexpr auto partials(const auto& a, const auto& b, const auto&) { return partials_for(second(a, b), a); }
  static constexpr bool gated = true;
  static constexpr auto gate(const auto& a, const auto& b, const auto&) { return std::array{!second(a, b), second(a, b)}; }
};
template <operand A, operand B> constexpr auto min(const A& a, const B& b) { return etad::apply(min_op{}, a, b); }

/// max(a, b) with std::max's semantics: (a < b) ? b : a.
struct max_op : detail::choice_rule {
  static constexpr std::string_view name = "max";
  static constexpr bool second(const auto& a, const auto& b) { return bool(a < b); }
  static constexpr auto value(const auto& a, const auto& b) { return second(a, b) ? b : a; }
  static constexpr auto partials(const auto& a, const auto& b, const auto&) { return partials_for(second(a, b), a); }
  static constexpr bool gated = true;
  static constexpr auto gate(const auto& a, const auto& b, const auto&) { return std::array{!second(a, b), second(a, b)}; }
};
template <operand A, operand B> constexpr auto max(const A& a, const B& b) { return etad::apply(max_op{}, a, b); }

/// floor, ceil, round, trunc: piecewise constant, so the gradient is 0 everywhere (also at the
/// jumps, where no derivative exists). No sweep enters their argument.
struct floor_op {
  static constexpr std::string_view name = "floor";
  static constexpr std::size_t arity = 1;
  static constexpr bool differentiable = false;
  static constexpr auto value(const auto& x) { using std::floor; return floor(x); }
};
template <operand X> constexpr auto floor(const X& x) { return etad::apply(floor_op{}, x); }

struct ceil_op {
  static constexpr std::string_view name = "ceil";
  static constexpr std::size_t arity = 1;
  static constexpr bool differentiable = false;
  static constexpr auto value(const auto& x) { using std::ceil; return ceil(x); }
};
template <operand X> constexpr auto ceil(const X& x) { return etad::apply(ceil_op{}, x); }

struct round_op {
  static constexpr std::string_view name = "round";
  static constexpr std::size_t arity = 1;
  static constexpr bool differentiable = false;
  static constexpr auto value(const auto& x) { using std::round; return round(x); }
};
template <operand X> constexpr auto round(const X& x) { return etad::apply(round_op{}, x); }

struct trunc_op {
  static constexpr std::string_view name = "trunc";
  static constexpr std::size_t arity = 1;
  static constexpr bool differentiable = false;
  static constexpr auto value(const auto& x) { using std::trunc; return trunc(x); }
};
template <operand X> constexpr auto trunc(const X& x) { return etad::apply(trunc_op{}, x); }

/// fma(a, b, c) = a b + c with one rounding. Domain R^3. Partials b, a, 1: the arguments
/// themselves, so an infinite or NaN factor is the other factor's partial as it is (no limit
/// taken), and the adjoint times it follows IEEE (inf * 0 = NaN). The single rounding of the
/// value does not enter the partials.
struct fma_op {
  static constexpr std::string_view name = "fma";
  static constexpr std::size_t arity = 3;
  static constexpr auto value(const auto& a, const auto& b, const auto& c) { using std::fma; return fma(a, b, c); }
  static constexpr auto partials(const auto& a, const auto& b, const auto&, const auto&) {
    using T = std::remove_cvref_t<decltype(a)>;
    return std::array{b, a, T(1)};
  }
};
template <operand A, operand B, operand C>
constexpr auto fma(const A& a, const B& b, const C& c) { return etad::apply(fma_op{}, a, b, c); }

}  // namespace etad
