// etad/ops/power.hpp — roots, powers and hypot.
// pow picks one of four rules from its argument types, so a constant exponent or base never
// costs the logarithm (or the NaN) of the partial it does not need.
#pragma once

#include <etad/core/rule.hpp>
#include <etad/ops/detail/numbers.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace etad {

/// sqrt x. Domain [0, inf). d/dx = 1/(2 f): +inf at x = 0 (the one-sided slope), also at -0,
/// NaN below 0.
struct sqrt_op {
  static constexpr std::string_view name = "sqrt";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::sqrt; return sqrt(x); }
  static constexpr auto partials(const auto&, const auto& f) {
    // sqrt(-0) = -0 (IEEE), and 1/(2 * -0) = -inf: the wrong side's slope (sqrt(-x) at 0 had
    // gradient +inf). + 0 makes the zero +0 and changes nothing else (not even on nested reals).
    return std::array{1 / (2 * f + 0)};
  }
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
// a^n as g++ 12 and clang 14 compute std::pow with a constant exponent when optimizing (-O1 and
// up): n = 2 as a * a, n = -1 as 1 / a, n = 1 as a, n = 0 as 1 (each correctly rounded; glibc's
// pow differs from a * a in the last bit for about 0.1 % of a). An exponent is a constant where
// etad evaluates it only when the rule is inlined there (the static front door, mostly; the
// tape's record() not always), so the rules decide it themselves, and the value is the plain
// expression's either way. (At -O0 the plain expression calls glibc's pow; etad's value is then
// the correctly rounded one.) Other exponents, and non-arithmetic a (reals of a nested tape): pow.
template <class A, class N>
constexpr auto pow_folded(const A& a, const N& n) {
  using std::pow;
  using R = decltype(pow(a, n));
  if constexpr (std::is_arithmetic_v<A> && std::is_arithmetic_v<N> && std::is_arithmetic_v<R>) {
    if (n == 2) return R(R(a) * R(a));
    if (n == -1) return R(R(1) / R(a));
    if (n == 1) return R(a);
    if (n == 0) return R(1);
  }
  return pow(a, n);
}

// The conventions at the singular points below are applied to the operands, not to the result:
// the result keeps the type of the formula, and at the singular point its operands are numbers
// for which the formula itself gives 0. (A value-initialised result, `decltype(d){}`, is 0 only
// for a number: on a nested tape the partial is an expression of reals, and its value-initialised
// leaves gave 0 * inf or 0 * log 0 = NaN.)

// d/da a^b = b a^(b-1), or, where `constant` says so (b = 0), 0 computed as 0 * a^0: a^0 is
// constant, also at a = 0 where the formula would give 0 * inf.
constexpr auto pow_base_partial_or_zero(const auto& a, const auto& b, bool constant) {
  using B = std::remove_cvref_t<decltype(b)>;
  return (constant ? B(0) : b) * pow_folded(a, (constant ? B(1) : b) - 1);
}
// For a constant exponent: 0 * a^0 whenever b = 0.
constexpr auto pow_base_partial(const auto& a, const auto& b) {
  return pow_base_partial_or_zero(a, b, bool(b == 0));
}
// For an exponent that is an expression (pow_op): at b = 0 with a and 1/a finite, the formula
// b a^(b-1) itself gives 0, and it is kept, so that on a nested tape this partial still depends
// on b: d/db (b a^(b-1)) = a^(b-1) (1 + b ln a) = 1/a at b = 0 is the mixed second derivative,
// which the constant 0 * a^0 lost (f_ab of a^b at (2, 0) came out 0 instead of 1/2). At a = 0,
// a infinite or NaN, and a subnormal (1/a overflows: 0 * inf), 0 * a^0 as above. (On a nested
// tape, f_aa = b (b - 1) a^(b-2) at b = 0 is then 0 * a^-2: NaN where a^-2 overflows,
// |a| < 1.5e-154 in double.)
constexpr bool pow_base_formula_finite(const auto& a) {
  const auto r = 1 / a;
  return bool(a - a == 0) && bool(r - r == 0);  // a and 1/a finite (a = 0: 1/a = inf)
}
constexpr auto pow_variable_base_partial(const auto& a, const auto& b) {
  return pow_base_partial_or_zero(a, b, bool(b == 0) && !pow_base_formula_finite(a));
}
// d/db a^b = a^b ln a, taken as 0 at a = 0 (the limit from b > 0, where a^b = 0) instead of
// 0 * -inf: there it is computed as 0 * ln 1. For a < 0 it is NaN: a^b is real there only at
// integer b. Second derivatives at a = 0 (nested tapes) are not the limits: this convention is a
// constant there, while the true f_ab = a^(b-1) (1 + b ln a) tends to -inf for 0 < b <= 1, and
// the base partial's derivative in b follows its own convention, so the two mixed entries of the
// Hessian differ there (at (0, 1): 1 and 0). pow is not twice differentiable at a = 0.
constexpr auto pow_exponent_partial(const auto& a, const auto& f) {
  using std::log;
  using A = std::remove_cvref_t<decltype(a)>;
  using F = std::remove_cvref_t<decltype(f)>;
  const bool zero = bool(a == 0);
  return (zero ? F(0) : f) * log(zero ? A(1) : a);
}

// Whether the integer e converts to the floating type A exactly. Decided by e's type where every
// value does (int in double; every 64-bit integer in x87's 64-bit significand), else |e| <= 2^d.
template <class A, class N>
constexpr bool integer_is_exact_in(const N& e) {
  constexpr int d = std::numeric_limits<A>::digits;
  if constexpr (std::numeric_limits<N>::digits <= d) {
    return true;
  } else {
    constexpr N bound = N(1) << d;
    if constexpr (std::is_signed_v<N>)
      return -bound <= e && e <= bound;
    else
      return e <= bound;
  }
}

// a^e for a floating a and an integer e of up to 64 bits, in a's own type: e converted to A where
// that is exact (|e| <= 2^24 for float, 2^53 for double: every exponent of practical use), and
// folded as pow_folded folds 2, -1, 1 and 0. Beyond, A(e) would round e, and an odd e to an even
// one ((-1)^(2^53 + 1) came out +1): computed in long double then (its 64-bit significand holds
// every 64-bit e on x86; where long double is double, e is rounded there, as by std::pow).
template <class A, class N>
constexpr A pow_integer(const A& a, const N& e) {
  if (integer_is_exact_in<A>(e)) return pow_folded(a, A(e));
  using std::pow;
  return A(pow(static_cast<long double>(a), static_cast<long double>(e)));
}

// The type basic_powi_op keeps an integer exponent of type B in: int where all of B's values fit
// (short, char, ...), else long long where they fit (unsigned int, long), else unsigned long long.
template <class B>
using powi_exponent_t = std::conditional_t<
    (std::numeric_limits<B>::digits <= std::numeric_limits<int>::digits), int,
    std::conditional_t<(std::numeric_limits<B>::digits <= std::numeric_limits<long long>::digits),
                       long long, unsigned long long>>;
}  // namespace detail

/// a^b for two expressions. Domain a > 0 (a < 0 only with integer b). Partials b a^(b-1) and
/// a^b ln a, with the conventions of detail::pow_variable_base_partial / pow_exponent_partial
/// at 0.
struct pow_op {
  static constexpr std::string_view name = "pow";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { using std::pow; return pow(a, b); }
  static constexpr auto partials(const auto& a, const auto& b, const auto& f) {
    return std::tuple{detail::pow_variable_base_partial(a, b), detail::pow_exponent_partial(a, f)};
  }
};

/// a^n for an integer n fixed at run time, of any integer type of up to 64 bits (I: int, long
/// long or unsigned long long, see detail::powi_exponent_t). Domain R (a != 0 for n < 0).
/// d/da = n a^(n-1); 0 for n = 0, whatever a is (even NaN or inf, where a^0 = 1).
/// The exponent is kept as the integer it is: casting it to int sent 5000000000 to 705032704 (at
/// a = 1 + 1e-10, a^n came out 1.073 instead of 1.6487), and n - 1 overflowed at INT_MIN. For a
/// floating a, a^n and a^(n-1) are computed in a's own type (a float base is not dragged up to
/// double, as std::pow(float, int) does), with the exponent exact (see detail::pow_integer);
/// n - 1 is computed as an integer except at the least value of a signed I, where it overflows:
/// there a^(n-1) is taken in long double (exact on x86). On a nested tape the partial is n times
/// powi again, with a^(n-1) = a^n / a at that least value.
template <class I>
struct basic_powi_op {
  static constexpr std::string_view name = "powi";
  static constexpr std::size_t arity = 1;
  I n;
  constexpr auto value(const auto& a) const {
    if constexpr (std::is_floating_point_v<std::remove_cvref_t<decltype(a)>>)
      return detail::pow_integer(a, n);
    else
      return detail::pow_folded(a, n);  // reals of a nested tape: powi on the outer tape
  }
  constexpr auto partials(const auto& a, const auto&) const {
    using A = std::remove_cvref_t<decltype(a)>;
    if constexpr (std::is_floating_point_v<A>) {
      // n = 0: 0, not 0 * a^-1 (0 * inf at a = 0; see detail::pow_base_partial).
      if (n == 0) return std::array{A(0)};
      if constexpr (std::is_signed_v<I>) {
        if (n == std::numeric_limits<I>::min()) {
          using std::pow;
          return std::array{A(n) * A(pow(static_cast<long double>(a), static_cast<long double>(n) - 1))};
        }
      }
      return std::array{A(n) * detail::pow_integer(a, I(n - 1))};
    } else {
      // n pow(a, n - 1) as before (n = 0: 0 * a^0), converted to A (a real) here rather than by
      // the sweep, so that both branches have one type.
      if constexpr (std::is_signed_v<I>) {
        if (n == std::numeric_limits<I>::min()) return std::array{A(n * (detail::pow_folded(a, n) / a))};
      }
      return std::array{A(n * detail::pow_folded(a, n == 0 ? I(0) : I(n - 1)))};
    }
  }
};
/// The integer-power rule for int exponents (and narrower types), as pow(x, 3) makes it.
using powi_op = basic_powi_op<int>;

/// a^c for a constant real exponent c. d/da = c a^(c-1) (0 for c = 0, whatever a is; +inf at
/// a = 0 for 0 < c < 1). At a = ±inf the formula under IEEE pow: +inf at +inf for c > 1, 0 for
/// c < 1 (+inf at -inf for an odd integer c > 1, the true slope). NaN at NaN a (c != 0), and
/// for a NaN or infinite c the formula's (NaN where it is inf * 0, c = inf at |a| < 1).
template <class C>
struct pow_constant_exponent_op {
  static constexpr std::string_view name = "pow";
  static constexpr std::size_t arity = 1;
  C c;
  constexpr auto value(const auto& a) const { return detail::pow_folded(a, c); }
  constexpr auto partials(const auto& a, const auto&) const {
    // c in a's precision: with a float c in a long double computation, c - 1 must not be rounded
    // to float.
    return std::array{detail::pow_base_partial(a, detail::like<std::remove_cvref_t<decltype(a)>>(c))};
  }
};

/// c^b for a constant base c. d/db = c^b ln c (0 at c = 0, whatever b is, also at a NaN b where
/// the value is NaN; NaN for c < 0). At b = ±inf the formula's: +inf or 0 as c^b is (-inf at
/// b = -inf for 0 < c < 1). c = 1: 1^b = 1 for every b, even NaN (IEEE), and the partial 0.
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
    return etad::apply(basic_powi_op<detail::powi_exponent_t<B>>{b}, a);
  else if constexpr (expression<A>)
    return etad::apply(pow_constant_exponent_op<B>{b}, a);
  else if constexpr (expression<B>)
    return etad::apply(pow_constant_base_op<A>{a}, b);
  else {
    using std::pow;
    return pow(a, b);
  }
}

namespace detail {
// Whether x is +inf or -inf (for reals of a nested tape too: compared with a double infinity).
constexpr bool is_infinite(const auto& x) {
  using X = std::remove_cvref_t<decltype(x)>;
  constexpr long double inf = std::numeric_limits<long double>::infinity();
  return bool(x == like<X>(inf)) || bool(x == like<X>(-inf));
}

// The partials a/f and b/f of f = hypot(a, b) where f is not finite, as their limits: a/f is the
// cosine of the direction of (a, b), and at an infinite argument the formula gives inf/inf = NaN.
// - an argument NaN: NaN and NaN (the formula's; hypot(inf, NaN) = inf, but NaN in, NaN out);
// - a infinite, b finite: sign(a) and b/f = ±0, the limits (the direction is a's axis); so for b;
// - both infinite: sign(a)/sqrt(2) and sign(b)/sqrt(2), the diagonal, as std::atan2(±inf, ±inf)
//   = ±pi/4 or ±3pi/4 takes it. No limit exists there (the gradient is a unit vector in any
//   direction); the diagonal is the one that makes hypot(x, x) = sqrt(2) |x| right at x = ±inf;
// - both finite, f overflowed (|a|, |b| near the largest finite number): computed at (a/2, b/2),
//   where hypot does not overflow (it gave 0 and 0 instead of about 0.7 at (max, max)).
// Constants except in the last case: on a nested tape the second derivatives at infinity are 0,
// the limit of (I - n n^T) / f.
template <class A, class B, class F>
constexpr std::tuple<F, F> hypot_partials_at_infinity(const A& a, const B& b, const F& f) {
  if (!bool(a == a) || !bool(b == b)) return {F(a / f), F(b / f)};
  const bool a_infinite = is_infinite(a), b_infinite = is_infinite(b);
  const auto sign = [](const auto& x) { return F(bool(x > 0) ? 1 : -1); };
  if (a_infinite && b_infinite) {
    const F diagonal = like<F>(0.707106781186547524400844362104849039L);
    return {F(sign(a) * diagonal), F(sign(b) * diagonal)};
  }
  if (a_infinite) return {sign(a), F(b / f)};
  if (b_infinite) return {F(a / f), sign(b)};
  using std::hypot;
  const F half = like<F>(0.5L);
  const F h = hypot(a * half, b * half);
  return {F(a * half / h), F(b * half / h)};
}
}  // namespace detail

/// hypot(a, b) = sqrt(a^2 + b^2) without overflow. Partials a/f, b/f; at (0, 0), where hypot is
/// not differentiable, 0 and 0 (the smallest subgradient, as abs uses at 0), constants there: on
/// a nested tape the second derivatives at (0, 0) are 0, as abs''(0) is. Where f is infinite
/// (an argument infinite, or both huge), the limits: d/da = sign(a) for an infinite a, 0 for a
/// finite one when b is infinite; (sign(a), sign(b)) / sqrt(2) when both are infinite; see
/// detail::hypot_partials_at_infinity. NaN if an argument is NaN.
struct hypot_op {
  static constexpr std::string_view name = "hypot";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { using std::hypot; return hypot(a, b); }
  static constexpr auto partials(const auto& a, const auto& b, const auto& f) {
    // At the origin a = b = 0: computed as 0 / 1 from constant operands (see
    // detail::pow_base_partial for why not as a value-initialised result). Not as a / 1 and
    // b / 1: on a nested tape their derivatives made the Hessian at (0, 0) the identity, where
    // hypot(x, 0) = |x| has abs''(0) = 0 and the true Hessian (I - n n^T) / f is unbounded.
    // The partials are converted to F here (the sweep would), so that both branches have one
    // type; the finite branch costs one comparison more than the formula.
    using A = std::remove_cvref_t<decltype(a)>;
    using B = std::remove_cvref_t<decltype(b)>;
    using F = std::remove_cvref_t<decltype(f)>;
    if (!bool(f < detail::like<F>(std::numeric_limits<long double>::infinity())))
      return detail::hypot_partials_at_infinity(a, b, f);  // f infinite or NaN
    const bool origin = bool(f == 0);
    const F d = origin ? F(1) : f;
    return std::tuple<F, F>{(origin ? A(0) : a) / d, (origin ? B(0) : b) / d};
  }
};
template <operand A, operand B>
constexpr auto hypot(const A& a, const B& b) { return etad::apply(hypot_op{}, a, b); }

}  // namespace etad
