// tests/ops/power_test.cpp — sqrt, cbrt, the four pow rules and hypot: gradients against finite
// differences at seeded points, closed forms, the documented conventions at base 0 and at
// infinities, and integer exponents of every width.
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
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

TEMPLATE_TEST_CASE("power: constant exponent and constant base at ±inf and NaN", "[ops][power]", float, double,
                   long double) {
  // The formulas under IEEE pow: c a^(c-1) and c^b ln c, by hand.
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto g = [](auto f, T x) { return etad::gradient(f, x); };
  const auto check = [&](const char* what, auto f, T x, T value, T slope) {
    INFO(what << " at " << x);
    const auto r = g(f, x);
    CHECK(r.value == value);
    CHECK(r.gradient[0] == slope);
  };
  // a^c at a = +inf: 2.5 inf^1.5 = inf; 0.5 inf^-0.5 = 0; -1.5 inf^-2.5 = -0. At -inf with an
  // odd integer c = 3.0: value -inf, slope 3 (-inf)^2 = +inf (the true slope).
  check("x^2.5", [](auto x) { return etad::pow(x, 2.5); }, inf, inf, inf);
  check("x^0.5", [](auto x) { return etad::pow(x, 0.5); }, inf, inf, 0);
  check("x^-1.5", [](auto x) { return etad::pow(x, -1.5); }, inf, 0, 0);
  check("x^3.0", [](auto x) { return etad::pow(x, 3.0); }, -inf, -inf, inf);
  // NaN: NaN value and slope, except x^0 = 1 (IEEE), whose slope is the constant 0.
  CHECK(std::isnan(g([](auto x) { return etad::pow(x, 2.5); }, nan).value));
  CHECK(std::isnan(g([](auto x) { return etad::pow(x, 2.5); }, nan).gradient[0]));
  check("x^0.0", [](auto x) { return etad::pow(x, 0.0); }, nan, 1, 0);
  // c^b: 2^inf = inf with slope inf ln 2 = inf; 2^-inf = 0, slope 0; 0.5^inf = 0, slope 0 (-0);
  // 0.5^-inf = inf, slope inf ln 0.5 = -inf. 1^b = 1 for every b, even inf and NaN (IEEE): the
  // slope 1 ln 1 = 0.
  check("2^x", [](auto x) { return etad::pow(2.0, x); }, inf, inf, inf);
  check("2^x", [](auto x) { return etad::pow(2.0, x); }, -inf, 0, 0);
  check("0.5^x", [](auto x) { return etad::pow(0.5f, x); }, inf, 0, 0);
  check("0.5^x", [](auto x) { return etad::pow(0.5f, x); }, -inf, inf, -inf);
  check("1^x", [](auto x) { return etad::pow(1.0, x); }, inf, 1, 0);
  check("1^x", [](auto x) { return etad::pow(1.0, x); }, nan, 1, 0);
  CHECK(std::isnan(g([](auto x) { return etad::pow(2.0, x); }, nan).value));
  CHECK(std::isnan(g([](auto x) { return etad::pow(2.0, x); }, nan).gradient[0]));
  // c = 0: the slope is 0 whatever b is (the convention is applied to the constant), also at a
  // NaN b, where the value is NaN.
  CHECK(std::isnan(g([](auto x) { return etad::pow(0.0, x); }, nan).value));
  CHECK(g([](auto x) { return etad::pow(0.0, x); }, nan).gradient[0] == 0);
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

TEMPLATE_TEST_CASE("power: hypot at infinite arguments has the limits of its partials", "[ops][power]", float, double,
                   long double) {
  // a/f and b/f are the cosine and sine of the direction of (a, b); at an infinite argument the
  // formula gave inf/inf = NaN. The limits: sign(a) for an infinite a and 0 (b/f, signed) for a
  // finite b; both infinite: the diagonal, sign/sqrt(2) each, so that hypot(x, x) = sqrt(2)|x|
  // has its slope sqrt(2) at x = inf. NaN if an argument is NaN (also hypot(inf, NaN) = inf).
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const long double r = 0.707106781186547524400844362104849039L;  // 1/sqrt(2)
  const long double e = 4 * std::numeric_limits<T>::epsilon();
  const auto at = [](T a, T b) { return etad::gradient([](auto x, auto y) { return etad::hypot(x, y); }, a, b); };
  struct point {
    T a, b;
    long double da, db;
  };
  for (const point p : {point{inf, 1, 1, 0}, point{-inf, 1, -1, 0}, point{inf, -3, 1, 0}, point{2, inf, 0, 1},
                        point{0, -inf, 0, -1}, point{inf, inf, r, r}, point{-inf, inf, -r, r},
                        point{-inf, -inf, -r, -r}, point{inf, std::numeric_limits<T>::max(), 1, 0}}) {
    CAPTURE(p.a, p.b);
    const auto g = at(p.a, p.b);
    CHECK(g.value == inf);
    CHECK(g.gradient[0] == Approx(p.da).epsilon(e));
    CHECK(g.gradient[1] == Approx(p.db).epsilon(e));
  }
  for (const auto& g : {at(inf, nan), at(nan, -inf), at(nan, T(1))}) {
    CHECK(std::isnan(g.gradient[0]));
    CHECK(std::isnan(g.gradient[1]));
  }
  CHECK(etad::gradient([](auto x) { return etad::hypot(x, x); }, inf).gradient[0] ==
        Approx(1.41421356237309504880L).epsilon(e));
  CHECK(etad::gradient([](auto x) { return etad::hypot(x, 3.0); }, -inf).gradient[0] == -1);
  // Both finite, hypot overflowing: the partials at (a/2, b/2) (they were 0 and 0).
  const T m = std::numeric_limits<T>::max();
  const auto big = at(m, -m / 2);
  CHECK(big.value == inf);
  CHECK(big.gradient[0] == Approx(2 / std::sqrt(5.0L)).epsilon(e));
  CHECK(big.gradient[1] == Approx(-1 / std::sqrt(5.0L)).epsilon(e));
  // On a nested tape the limits are constants: second derivatives 0, the limit of (I - n n^T)/f.
  etad::basic_tape<T> outer{etad::persistent};
  const etad::real<T> ao = outer.variable(inf), bo = outer.variable(T(2));
  std::array<etad::real<T>, 2> g;
  {
    etad::basic_tape<etad::real<T>> inner;
    const auto ai = inner.variable(ao), bi = inner.variable(bo);
    const etad::real<etad::real<T>> f = etad::hypot(ai, bi);
    g = inner.gradient(f, ai, bi);
  }
  CHECK(g[0].value() == 1);
  CHECK(g[1].value() == 0);
  CHECK(outer.gradient(g[0], ao, bo) == std::array{T(0), T(0)});
  CHECK(outer.gradient(g[1], ao, bo) == std::array{T(0), T(0)});
}

TEST_CASE("power: result types follow the inputs, not the constants", "[ops][power]") {
  // The rules' partials at float arguments are float, whatever the constant's type (a double
  // exponent, a long double base, an int or a 64-bit exponent): gradient_result<float, N> is
  // float in any case, so it is the partials that show whether float arithmetic was promoted.
  // (powi computed std::pow(float, int), a double, until the exponent was kept as an integer.)
  static_assert(std::is_same_v<decltype(etad::pow_constant_exponent_op<double>{2.5}.partials(2.0f, 5.65f)),
                               std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::pow_constant_base_op<long double>{2.0L}.partials(3.0f, 8.0f)),
                               std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::powi_op{3}.partials(2.0f, 8.0f)), std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::powi_op{3}.value(2.0f)), float>);
  static_assert(std::is_same_v<decltype(etad::basic_powi_op<unsigned long long>{3}.partials(2.0f, 8.0f)),
                               std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::powi_op{3}.partials(2.0L, 8.0L)), std::array<long double, 1>>);
  // And each gradient is the float-only expression, bitwise: c x^(c-1) with c = 2.5f and powf;
  // n x^(n-1) with powf; f ln c with ln 2 in float. (At x = 1.95f, 2.5 x^1.5 and 7 x^6 computed
  // in double and rounded to float differ from these in the last bit with glibc 2.36.)
  const float x = 1.95f;
  const auto d = [x](auto f) { return etad::gradient(f, x); };
  CHECK(d([](auto v) { return etad::pow(v, 2.5); }).gradient[0] == 2.5f * std::pow(x, 1.5f));
  CHECK(d([](auto v) { return etad::pow(v, 7); }).gradient[0] == 7.0f * std::pow(x, 6.0f));
  CHECK(d([](auto v) { return etad::pow(v, 7ULL); }).gradient[0] == 7.0f * std::pow(x, 6.0f));
  const auto e = d([](auto v) { return etad::pow(2.0L, v); });
  CHECK(e.gradient[0] == e.value * std::log(2.0f));
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

namespace {

/// x^n and n x^(n-1) for an integer n (given exactly as a long double and its parity), in long
/// double without pow: |x|^m = e^(m ln(1 + (|x| - 1))) (|x| - 1 is exact near 1), the sign from
/// the parity of m. Good to a few ulps of long double for the |m ln|x|| < 1 used here.
struct integer_power {
  long double value, slope;
};
integer_power integer_power_reference(long double x, long double n, bool odd) {
  const long double l = std::log1p(std::fabs(x) - 1);
  const bool negative = x < 0;
  return {(negative && odd ? -1 : 1) * std::exp(n * l), n * (negative && !odd ? -1 : 1) * std::exp((n - 1) * l)};
}

/// etad::pow(x, n) by the static gradient (n a constant in the lambda) and on a tape (n read
/// from a volatile, so a run-time exponent).
template <class T, class N>
void check_integer_power(T x, N n) {
  const long double nl = static_cast<long double>(n);
  const integer_power want = integer_power_reference(x, nl, n % 2 != 0);
  const long double tol = 8 * std::numeric_limits<T>::epsilon();
  INFO("x = " << etad_test::fmt(x) << ", n = " << etad_test::fmt(nl) << ": x^n " << etad_test::fmt(want.value)
              << ", n x^(n-1) " << etad_test::fmt(want.slope));
  const auto s = etad::gradient([n](auto v) { return etad::pow(v, n); }, x);
  INFO("static: " << etad_test::fmt(s.value) << ", " << etad_test::fmt(s.gradient[0]));
  CHECK(etad_test::close(s.value, want.value, tol));
  CHECK(etad_test::close(s.gradient[0], want.slope, tol));
  volatile N nv = n;
  etad::basic_tape<T> t;
  const etad::real<T> xr = t.variable(x);
  const etad::real<T> z = etad::pow(xr, static_cast<N>(nv));
  const T g = t.gradient(z, xr)[0];
  INFO("tape: " << etad_test::fmt(z.value()) << ", " << etad_test::fmt(g));
  CHECK(etad_test::close(z.value(), want.value, tol));
  CHECK(etad_test::close(g, want.slope, tol));
}

}  // namespace

TEMPLATE_TEST_CASE("power: integer exponents outside int are not truncated", "[ops][power]", float, double,
                   long double) {
  // The exponent was cast to int: pow(x, 5000000000LL) at x = 1 + 1e-10 gave 1.073 (x^705032704)
  // instead of e^0.5 = 1.6487, pow(x, 3000000000u) 0.879 instead of 1.350; and n - 1 overflowed
  // at INT_MIN (undefined behaviour). At 1 + 1e-10 (1 in float) and at -1, where the parity of n
  // and of n - 1 decides the signs; odd exponents beyond 2^24 (float) and 2^53 (double) must not
  // be rounded to even ones.
  using T = TestType;
  for (const T x : {static_cast<T>(1 + 1e-10L), T(-1), T(1)}) {
    check_integer_power(x, 2147483648LL);   // 2^31
    check_integer_power(x, -2147483648LL);  // -2^31 as long long
    check_integer_power(x, std::numeric_limits<int>::min());
    check_integer_power(x, std::numeric_limits<int>::max());
    check_integer_power(x, 5000000000LL);
    check_integer_power(x, -5000000000LL);
    check_integer_power(x, 3000000000u);
    check_integer_power(x, 3000000000UL);
    check_integer_power(x, 16777217LL);  // 2^24 + 1
  }
  for (const T x : {T(-1), T(1)}) {
    check_integer_power(x, 9007199254740993LL);  // 2^53 + 1
    check_integer_power(x, std::numeric_limits<long long>::min());
    check_integer_power(x, std::numeric_limits<long long>::max());
    check_integer_power(x, std::numeric_limits<unsigned long long>::max());
    check_integer_power(x, std::numeric_limits<unsigned long long>::max() - 1);
  }
  // Narrow types still take the int rule, with their values.
  check_integer_power(T(1.5), short{-3});
  check_integer_power(T(1.5), static_cast<unsigned char>(5));
  check_integer_power(T(1.5), 6u);
}

TEST_CASE("power: integer exponents outside int on a nested tape", "[ops][power]") {
  // d2/dx2 x^n = n (n - 1) x^(n-2), from the partial n x^(n-1) differentiated again, including
  // at the least long long, where n - 1 overflows and the partial is n x^n / x.
  const auto second = [](double x, auto n) {
    etad::tape outer;
    const etad::real<double> xo = outer.variable(x);
    etad::real<double> d;
    {
      etad::basic_tape<etad::real<double>> inner;
      const etad::real<etad::real<double>> xi = inner.variable(xo);
      const etad::real<etad::real<double>> z = etad::pow(xi, n);
      d = inner.gradient(z, xi)[0];
    }
    return std::array{d.value(), outer.gradient(d, xo)[0]};
  };
  const double x = 1 + 1e-10;
  const long double l = std::log1p(static_cast<long double>(x) - 1);
  for (const long long n : {5000000000LL, -2147483648LL, 3LL}) {
    CAPTURE(n);
    const long double nl = static_cast<long double>(n);
    const auto d = second(x, n);
    CHECK(etad_test::close(d[0], nl * std::exp((nl - 1) * l), 1e-15));
    CHECK(etad_test::close(d[1], nl * (nl - 1) * std::exp((nl - 2) * l), 1e-15));
  }
  const auto m = second(-1.0, std::numeric_limits<int>::min());
  CHECK(m[0] == 2147483648.0);                            // INT_MIN (-1)^(INT_MIN - 1)
  CHECK(m[1] == Approx(2147483648.0 * 2147483649.0));     // n (n - 1) (-1)^(n - 2)
  const auto w = second(-1.0, std::numeric_limits<long long>::min());
  CHECK(w[0] == 0x1p63);
  CHECK(w[1] == Approx(0x1p126));
}
