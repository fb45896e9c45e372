// tests/ops/trigonometric_test.cpp — sin ... atanh and atan2: gradients against finite
// differences at seeded points, closed forms, and the documented behaviour at singular points.
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using etad_test::binary;
using etad_test::check_ops;
using etad_test::tolerance;
using etad_test::unary;

TEST_CASE("trigonometric: gradients match finite differences", "[ops][trigonometric]") {
  // tanh'(x) = 1 - tanh^2 x is computed from f: at |x| = 5 it is 1.8e-4, so float's rounding of f
  // (3e-8) is amplified to 3e-4 relative. Domains stop 0.01 short of the singular points.
  check_ops(unary("sin", [](auto x) { return etad::sin(x); }, {-10, 10}),
            unary("cos", [](auto x) { return etad::cos(x); }, {-10, 10}),
            unary("tan", [](auto x) { return etad::tan(x); }, {-1.5, 1.5}),
            unary("asin", [](auto x) { return etad::asin(x); }, {-0.99, 0.99}),
            unary("acos", [](auto x) { return etad::acos(x); }, {-0.99, 0.99}),
            unary("atan", [](auto x) { return etad::atan(x); }, {-10, 10}),
            binary("atan2", [](auto y, auto x) { return etad::atan2(y, x); }, {-10, 10}, {-10, 10}),
            unary("sinh", [](auto x) { return etad::sinh(x); }, {-5, 5}),
            unary("cosh", [](auto x) { return etad::cosh(x); }, {-5, 5}),
            unary("tanh", [](auto x) { return etad::tanh(x); }, {-5, 5}, tolerance{.f = {1e-3}}),
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
  // tan at its pole in T is finite but huge; tan'(x) = 1 + tan^2 x agrees with the value.
  const auto t = g([](auto x) { return etad::tan(x); }, T(1.5707963267948966L));
  CHECK(t.gradient[0] == Approx(1 + static_cast<long double>(t.value) * t.value));
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
  // Saturating functions have slope exactly 0 at ±inf and once they round to their limits.
  for (const T x : {tinf, -tinf}) {
    CAPTURE(x);
    CHECK(g([](auto v) { return etad::atan(v); }, x).gradient[0] == 0);
    CHECK(g([](auto v) { return etad::tanh(v); }, x).gradient[0] == 0);
    CHECK(g([](auto v) { return etad::asinh(v); }, x).gradient[0] == 0);
  }
  CHECK(g([](auto v) { return etad::tanh(v); }, T(-50)).gradient[0] == 0);
  CHECK(g([](auto v) { return etad::tanh(v); }, T(50)).gradient[0] == 0);
  CHECK(g([](auto v) { return etad::tanh(v); }, T(50)).value == 1);
  CHECK(g([](auto v) { return etad::acosh(v); }, tinf).gradient[0] == 0);
  CHECK(g([](auto v) { return etad::sinh(v); }, tinf).gradient[0] == tinf);
  CHECK(g([](auto v) { return etad::cosh(v); }, -tinf).gradient[0] == -tinf);
  // sin and cos of an infinity are NaN, and so are their slopes.
  CHECK(std::isnan(g([](auto v) { return etad::sin(v); }, tinf).gradient[0]));
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
