// tests/ops/trigonometric_test.cpp — sin ... atanh and atan2: gradients against finite
// differences at seeded points, closed forms, the documented behaviour at singular points and
// infinities, and tanh's slope in ulps over all of R (also differentiated twice).
#include "support/finite_difference.hpp"
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

using etad_test::binary;
using etad_test::check_ops;
using etad_test::unary;

TEST_CASE("trigonometric: gradients match finite differences", "[ops][trigonometric]") {
  // Domains stop 0.01 short of the singular points. tanh over [-30, 30] with the default
  // tolerances: its slope is no longer 1 - f^2, which float's rounding of f made 3e-4 wrong at
  // |x| = 5 (beyond about |x| = 8 the finite difference itself is noise: see the ulp test below).
  check_ops(unary("sin", [](auto x) { return etad::sin(x); }, {-10, 10}),
            unary("cos", [](auto x) { return etad::cos(x); }, {-10, 10}),
            unary("tan", [](auto x) { return etad::tan(x); }, {-1.5, 1.5}),
            unary("asin", [](auto x) { return etad::asin(x); }, {-0.99, 0.99}),
            unary("acos", [](auto x) { return etad::acos(x); }, {-0.99, 0.99}),
            unary("atan", [](auto x) { return etad::atan(x); }, {-10, 10}),
            binary("atan2", [](auto y, auto x) { return etad::atan2(y, x); }, {-10, 10}, {-10, 10}),
            unary("sinh", [](auto x) { return etad::sinh(x); }, {-5, 5}),
            unary("cosh", [](auto x) { return etad::cosh(x); }, {-5, 5}),
            unary("tanh", [](auto x) { return etad::tanh(x); }, {-30, 30}),
            unary("tanh near 0", [](auto x) { return etad::tanh(x); }, {-1, 1}),
            unary("asinh", [](auto x) { return etad::asinh(x); }, {-10, 10}),
            unary("acosh", [](auto x) { return etad::acosh(x); }, {1.01, 10}),
            unary("atanh", [](auto x) { return etad::atanh(x); }, {-0.99, 0.99}));
}

TEST_CASE("trigonometric: atan2 with one constant argument", "[ops][trigonometric]") {
  check_ops(unary("atan2(1.0, x)", [](auto x) { return etad::atan2(1.0, x); }, {-10, 10}),
            unary("atan2(x, 2)", [](auto x) { return etad::atan2(x, 2); }, {-10, 10}),
            unary("atan2(-1.5f, x)", [](auto x) { return etad::atan2(-1.5f, x); }, {-10, 10}),
            unary("atan2(x, -3.0L)", [](auto x) { return etad::atan2(x, -3.0L); }, {-10, 10}));
}

TEST_CASE("trigonometric: compositions and unqualified calls", "[ops][trigonometric]") {
  check_ops(binary("sin(x y) + cos(x) / cosh(y)",
                   [](auto x, auto y) { return etad::sin(x * y) + etad::cos(x) / etad::cosh(y); },
                   {-3, 3}, {-3, 3}),
            unary("atan(tanh(x)) * asinh(2 x)",
                  [](auto x) { return etad::atan(etad::tanh(x)) * etad::asinh(2 * x); }, {-3, 3}));
  // Inside f, ADL finds etad's functions for placeholders without qualification.
  const auto [v, g] = etad::gradient([](auto x, auto y) { return sin(x) * cos(y) + atan2(y, x); }, 0.5, 2.0);
  CHECK(v == Approx(std::sin(0.5) * std::cos(2.0) + std::atan2(2.0, 0.5)));
  CHECK(g[0] == Approx(std::cos(0.5) * std::cos(2.0) - 2.0 / 4.25));
  CHECK(g[1] == Approx(-std::sin(0.5) * std::sin(2.0) + 0.5 / 4.25));
}

TEMPLATE_TEST_CASE("trigonometric: closed-form derivatives", "[ops][trigonometric]", float, double, long double) {
  using T = TestType;
  const auto d = [](auto f, T x) { return static_cast<long double>(etad::gradient(f, x).gradient[0]); };
  const long double e = 8 * std::numeric_limits<T>::epsilon();
  CHECK(d([](auto x) { return etad::sin(x); }, T(0)) == 1);
  CHECK(d([](auto x) { return etad::cos(x); }, T(0)) == 0);
  CHECK(d([](auto x) { return etad::tan(x); }, T(0)) == 1);
  CHECK(d([](auto x) { return etad::tan(x); }, T(0.5)) == Approx(1 / (std::cos(0.5L) * std::cos(0.5L))).epsilon(e));
  CHECK(d([](auto x) { return etad::asin(x); }, T(0.5)) == Approx(2 / std::sqrt(3.0L)).epsilon(e));
  CHECK(d([](auto x) { return etad::acos(x); }, T(0.5)) == Approx(-2 / std::sqrt(3.0L)).epsilon(e));
  // Near 1: x = 1 - 2^-k with x^2's last bits below T's precision; exactly, 1 - x^2 =
  // 2^-k (2 - 2^-k).
  {
    const int k = std::numeric_limits<T>::digits * 3 / 5;
    const T x = T(1) - std::ldexp(T(1), -k);
    const long double slope = 1 / std::sqrt(std::ldexp(2 - std::ldexp(1.0L, -k), -k));
    CHECK(d([](auto x) { return etad::asin(x); }, x) == Approx(slope).epsilon(e));
    CHECK(d([](auto x) { return etad::acos(x); }, -x) == Approx(-slope).epsilon(e));
  }
  CHECK(d([](auto x) { return etad::atan(x); }, T(2)) == Approx(0.2L).epsilon(e));
  CHECK(d([](auto x) { return etad::sinh(x); }, T(0)) == 1);
  CHECK(d([](auto x) { return etad::cosh(x); }, T(0)) == 0);
  CHECK(d([](auto x) { return etad::tanh(x); }, T(0)) == 1);
  CHECK(d([](auto x) { return etad::asinh(x); }, T(0.75)) == Approx(0.8L).epsilon(e));  // 1/sqrt(1 + 9/16)
  CHECK(d([](auto x) { return etad::acosh(x); }, T(1.25)) == Approx(4 / 3.0L).epsilon(e));  // 1/sqrt(25/16 - 1)
  CHECK(d([](auto x) { return etad::atanh(x); }, T(0.5)) == Approx(4 / 3.0L).epsilon(e));
  const auto a = etad::gradient([](auto y, auto x) { return etad::atan2(y, x); }, T(3), T(-4));
  CHECK(a.value == Approx(std::atan2(3.0L, -4.0L)).epsilon(e));
  CHECK(a.gradient[0] == Approx(-4 / 25.0L).epsilon(e));  // x / (x^2 + y^2)
  CHECK(a.gradient[1] == Approx(-3 / 25.0L).epsilon(e));  // -y / (x^2 + y^2)
}

TEMPLATE_TEST_CASE("trigonometric: domain edges and singular points", "[ops][trigonometric]", float, double, long double) {
  using T = TestType;
  const T tinf = std::numeric_limits<T>::infinity();
  const auto g = [](auto f, T x) { return etad::gradient(f, x); };
  const auto asin = [](auto x) { return etad::asin(x); };
  const auto acos = [](auto x) { return etad::acos(x); };
  // asin'(±1) = +inf, acos'(±1) = -inf (the one-sided slopes); NaN outside [-1, 1].
  CHECK(g(asin, T(1)).gradient[0] == tinf);
  CHECK(g(asin, T(-1)).gradient[0] == tinf);
  CHECK(g(acos, T(1)).gradient[0] == -tinf);
  CHECK(g(acos, T(-1)).gradient[0] == -tinf);
  CHECK(std::isnan(g(asin, T(1.5)).value));
  CHECK(std::isnan(g(asin, T(1.5)).gradient[0]));
  CHECK(std::isnan(g(acos, T(-2)).gradient[0]));
  // acosh'(1) = +inf, NaN below 1.
  CHECK(g([](auto x) { return etad::acosh(x); }, T(1)).gradient[0] == tinf);
  CHECK(std::isnan(g([](auto x) { return etad::acosh(x); }, T(0.5)).gradient[0]));
  // atanh'(±1) = +inf, with value ±inf.
  const auto atanh = [](auto x) { return etad::atanh(x); };
  CHECK(g(atanh, T(1)).value == tinf);
  CHECK(g(atanh, T(1)).gradient[0] == tinf);
  CHECK(g(atanh, T(-1)).gradient[0] == tinf);
  // atanh outside (-1, 1): value NaN, partial by the formula 1/((1 - x)(1 + x)) (negative).
  CHECK(std::isnan(g(atanh, T(2)).value));
  CHECK(g(atanh, T(2)).gradient[0] == Approx(-1 / 3.0L));
  // tan at pi/2 rounded to T is finite but huge. Its slope, 1/cos^2 x, independently of tan:
  // cos x = sin(pi/2 - x), with pi/2 - x = (p1 - x) + p2 (p1 + p2 = pi/2 to 128 bits, p1 - x
  // exact) in long double, where sin of it is accurate. A few ulps of T.
  {
    const long double p1 = 0xc.90fdaa22168c235p-3L;          // pi/2 rounded to 64 bits
    const long double p2 = -2.508278806334166011778663540165e-20L;  // pi/2 - p1
    const T x = static_cast<T>(p1);
    const long double c = std::sin((p1 - x) + p2);
    const auto t = g([](auto v) { return etad::tan(v); }, x);
    CAPTURE(x, c, t.value);
    CHECK(std::fabs(t.value) > 1e7);
    CHECK(etad_test::close(t.gradient[0], 1 / (c * c), 4 * std::numeric_limits<T>::epsilon()));
  }
  // atan2 at (0, 0): value as std::atan2, both partials NaN.
  const auto a = etad::gradient([](auto y, auto x) { return etad::atan2(y, x); }, T(0), T(0));
  CHECK(a.value == 0);
  CHECK(std::isnan(a.gradient[0]));
  CHECK(std::isnan(a.gradient[1]));
  // atan2 on the negative x axis: the value jumps, the partials are those of the formula.
  const auto b = etad::gradient([](auto y, auto x) { return etad::atan2(y, x); }, T(0), T(-2));
  CHECK(b.gradient[0] == Approx(-0.5L));
  CHECK(b.gradient[1] == 0);
}

TEMPLATE_TEST_CASE("trigonometric: infinite and NaN inputs", "[ops][trigonometric]", float, double, long double) {
  using T = TestType;
  const T tinf = std::numeric_limits<T>::infinity();
  const T tnan = std::numeric_limits<T>::quiet_NaN();
  const auto g = [](auto f, T x) { return etad::gradient(f, x); };
  // Saturating functions have slope exactly 0 at ±inf.
  for (const T x : {tinf, -tinf}) {
    CAPTURE(x);
    CHECK(g([](auto v) { return etad::atan(v); }, x).gradient[0] == 0);
    CHECK(g([](auto v) { return etad::tanh(v); }, x).gradient[0] == 0);
    CHECK(g([](auto v) { return etad::asinh(v); }, x).gradient[0] == 0);
  }
  // tanh rounds to ±1 long before its slope underflows: at ±50 the value is 1 and the slope
  // sech^2 50 = 1.5e-43 (not 1 - 1 * 1 = 0; subnormal in float); exactly 0 only once e^(-2|x|)
  // underflows (|x| > 372.6 in double, 52 in float, 5699.7 in long double).
  const T far = std::is_same_v<T, float> ? T(60) : std::is_same_v<T, double> ? T(400) : T(6000);
  for (const T x : {T(50), T(-50)}) {
    CAPTURE(x);
    const auto r = g([](auto v) { return etad::tanh(v); }, x);
    CHECK(r.value == (x > 0 ? 1 : -1));
    const long double c = std::cosh(static_cast<long double>(x));
    CHECK(etad_test::close(r.gradient[0], 1 / (c * c), 8 * std::numeric_limits<T>::epsilon(),
                           4 * std::numeric_limits<T>::denorm_min()));
    CHECK(r.gradient[0] > 0);
    CHECK(g([](auto v) { return etad::tanh(v); }, x > 0 ? far : -far).gradient[0] == 0);
  }
  CHECK(g([](auto v) { return etad::acosh(v); }, tinf).gradient[0] == 0);
  CHECK(g([](auto v) { return etad::sinh(v); }, tinf).gradient[0] == tinf);
  CHECK(g([](auto v) { return etad::cosh(v); }, -tinf).gradient[0] == -tinf);
  // sin, cos and tan of an infinity are NaN, and so are their slopes (cos x, -sin x, 1 + f^2).
  for (const T x : {tinf, -tinf}) {
    CAPTURE(x);
    for (const auto& r : {g([](auto v) { return etad::sin(v); }, x), g([](auto v) { return etad::cos(v); }, x),
                          g([](auto v) { return etad::tan(v); }, x)}) {
      CHECK(std::isnan(r.value));
      CHECK(std::isnan(r.gradient[0]));
    }
  }
  // NaN in, NaN value and NaN gradient out, for every op.
  const auto nan_through = [&](auto f) {
    const auto r = g(f, tnan);
    return std::isnan(r.value) && std::isnan(r.gradient[0]);
  };
  CHECK(nan_through([](auto x) { return etad::sin(x); }));
  CHECK(nan_through([](auto x) { return etad::cos(x); }));
  CHECK(nan_through([](auto x) { return etad::tan(x); }));
  CHECK(nan_through([](auto x) { return etad::asin(x); }));
  CHECK(nan_through([](auto x) { return etad::acos(x); }));
  CHECK(nan_through([](auto x) { return etad::atan(x); }));
  CHECK(nan_through([](auto x) { return etad::sinh(x); }));
  CHECK(nan_through([](auto x) { return etad::cosh(x); }));
  CHECK(nan_through([](auto x) { return etad::tanh(x); }));
  CHECK(nan_through([](auto x) { return etad::asinh(x); }));
  CHECK(nan_through([](auto x) { return etad::acosh(x); }));
  CHECK(nan_through([](auto x) { return etad::atanh(x); }));
  CHECK(nan_through([](auto x) { return etad::atan2(x, 1.0); }));
  CHECK(nan_through([](auto x) { return etad::atan2(1.0, x); }));
}

TEST_CASE("trigonometric: no overflow or underflow inside the partials", "[ops][trigonometric]") {
  // atan2's partials x/(x^2 + y^2), -y/(x^2 + y^2) are representable wherever x, y are, but the
  // squares are not: at 1e-170 they underflow (partials inf), at 1e160 they overflow (partials 0).
  const auto atan2 = [](auto y, auto x) { return etad::atan2(y, x); };
  const auto tiny = etad::gradient(atan2, 1e-170, 1e-170);
  CHECK(tiny.gradient[0] == Approx(5e169));
  CHECK(tiny.gradient[1] == Approx(-5e169));
  const auto huge = etad::gradient(atan2, 3e160, 4e160);
  CHECK(huge.gradient[0] == Approx(4e160 / 25e320L));
  CHECK(huge.gradient[1] == Approx(-3e160 / 25e320L));
  // asinh'(x) = 1/sqrt(x^2 + 1) ~ 1/|x|: x^2 overflows beyond 1.3e154.
  CHECK(etad::gradient([](auto x) { return etad::asinh(x); }, 1e200).gradient[0] == Approx(1e-200));
  CHECK(etad::gradient([](auto x) { return etad::asinh(x); }, -1e200).gradient[0] == Approx(1e-200));
  CHECK(etad::gradient([](auto x) { return etad::asinh(x); }, 1e30f).gradient[0] == Approx(1e-30f));
}

namespace {

/// The error of `got` in units of `eps * |want|` (want's relative precision in T), with an
/// absolute floor of a few of T's smallest subnormals, for values that underflow in T.
template <class T>
long double relative_error(T got, long double want) {
  const long double d = std::fabs(static_cast<long double>(got) - want);
  if (std::isnan(d)) return std::numeric_limits<long double>::infinity();
  if (d <= 4 * static_cast<long double>(std::numeric_limits<T>::denorm_min())) return 0;
  return d / (std::fabs(want) * std::numeric_limits<T>::epsilon());
}

using etad_tape_test::first_and_second;

}  // namespace

TEMPLATE_TEST_CASE("trigonometric: tanh's slope to a few ulps over all of R", "[ops][trigonometric]", float, double,
                   long double) {
  // sech^2 x = 1 / cosh^2 x in long double, which knows nothing of the rule's two branches. The
  // rule is measured within 1.8 ulps (|x| < 0.55) and 4.3 (beyond); the reference 1/coshl^2 is
  // itself up to 5.2 ulps off in long double: tolerances 6 eps relative, 12 in long double.
  // 1 - f^2 was 1e-5 wrong at 14 and 77 % at 19 in double, 0.35 % at 7 and 96 % at 9 in float.
  using T = TestType;
  const long double tol = std::is_same_v<T, long double> ? 12 : 6;
  const auto slope = [](T x) { return etad::gradient([](auto v) { return etad::tanh(v); }, x).gradient[0]; };
  const auto sech2 = [](T x) {
    const long double c = std::cosh(static_cast<long double>(x));
    return 1 / c / c;  // not 1 / (c * c): c * c overflows from |x| = 5678 in long double
  };
  const long double reach = std::is_same_v<T, float> ? 55 : std::is_same_v<T, double> ? 380 : 5710;
  std::vector<T> xs{T(0), T(0.25), T(0.549), T(0.55), T(1), T(7), T(9), T(14), T(18), T(19), T(30), T(360)};
  for (long double x = -reach; x <= reach; x += reach / 997) xs.push_back(static_cast<T>(x));
  for (long double x = -40; x <= 40; x += 0.0401L) xs.push_back(static_cast<T>(x));
  for (int k = -40; k <= 40; ++k) xs.push_back(static_cast<T>(k * 0.0371L));  // both sides of 0.549
  long double worst = 0;
  for (const T x : xs) {
    const long double e = relative_error(slope(x), sech2(x));
    if (e > worst) worst = e;
    if (e > tol) FAIL_CHECK("x = " << etad_test::fmt(x) << ": slope " << etad_test::fmt(slope(x)) << ", sech^2 "
                                   << etad_test::fmt(sech2(x)) << " (" << etad_test::fmt(e) << " eps)");
  }
  CHECK(worst <= tol);
}

TEMPLATE_TEST_CASE("trigonometric: tanh's second derivative at large |x| on nested tapes", "[ops][trigonometric]",
                   float, double, long double) {
  // d2/dx2 tanh x = -2 tanh x sech^2 x, in long double from tanhl and coshl. The partial is
  // differentiated again on the outer tape, in both of its branches (|x| < 0.549 and beyond);
  // 1 - f^2 gave 0 wherever tanh had rounded to ±1 (from x = 19.1 in double). At 400 in double
  // and float the exact value underflows to 0; in long double it is -1.1e-347.
  using T = TestType;
  for (const T x : {T(0.3), T(-0.3), T(2), T(-2), T(20), T(-20), T(400), T(-400)}) {
    CAPTURE(x);
    const long double xl = x, c = std::cosh(xl);
    const auto d = first_and_second([](auto v) { return etad::tanh(v); }, x);
    CHECK(relative_error(d[0], 1 / c / c) <= 12);
    CHECK(relative_error(d[1], -2 * std::tanh(xl) / c / c) <= 16);
  }
}

TEMPLATE_TEST_CASE("trigonometric: atan2 at infinite arguments has the limits 0", "[ops][trigonometric]", float,
                   double, long double) {
  // |grad atan2| = 1/hypot(x, y) -> 0 as either argument grows, in every direction: (0, 0) where
  // one argument or both are infinite (x / r / r gave inf/inf = NaN). NaN in, NaN out.
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto at = [](T y, T x) { return etad::gradient([](auto a, auto b) { return etad::atan2(a, b); }, y, x); };
  const long double pi = 3.141592653589793238462643383279502884L;
  struct point {
    T y, x;
    long double angle;
  };
  for (const point p : {point{1, inf, 0}, point{-1, inf, 0}, point{1, -inf, pi}, point{inf, 1, pi / 2},
                        point{-inf, -2, -pi / 2}, point{inf, inf, pi / 4}, point{-inf, -inf, -3 * pi / 4},
                        point{inf, -inf, 3 * pi / 4}}) {
    CAPTURE(p.y, p.x);
    const auto r = at(p.y, p.x);
    CHECK(r.value == Approx(p.angle).epsilon(4 * std::numeric_limits<T>::epsilon()));
    CHECK(r.gradient[0] == 0);
    CHECK(r.gradient[1] == 0);
  }
  for (const auto& r : {at(nan, inf), at(inf, nan), at(nan, T(1))}) {
    CHECK(std::isnan(r.gradient[0]));
    CHECK(std::isnan(r.gradient[1]));
  }
  // One constant argument: through the same rule.
  CHECK(etad::gradient([](auto x) { return etad::atan2(1.0, x); }, inf).gradient[0] == 0);
  CHECK(etad::gradient([](auto y) { return etad::atan2(y, 2); }, -inf).gradient[0] == 0);
  // On a nested tape: first derivatives 0, and second derivatives 0 (the partials are constants).
  const auto d = first_and_second([](auto x) { return etad::atan2(x, 1.0); }, inf);
  CHECK(d[0] == 0);
  CHECK(d[1] == 0);
}
