// tests/ops/power_test.cpp — sqrt, cbrt, the four pow rules and hypot: gradients against finite
// differences at seeded points, closed forms, and the documented conventions at base 0.
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

using etad_test::binary;
using etad_test::check_ops;
using etad_test::unary;

TEST_CASE("power: gradients match finite differences", "[ops][power]") {
  check_ops(unary("sqrt", [](auto x) { return etad::sqrt(x); }, {0.01, 100}),
            unary("sqrt small", [](auto x) { return etad::sqrt(x); }, {1e-8, 1e-4}, {.fd_scale = 1e-8}),
            unary("cbrt", [](auto x) { return etad::cbrt(x); }, {-10, 10}),
            // expression ^ expression: a > 0 (a < 0 has a NaN exponent partial by design).
            binary("pow(x, y)", [](auto x, auto y) { return etad::pow(x, y); }, {0.1, 5}, {-3, 3}),
            binary("pow(x, 2 y - 1)", [](auto x, auto y) { return etad::pow(x, 2 * y - 1); }, {0.5, 2}, {-2, 2}),
            binary("hypot", [](auto x, auto y) { return etad::hypot(x, y); }, {-10, 10}, {-10, 10}));
}

TEST_CASE("power: pow and hypot with a constant argument", "[ops][power]") {
  // Integer exponents (any integral type) take the powi rule, real ones the constant-exponent
  // rule, a constant base the constant-base rule.
  check_ops(unary("pow(x, 3)", [](auto x) { return etad::pow(x, 3); }, {-5, 5}),
            unary("pow(x, -2)", [](auto x) { return etad::pow(x, -2); }, {0.2, 5}),
            unary("pow(x, 0)", [](auto x) { return etad::pow(x, 0); }, {-5, 5}),
            unary("pow(x, 1)", [](auto x) { return etad::pow(x, 1); }, {-5, 5}),
            unary("pow(x, 4L)", [](auto x) { return etad::pow(x, 4L); }, {-3, 3}),
            unary("pow(x, short 2)", [](auto x) { return etad::pow(x, short{2}); }, {-5, 5}),
            unary("pow(x, 5u)", [](auto x) { return etad::pow(x, 5u); }, {-2, 2}),
            unary("pow(x, 2.5)", [](auto x) { return etad::pow(x, 2.5); }, {0.1, 5}),
            unary("pow(x, 2.5f)", [](auto x) { return etad::pow(x, 2.5f); }, {0.1, 5}),
            unary("pow(x, 0.1f)", [](auto x) { return etad::pow(x, 0.1f); }, {0.1, 5}),
            unary("pow(x, -0.5)", [](auto x) { return etad::pow(x, -0.5); }, {0.1, 5}),
            unary("pow(x, 1/3.0L)", [](auto x) { return etad::pow(x, 1 / 3.0L); }, {0.1, 5}),
            unary("pow(x, 0.0)", [](auto x) { return etad::pow(x, 0.0); }, {0.1, 5}),
            unary("pow(2.0, x)", [](auto x) { return etad::pow(2.0, x); }, {-5, 5}),
            unary("pow(0.5f, x)", [](auto x) { return etad::pow(0.5f, x); }, {-5, 5}),
            unary("pow(3, x)", [](auto x) { return etad::pow(3, x); }, {-3, 3}),
            unary("pow(10.0L, x)", [](auto x) { return etad::pow(10.0L, x); }, {-2, 2}),
            unary("hypot(x, 3.0)", [](auto x) { return etad::hypot(x, 3.0); }, {-10, 10}),
            unary("hypot(2, x)", [](auto x) { return etad::hypot(2, x); }, {-10, 10}),
            unary("hypot(x, 2 x)", [](auto x) { return etad::hypot(x, 2 * x); }, {-10, 10}),
            // Rules with parameters are never shared: x^2 * x^3 = x^5, not (x^2)^2 or (x^3)^2.
            unary("pow(x, 2) * pow(x, 3)", [](auto x) { return etad::pow(x, 2) * etad::pow(x, 3); }, {-2, 2}),
            unary("pow(x, 0.5) * pow(x, 1.5)", [](auto x) { return etad::pow(x, 0.5) * etad::pow(x, 1.5); }, {0.1, 3}),
            unary("pow(2.0, x) * pow(3.0, x)", [](auto x) { return etad::pow(2.0, x) * etad::pow(3.0, x); }, {-2, 2}),
            unary("sqrt(x) * sqrt(x)", [](auto x) { return etad::sqrt(x) * etad::sqrt(x); }, {0.1, 10}));
}

TEMPLATE_TEST_CASE("power: closed-form derivatives", "[ops][power]", float, double, long double) {
  using T = TestType;
  const auto d = [](auto f, T x) { return static_cast<long double>(etad::gradient(f, x).gradient[0]); };
  const long double e = 8 * std::numeric_limits<T>::epsilon();
  const long double ln2 = 0.693147180559945309417232121458176568L;
  CHECK(d([](auto x) { return etad::sqrt(x); }, T(4)) == 0.25);
  CHECK(d([](auto x) { return etad::cbrt(x); }, T(8)) == Approx(1 / 12.0L).epsilon(e));
  CHECK(d([](auto x) { return etad::cbrt(x); }, T(-8)) == Approx(1 / 12.0L).epsilon(e));
  CHECK(d([](auto x) { return etad::pow(x, 3); }, T(-2)) == 12);
  CHECK(d([](auto x) { return etad::pow(x, -1); }, T(2)) == -0.25);
  CHECK(d([](auto x) { return etad::pow(x, 2.5); }, T(4)) == Approx(20).epsilon(e));    // 2.5 * 4^1.5
  CHECK(d([](auto x) { return etad::pow(x, -0.5); }, T(4)) == Approx(-1 / 16.0L).epsilon(e));
  CHECK(d([](auto x) { return etad::pow(2.0, x); }, T(3)) == Approx(8 * ln2).epsilon(e));
  CHECK(d([](auto x) { return etad::pow(0.5, x); }, T(1)) == Approx(-ln2 / 2).epsilon(e));
  const auto p = etad::gradient([](auto x, auto y) { return etad::pow(x, y); }, T(2), T(3));
  CHECK(p.value == 8);
  CHECK(p.gradient[0] == 12);                                      // y x^(y-1)
  CHECK(p.gradient[1] == Approx(8 * ln2).epsilon(e));              // x^y ln x
  const auto h = etad::gradient([](auto x, auto y) { return etad::hypot(x, y); }, T(-3), T(4));
  CHECK(h.value == 5);
  CHECK(h.gradient[0] == Approx(-0.6L).epsilon(e));
  CHECK(h.gradient[1] == Approx(0.8L).epsilon(e));
}

TEMPLATE_TEST_CASE("power: sqrt and cbrt at 0, below 0, at infinity", "[ops][power]", float, double, long double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const auto g = [](auto f, T x) { return etad::gradient(f, x); };
  const auto sqrt = [](auto x) { return etad::sqrt(x); };
  const auto cbrt = [](auto x) { return etad::cbrt(x); };
  CHECK(g(sqrt, T(0)).value == 0);
  CHECK(g(sqrt, T(0)).gradient[0] == inf);  // the one-sided slope
  CHECK(std::isnan(g(sqrt, T(-1)).value));
  CHECK(std::isnan(g(sqrt, T(-1)).gradient[0]));
  CHECK(g(sqrt, inf).gradient[0] == 0);
  CHECK(g(cbrt, T(0)).gradient[0] == inf);
  CHECK(g(cbrt, T(-0.0)).gradient[0] == inf);
  CHECK(g(cbrt, -inf).gradient[0] == 0);
  CHECK(std::isnan(g(sqrt, std::numeric_limits<T>::quiet_NaN()).gradient[0]));
  CHECK(std::isnan(g(cbrt, std::numeric_limits<T>::quiet_NaN()).gradient[0]));
}

TEMPLATE_TEST_CASE("power: pow conventions at base 0 and negative bases", "[ops][power]", float, double, long double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto pow2 = [](auto x, auto y) { return etad::pow(x, y); };
  const auto at = [&](T x, T y) { return etad::gradient(pow2, x, y); };
  // 0^y for y > 0 is 0 on a neighbourhood in y: d/dy = 0 (not 0 * log 0 = NaN); d/dx = y 0^(y-1).
  CHECK(at(0, 2).value == 0);
  CHECK(at(0, 2).gradient[0] == 0);
  CHECK(at(0, 2).gradient[1] == 0);
  CHECK(at(0, 1).gradient[0] == 1);
  CHECK(at(0, 1).gradient[1] == 0);
  CHECK(at(0, T(0.5)).gradient[0] == inf);
  CHECK(at(0, T(0.5)).gradient[1] == 0);
  // x^0 is constant: d/dx = 0, also at x = 0 (where the formula gives 0 * inf).
  CHECK(at(0, 0).value == 1);
  CHECK(at(0, 0).gradient[0] == 0);
  CHECK(at(0, 0).gradient[1] == 0);
  CHECK(at(2, 0).gradient[0] == 0);
  CHECK(at(2, 0).gradient[1] == Approx(0.693147180559945309L));
  // Also at a subnormal x, where 1/x overflows (0 * inf by the formula), and at x = +-inf.
  CHECK(at(std::numeric_limits<T>::denorm_min(), 0).gradient[0] == 0);
  CHECK(at(-std::numeric_limits<T>::denorm_min(), 0).gradient[0] == 0);
  CHECK(at(inf, 0).gradient[0] == 0);
  // Negative exponent at 0: value +inf, d/dx -inf, d/dy 0 by the base-0 convention.
  CHECK(at(0, -1).value == inf);
  CHECK(at(0, -1).gradient[0] == -inf);
  CHECK(at(0, -1).gradient[1] == 0);
  // Negative base: real only at integer y. d/dx by the formula, d/dy NaN.
  CHECK(at(-2, 3).value == -8);
  CHECK(at(-2, 3).gradient[0] == 12);
  CHECK(std::isnan(at(-2, 3).gradient[1]));
  // NaN base: NaN value and partials.
  CHECK(std::isnan(at(nan, 2).value));
  CHECK(std::isnan(at(nan, 2).gradient[0]));
  CHECK(std::isnan(at(nan, 2).gradient[1]));

  const auto g = [](auto f, T x) { return etad::gradient(f, x); };
  // Integer exponent (powi): n x^(n-1); 0 for n = 0 whatever x is (even NaN, where x^0 = 1).
  CHECK(g([](auto x) { return etad::pow(x, 0); }, T(0)).value == 1);
  CHECK(g([](auto x) { return etad::pow(x, 0); }, T(0)).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::pow(x, 0); }, nan).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::pow(x, 0); }, inf).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::pow(x, 1); }, T(0)).gradient[0] == 1);
  CHECK(g([](auto x) { return etad::pow(x, 2); }, T(0)).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::pow(x, -1); }, T(0)).value == inf);
  CHECK(g([](auto x) { return etad::pow(x, -1); }, T(0)).gradient[0] == -inf);
  CHECK(g([](auto x) { return etad::pow(x, -2); }, T(0)).gradient[0] == -inf);
  CHECK(std::isnan(g([](auto x) { return etad::pow(x, 2); }, nan).gradient[0]));
  // Real constant exponent: c x^(c-1); 0 for c = 0; +inf at 0 for 0 < c < 1.
  CHECK(g([](auto x) { return etad::pow(x, 0.0); }, T(0)).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::pow(x, 0.5); }, T(0)).gradient[0] == inf);
  CHECK(g([](auto x) { return etad::pow(x, 1.0); }, T(0)).gradient[0] == 1);
  CHECK(g([](auto x) { return etad::pow(x, 1.5); }, T(0)).gradient[0] == 0);
  // Constant base: c^x ln c; 0 at c = 0; NaN for c < 0 (also where c^x is real).
  CHECK(g([](auto x) { return etad::pow(0.0, x); }, T(2)).value == 0);
  CHECK(g([](auto x) { return etad::pow(0.0, x); }, T(2)).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::pow(1.0, x); }, T(7)).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::pow(-2.0, x); }, T(2)).value == 4);
  CHECK(std::isnan(g([](auto x) { return etad::pow(-2.0, x); }, T(2)).gradient[0]));
}

TEMPLATE_TEST_CASE("power: hypot at the origin, huge and NaN", "[ops][power]", float, double, long double) {
  using T = TestType;
  const auto hyp = [](auto x, auto y) { return etad::hypot(x, y); };
  // At (0, 0) hypot has no derivative: both partials 0 (the smallest subgradient).
  const auto o = etad::gradient(hyp, T(0), T(0));
  CHECK(o.value == 0);
  CHECK(o.gradient[0] == 0);
  CHECK(o.gradient[1] == 0);
  CHECK(etad::gradient([](auto x) { return etad::hypot(x, 0.0); }, T(0)).gradient[0] == 0);
  CHECK(etad::gradient([](auto x) { return etad::hypot(x, x); }, T(0)).gradient[0] == 0);
  // No overflow: at (m, m) with m the largest finite T the partials are 1/sqrt(2).
  const T m = std::numeric_limits<T>::max() / 2;
  const auto big = etad::gradient(hyp, m, m);
  CHECK(big.gradient[0] == Approx(0.70710678118654752440L));
  CHECK(big.gradient[1] == Approx(0.70710678118654752440L));
  const T nan = std::numeric_limits<T>::quiet_NaN();
  CHECK(std::isnan(etad::gradient(hyp, nan, T(1)).gradient[0]));
}

TEST_CASE("power: result types follow the inputs, not the constants", "[ops][power]") {
  const auto f = [](auto x) { return etad::pow(x, 2.5) + etad::pow(2.0L, x) + etad::pow(x, 3); };
  static_assert(std::is_same_v<decltype(etad::gradient(f, 1.0f).value), float>);
  static_assert(std::is_same_v<decltype(etad::gradient(f, 1.0).value), double>);
  static_assert(std::is_same_v<decltype(etad::gradient(f, 1.0L).value), long double>);
  // On plain numbers pow is std::pow.
  CHECK(etad::pow(2.0, 10) == 1024.0);
  CHECK(etad::pow(9.0f, 0.5f) == 3.0f);
}

TEST_CASE("power: small constant exponents as the compiler folds std::pow", "[ops][power]") {
  // g++ and clang compute std::pow(x, 2) as x * x and std::pow(x, -1) as 1 / x (both correctly
  // rounded); glibc's pow differs from x * x in the last bit for about 0.1 % of x. The rules do
  // the same whether or not their exponent is a compile-time constant where they run: here it
  // is read from a volatile, and the tape's and the static layer's values must still be x * x
  // and 1 / x bitwise.
  volatile int two_v = 2, minus_one_v = -1;
  volatile double two_d = 2.0;
  const int two = two_v, minus_one = minus_one_v;
  const double two_real = two_d;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.5, 4.0);
  for (int k = 0; k < 20000; ++k) {
    const double a = u(rng);
    etad::tape t;
    const etad::real<double> x = t.variable(a);
    const etad::real<double> sq = etad::pow(x, two), sq_real = etad::pow(x, two_real),
                             inv = etad::pow(x, minus_one);
    const double want_sq = a * a, want_inv = 1 / a;
    if (sq.value() != want_sq || sq_real.value() != want_sq || inv.value() != want_inv) {
      FAIL_CHECK("a = " << a << ": pow(x, 2) " << sq.value() << ", pow(x, 2.0) " << sq_real.value()
                        << ", pow(x, -1) " << inv.value());
    }
    const auto s = etad::gradient([two](auto y) { return etad::pow(y, two); }, a);
    CHECK(s.value == want_sq);
    CHECK(s.gradient[0] == 2 * a);
  }
}
