// etad/ops/trigonometric.hpp — circular and hyperbolic functions and their inverses.
// Each op: one rule struct (value and partials, maths in the comment) and the function users call.
#pragma once

#include <etad/core/rule.hpp>
#include <etad/ops/detail/numbers.hpp>
#include <etad/ops/exponential.hpp>
#include <etad/ops/nonsmooth.hpp>
#include <etad/ops/power.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
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
  static constexpr bool partials_need_value = false;
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
  static constexpr bool partials_need_value = false;
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
  static constexpr bool partials_need_value = false;
  static constexpr auto value(const auto& x) { using std::atan; return atan(x); }
  static constexpr auto partials(const auto& x, const auto&) { return std::array{1 / (1 + x * x)}; }
};
template <operand X> constexpr auto atan(const X& x) { return etad::apply(atan_op{}, x); }

/// atan2(y, x). Domain R^2 without (0, 0). d/dy = x/(x^2 + y^2), d/dx = -y/(x^2 + y^2).
/// At (0, 0): value as std::atan2, partials NaN (0/0): the angle has no derivative there.
/// Where r = hypot(x, y) is infinite: 0 and 0 (with the formula's signs), the limits, since the
/// gradient's length is 1/r; also where both are infinite (std::atan2 gives ±pi/4 or ±3pi/4
/// there, and every direction has the limit 0). NaN if an argument is NaN.
struct atan2_op {
  static constexpr std::string_view name = "atan2";
  static constexpr std::size_t arity = 2;
  static constexpr bool partials_need_value = false;
  static constexpr auto value(const auto& y, const auto& x) { using std::atan2; return atan2(y, x); }
  static constexpr auto partials(const auto& y, const auto& x, const auto& f) {
    // Divided twice by hypot(x, y), not once by x^2 + y^2: the squares underflow (partials inf)
    // below about 1e-154 and overflow (partials 0) above 1e154 in double. Still 0/0 at (0, 0).
    // At an infinite argument x/r is inf/inf = NaN: there the cosine and sine of the direction
    // are hypot's limits (detail::hypot_partials_at_infinity), divided by r = inf. A tuple of
    // F, converted here (the sweep would) so that both branches have one type; on a nested
    // tape r is then one recorded real instead of a hypot node in each of the four uses.
    using std::hypot;
    using F = std::remove_cvref_t<decltype(f)>;
    const F r = hypot(x, y);
    if (bool(r < detail::like<F>(std::numeric_limits<long double>::infinity())))
      return std::tuple<F, F>{x / r / r, -y / r / r};
    const auto [c, s] = detail::hypot_partials_at_infinity(x, y, r);
    return std::tuple<F, F>{c / r, -s / r};
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

/// tanh x. Domain R. d/dx = sech^2 x = 1 - tanh^2 x, to a few ulps over all of R (against
/// __float128 at 3e6 points per type: at most 1.8 ulps for |x| < 0.55 and 4.3 beyond, in float,
/// double and long double); exactly 0 at ±inf and once e^(-2|x|) underflows (|x| > 372.6 in
/// double, 52.0 in float, 5699.7 in long double); NaN at NaN.
struct tanh_op {
  static constexpr std::string_view name = "tanh";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::tanh; return tanh(x); }
  static constexpr auto partials(const auto& x, const auto& f) {
    // 1 - f^2 cancels as |f| -> 1: f's own error (up to 2.1 ulps, glibc's tanh) is amplified by
    // 2 f^2 / (1 - f^2) = 2 sinh^2 x, so 1 - f*f was 1e-5 wrong at x = 14 in double, 77 % at 19,
    // and 0 from 19.1 on, where f rounds to 1 (96 % wrong at 9 in float). It is kept where that
    // factor is at most 2/3, f^2 < 1/4 (|x| < atanh(1/2) = 0.549): one multiply-subtract, as a
    // hand-written gradient does. Elsewhere sech^2 x = 4 t / (1 + t)^2 with t = e^(-2|x|) (no
    // cancellation; exactly 0 once t underflows), which costs an exp where the first branch
    // would have lost accuracy. Both written with etad's functions, so on a nested tape the
    // partial is differentiated again (abs is smooth where the second branch is taken).
    using std::abs, std::exp;
    using F = std::remove_cvref_t<decltype(f)>;
    const auto f2 = f * f;
    if (bool(f2 < detail::like<F>(0.25L))) return std::array<F, 1>{1 - f2};
    const F t = exp(-2 * abs(x));
    return std::array<F, 1>{4 * t / ((1 + t) * (1 + t))};
  }
};
template <operand X> constexpr auto tanh(const X& x) { return etad::apply(tanh_op{}, x); }

/// asinh x. Domain R. d/dx = 1/sqrt(x^2 + 1), computed as 1/hypot(x, 1) (x^2 would overflow
/// beyond 1e154 in double and give 0 instead of about 1/|x|).
struct asinh_op {
  static constexpr std::string_view name = "asinh";
  static constexpr std::size_t arity = 1;
  static constexpr bool partials_need_value = false;
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
  static constexpr bool partials_need_value = false;
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
  static constexpr bool partials_need_value = false;
  static constexpr auto value(const auto& x) { using std::atanh; return atanh(x); }
  static constexpr auto partials(const auto& x, const auto&) { return std::array{1 / ((1 - x) * (1 + x))}; }
};
template <operand X> constexpr auto atanh(const X& x) { return etad::apply(atanh_op{}, x); }

}  // namespace etad
