// etad/ops/trigonometric.hpp — circular and hyperbolic functions and their inverses.
// Each op: one rule struct (value and partials, maths in the comment) and the function users call.
#pragma once

#include <etad/core/rule.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace etad {

/// sin x. Domain R. d/dx = cos x.
struct sin_op {
  static constexpr std::string_view name = "sin";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::sin; return sin(x); }
  static constexpr auto partials(const auto& x, const auto&) { using std::cos; return std::array{cos(x)}; }
};
template <operand X> constexpr auto sin(const X& x) { return etad::apply(sin_op{}, x); }

/// cos x. Domain R. d/dx = -sin x.
struct cos_op {
  static constexpr std::string_view name = "cos";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::cos; return cos(x); }
  static constexpr auto partials(const auto& x, const auto&) { using std::sin; return std::array{-sin(x)}; }
};
template <operand X> constexpr auto cos(const X& x) { return etad::apply(cos_op{}, x); }

/// tan x. Domain R without pi/2 + k pi. d/dx = 1 + tan^2 x (from f, no second call).
struct tan_op {
  static constexpr std::string_view name = "tan";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::tan; return tan(x); }
  static constexpr auto partials(const auto&, const auto& f) { return std::array{1 + f * f}; }
};
template <operand X> constexpr auto tan(const X& x) { return etad::apply(tan_op{}, x); }

/// asin x. Domain [-1, 1]. d/dx = 1/sqrt(1 - x^2): +inf at x = ±1, NaN outside the domain.
/// 1 - x^2 as (1 - x)(1 + x): near ±1, 1 - x * x loses the low bits of x * x (relative error
/// 2e-10 in double at x = 1 - 2^-32).
struct asin_op {
  static constexpr std::string_view name = "asin";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::asin; return asin(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    using std::sqrt;
    return std::array{1 / sqrt((1 - x) * (1 + x))};
  }
};
template <operand X> constexpr auto asin(const X& x) { return etad::apply(asin_op{}, x); }

/// acos x. Domain [-1, 1]. d/dx = -1/sqrt(1 - x^2), 1 - x^2 factored as for asin: -inf at
/// x = ±1, NaN outside the domain.
struct acos_op {
  static constexpr std::string_view name = "acos";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::acos; return acos(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    using std::sqrt;
    return std::array{-1 / sqrt((1 - x) * (1 + x))};
  }
};
template <operand X> constexpr auto acos(const X& x) { return etad::apply(acos_op{}, x); }

/// atan x. Domain R. d/dx = 1/(1 + x^2); 0 at ±inf.
struct atan_op {
  static constexpr std::string_view name = "atan";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::atan; return atan(x); }
  static constexpr auto partials(const auto& x, const auto&) { return std::array{1 / (1 + x * x)}; }
};
template <operand X> constexpr auto atan(const X& x) { return etad::apply(atan_op{}, x); }

/// atan2(y, x). Domain R^2 without (0, 0). d/dy = x/(x^2 + y^2), d/dx = -y/(x^2 + y^2).
/// At (0, 0): value as std::atan2, partials NaN (0/0): the angle has no derivative there.
struct atan2_op {
  static constexpr std::string_view name = "atan2";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& y, const auto& x) { using std::atan2; return atan2(y, x); }
  static constexpr auto partials(const auto& y, const auto& x, const auto&) {
    // Divided twice by hypot(x, y), not once by x^2 + y^2: the squares underflow (partials inf)
    // below about 1e-154 and overflow (partials 0) above 1e154 in double. Still 0/0 at (0, 0).
    using std::hypot;
    const auto r = hypot(x, y);
    return std::tuple{x / r / r, -y / r / r};  // a tuple: on nested reals these differ in type
  }
};
template <operand Y, operand X>
constexpr auto atan2(const Y& y, const X& x) { return etad::apply(atan2_op{}, y, x); }

/// sinh x. Domain R. d/dx = cosh x.
struct sinh_op {
  static constexpr std::string_view name = "sinh";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::sinh; return sinh(x); }
  static constexpr auto partials(const auto& x, const auto&) { using std::cosh; return std::array{cosh(x)}; }
};
template <operand X> constexpr auto sinh(const X& x) { return etad::apply(sinh_op{}, x); }

/// cosh x. Domain R. d/dx = sinh x.
struct cosh_op {
  static constexpr std::string_view name = "cosh";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::cosh; return cosh(x); }
  static constexpr auto partials(const auto& x, const auto&) { using std::sinh; return std::array{sinh(x)}; }
};
template <operand X> constexpr auto cosh(const X& x) { return etad::apply(cosh_op{}, x); }

/// tanh x. Domain R. d/dx = 1 - tanh^2 x (from f; exactly 0 once tanh rounds to ±1).
struct tanh_op {
  static constexpr std::string_view name = "tanh";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::tanh; return tanh(x); }
  static constexpr auto partials(const auto&, const auto& f) { return std::array{1 - f * f}; }
};
template <operand X> constexpr auto tanh(const X& x) { return etad::apply(tanh_op{}, x); }

/// asinh x. Domain R. d/dx = 1/sqrt(x^2 + 1), computed as 1/hypot(x, 1) (x^2 would overflow
/// beyond 1e154 in double and give 0 instead of about 1/|x|).
struct asinh_op {
  static constexpr std::string_view name = "asinh";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::asinh; return asinh(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    using std::hypot;
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{1 / hypot(x, T(1))};
  }
};
template <operand X> constexpr auto asinh(const X& x) { return etad::apply(asinh_op{}, x); }

/// acosh x. Domain [1, inf). d/dx = 1/(sqrt(x - 1) sqrt(x + 1)) (factored: no cancellation in
/// x^2 - 1 near 1); +inf at x = 1, NaN below.
struct acosh_op {
  static constexpr std::string_view name = "acosh";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::acosh; return acosh(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    using std::sqrt;
    return std::array{1 / (sqrt(x - 1) * sqrt(x + 1))};
  }
};
template <operand X> constexpr auto acosh(const X& x) { return etad::apply(acosh_op{}, x); }

/// atanh x. Domain (-1, 1). d/dx = 1/((1 - x)(1 + x)) (factored for accuracy near ±1);
/// +inf at ±1, negative (sign of the formula) outside, where the value is NaN.
struct atanh_op {
  static constexpr std::string_view name = "atanh";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::atanh; return atanh(x); }
  static constexpr auto partials(const auto& x, const auto&) { return std::array{1 / ((1 - x) * (1 + x))}; }
};
template <operand X> constexpr auto atanh(const X& x) { return etad::apply(atanh_op{}, x); }

}  // namespace etad
