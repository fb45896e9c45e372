// tests/ops/nonsmooth_test.cpp — abs, fmin, fmax, min, max, floor, ceil, round, trunc, fma:
// gradients against finite differences away from the kinks, and the documented policy at them
// (abs'(0) = 0, ties to the first argument, NaN handling, exact zero slopes of the rounding ops).
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using etad_test::binary;
using etad_test::check_ops;
using etad_test::ternary;
using etad_test::unary;

TEST_CASE("nonsmooth: gradients match finite differences away from kinks", "[ops][nonsmooth]") {
  // Seeded points almost surely miss the kinks (x = 0, x = y, the integers); near one, the finite
  // difference's error estimate grows and absorbs the jump.
  check_ops(unary("abs", [](auto x) { return etad::abs(x); }, {-10, 10}),
            binary("fmin", [](auto x, auto y) { return etad::fmin(x, y); }, {-10, 10}, {-10, 10}),
            binary("fmax", [](auto x, auto y) { return etad::fmax(x, y); }, {-10, 10}, {-10, 10}),
            binary("min", [](auto x, auto y) { return etad::min(x, y); }, {-10, 10}, {-10, 10}),
            binary("max", [](auto x, auto y) { return etad::max(x, y); }, {-10, 10}, {-10, 10}),
            ternary("fma", [](auto a, auto b, auto c) { return etad::fma(a, b, c); }, {-10, 10}, {-10, 10}, {-10, 10}),
            unary("floor", [](auto x) { return etad::floor(x); }, {-10, 10}),
            unary("ceil", [](auto x) { return etad::ceil(x); }, {-10, 10}),
            unary("round", [](auto x) { return etad::round(x); }, {-10, 10}),
            unary("trunc", [](auto x) { return etad::trunc(x); }, {-10, 10}),
            unary("x * floor(x) + ceil(x)", [](auto x) { return x * etad::floor(x) + etad::ceil(x); }, {-10, 10}));
}

TEST_CASE("nonsmooth: one constant argument (int, float, double)", "[ops][nonsmooth]") {
  check_ops(unary("abs(x - 3)", [](auto x) { return etad::abs(x - 3); }, {-10, 10}),
            unary("fmin(x, 0.5)", [](auto x) { return etad::fmin(x, 0.5); }, {-10, 10}),
            unary("fmax(2, x)", [](auto x) { return etad::fmax(2, x); }, {-10, 10}),
            unary("min(x, 1.5f)", [](auto x) { return etad::min(x, 1.5f); }, {-10, 10}),
            unary("max(-1, x)", [](auto x) { return etad::max(-1, x); }, {-10, 10}),
            unary("max(x * x, 4.0)", [](auto x) { return etad::max(x * x, 4.0); }, {-5, 5}),
            binary("fma(x, 2.0, y)", [](auto x, auto y) { return etad::fma(x, 2.0, y); }, {-10, 10}, {-10, 10}),
            binary("fma(x, y, 1)", [](auto x, auto y) { return etad::fma(x, y, 1); }, {-10, 10}, {-10, 10}),
            unary("fma(3.0f, 2, x)", [](auto x) { return etad::fma(3.0f, 2, x); }, {-10, 10}),
            unary("fma(x, x, x)", [](auto x) { return etad::fma(x, x, x); }, {-10, 10}));
}

TEMPLATE_TEST_CASE("nonsmooth: abs at 0, ±inf and NaN", "[ops][nonsmooth]", float, double, long double) {
  using T = TestType;
  const auto abs = [](auto x) { return etad::abs(x); };
  const auto g = [&](T x) { return etad::gradient(abs, x); };
  CHECK(g(T(0)).gradient[0] == 0);  // a subgradient; TensorFlow's choice
  CHECK(g(T(-0.0)).gradient[0] == 0);
  CHECK(g(T(-2)).gradient[0] == -1);
  CHECK(g(T(2)).gradient[0] == 1);
  CHECK(g(std::numeric_limits<T>::denorm_min()).gradient[0] == 1);
  CHECK(g(-std::numeric_limits<T>::infinity()).gradient[0] == -1);
  CHECK(std::isnan(g(std::numeric_limits<T>::quiet_NaN()).gradient[0]));
  // |x| composed with a smooth function at its kink: d/dx |sin x| at 0 is 0, at pi/2 + 1 it is cos.
  CHECK(etad::gradient([](auto x) { return etad::abs(etad::sin(x)); }, T(0)).gradient[0] == 0);
}

TEMPLATE_TEST_CASE("nonsmooth: min and max send the gradient to one argument", "[ops][nonsmooth]", float, double,
                   long double) {
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto check = [](const char* name, auto f, T x, T y, T value, T dx, T dy) {
    const auto r = etad::gradient(f, x, y);
    INFO(name << "(" << x << ", " << y << ")");
    CHECK(etad_test::same(r.value, value));
    CHECK(r.gradient[0] == dx);
    CHECK(r.gradient[1] == dy);
  };
  const auto min = [](auto x, auto y) { return etad::min(x, y); };
  const auto max = [](auto x, auto y) { return etad::max(x, y); };
  const auto fmin = [](auto x, auto y) { return etad::fmin(x, y); };
  const auto fmax = [](auto x, auto y) { return etad::fmax(x, y); };
  // Ordinary cases: the chosen argument gets 1, the other 0.
  check("min", min, 1, 2, 1, 1, 0);
  check("min", min, 2, 1, 1, 0, 1);
  check("max", max, 1, 2, 2, 0, 1);
  check("max", max, 2, 1, 2, 1, 0);
  check("fmin", fmin, 2, 1, 1, 0, 1);
  check("fmax", fmax, 1, 2, 2, 0, 1);
  // Ties: the first argument gets everything.
  check("min", min, 3, 3, 3, 1, 0);
  check("max", max, 3, 3, 3, 1, 0);
  check("fmin", fmin, 3, 3, 3, 1, 0);
  check("fmax", fmax, 3, 3, 3, 1, 0);
  check("max", max, T(0), T(-0.0), 0, 1, 0);
  // fmin / fmax ignore a NaN argument: value and gradient go to the other one.
  check("fmin", fmin, nan, 2, 2, 0, 1);
  check("fmin", fmin, 2, nan, 2, 1, 0);
  check("fmax", fmax, nan, 2, 2, 0, 1);
  check("fmax", fmax, 2, nan, 2, 1, 0);
  // min / max follow std::min / std::max: (b < a) ? b : a, so a NaN first argument is returned.
  check("min", min, nan, 2, nan, 1, 0);
  check("min", min, 2, nan, 2, 1, 0);
  check("max", max, nan, 2, nan, 1, 0);
  check("max", max, 2, nan, 2, 1, 0);
  // Both NaN: fmin / fmax pass over a NaN first argument, so the gradient goes to the second;
  // min / max return the first (b < a is false), and it gets the gradient.
  check("fmin", fmin, nan, nan, nan, 0, 1);
  check("fmax", fmax, nan, nan, nan, 0, 1);
  check("min", min, nan, nan, nan, 1, 0);
  check("max", max, nan, nan, nan, 1, 0);
  // The same input on both sides: the whole slope 1 arrives once.
  CHECK(etad::gradient([](auto x) { return etad::min(x, x); }, T(5)).gradient[0] == 1);
  CHECK(etad::gradient([](auto x) { return etad::fmax(x, x); }, T(5)).gradient[0] == 1);
}

TEMPLATE_TEST_CASE("nonsmooth: the argument not chosen gets no gradient, not 0 * its partial", "[ops][nonsmooth]",
                   float, double, long double) {
  using T = TestType;
  // sqrt'(0) = +inf; 0 * inf would be NaN.
  const auto a = etad::gradient([](auto x, auto y) { return etad::max(etad::sqrt(x), y); }, T(0), T(1));
  CHECK(a.value == 1);
  CHECK(a.gradient[0] == 0);
  CHECK(a.gradient[1] == 1);
  // The same with the infinite slope inside a node that holds a constant (not a shared slot).
  const auto b = etad::gradient([](auto x, auto y) { return etad::fmax(2.0 * etad::log(x), y); }, T(0), T(1));
  CHECK(b.gradient[0] == 0);
  CHECK(b.gradient[1] == 1);
  // And in forward mode.
  const auto j = etad::jvp([](auto x, auto y) { return etad::max(etad::sqrt(x), y); }, std::array{T(0), T(1)},
                           std::array{T(1), T(1)});
  CHECK(j.tangent == 1);
  // The chosen side still carries its own infinite slope.
  const auto c = etad::gradient([](auto x, auto y) { return etad::min(etad::sqrt(x), y); }, T(0), T(1));
  CHECK(c.gradient[0] == std::numeric_limits<T>::infinity());
  CHECK(c.gradient[1] == 0);
}

TEMPLATE_TEST_CASE("nonsmooth: rounding ops have slope exactly 0, also at their jumps", "[ops][nonsmooth]", float,
                   double, long double) {
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const auto floor = [](auto x) { return etad::floor(x); };
  const auto ceil = [](auto x) { return etad::ceil(x); };
  const auto round = [](auto x) { return etad::round(x); };
  const auto trunc = [](auto x) { return etad::trunc(x); };
  for (const T x : {T(-2.5), T(-1), T(-0.5), T(0), T(0.5), T(1), T(2.5), T(1e30), inf, nan}) {
    CAPTURE(x);
    const auto f = etad::gradient(floor, x);
    const auto c = etad::gradient(ceil, x);
    const auto r = etad::gradient(round, x);
    const auto t = etad::gradient(trunc, x);
    CHECK(etad_test::same(f.value, std::floor(x)));
    CHECK(etad_test::same(c.value, std::ceil(x)));
    CHECK(etad_test::same(r.value, std::round(x)));
    CHECK(etad_test::same(t.value, std::trunc(x)));
    // No sweep enters their argument: exactly 0 even at NaN and inf, not 0 * something.
    CHECK(f.gradient[0] == 0);
    CHECK(c.gradient[0] == 0);
    CHECK(r.gradient[0] == 0);
    CHECK(t.gradient[0] == 0);
    CHECK(etad::jvp(floor, std::array{x}, std::array{T(1)}).tangent == 0);
  }
  CHECK(etad::gradient(round, T(2.5)).value == 3);  // half away from zero
  // Around them the rest of the expression is differentiated normally.
  const auto s = etad::gradient([](auto x) { return etad::floor(x) + x; }, T(1));
  CHECK(s.gradient[0] == 1);
  const auto p = etad::gradient([](auto x, auto y) { return x * etad::round(y) + etad::trunc(x * y); }, T(2), T(2.4));
  CHECK(p.gradient[0] == 2);
  CHECK(p.gradient[1] == 0);
  // A rounding op over an infinite slope: still exactly 0 (no 0 * inf).
  CHECK(etad::gradient([](auto x) { return etad::floor(etad::sqrt(x)); }, T(0)).gradient[0] == 0);
}

TEMPLATE_TEST_CASE("nonsmooth: fma partials b, a, 1", "[ops][nonsmooth]", float, double, long double) {
  using T = TestType;
  const auto r = etad::gradient([](auto a, auto b, auto c) { return etad::fma(a, b, c); }, T(2), T(3), T(4));
  CHECK(r.value == 10);
  CHECK(r.gradient[0] == 3);
  CHECK(r.gradient[1] == 2);
  CHECK(r.gradient[2] == 1);
  // One rounding: fma(x, x, -x*x) recovers the rounding error of x * x (nonzero for this x).
  const T x = T(1) + std::numeric_limits<T>::epsilon();
  CHECK(etad::fma(x, x, -(x * x)) != 0);
  const auto n = etad::gradient([](auto a, auto b, auto c) { return etad::fma(a, b, c); },
                                std::numeric_limits<T>::quiet_NaN(), T(3), T(4));
  CHECK(std::isnan(n.value));
  CHECK(n.gradient[0] == 3);  // partials are b, a, 1 whatever a is
  CHECK(std::isnan(n.gradient[1]));
  CHECK(n.gradient[2] == 1);
}
