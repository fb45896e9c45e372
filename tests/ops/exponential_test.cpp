// tests/ops/exponential_test.cpp — exp, exp2, expm1, log, log2, log10, log1p: gradients against
// finite differences at seeded points, closed forms, and the documented values at 0, ±inf, NaN.
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

using etad_test::binary;
using etad_test::check_ops;
using etad_test::unary;

TEST_CASE("exponential: gradients match finite differences", "[ops][exponential]") {
  // log-type domains start at 0.01 (or -0.99 for log1p): 1/x is well conditioned there, and the
  // finite difference's step (5e-7) stays far from the pole.
  check_ops(unary("exp", [](auto x) { return etad::exp(x); }, {-10, 10}),
            unary("exp2", [](auto x) { return etad::exp2(x); }, {-10, 10}),
            unary("expm1", [](auto x) { return etad::expm1(x); }, {-5, 5}),
            unary("expm1 near 0", [](auto x) { return etad::expm1(x); }, {-1e-3, 1e-3}),
            unary("log", [](auto x) { return etad::log(x); }, {0.01, 100}),
            unary("log small", [](auto x) { return etad::log(x); }, {1e-6, 1e-3}, {.fd_scale = 1e-6}),
            unary("log2", [](auto x) { return etad::log2(x); }, {0.01, 100}),
            unary("log10", [](auto x) { return etad::log10(x); }, {0.01, 100}),
            unary("log1p", [](auto x) { return etad::log1p(x); }, {-0.99, 10}),
            unary("log1p near 0", [](auto x) { return etad::log1p(x); }, {-1e-3, 1e-3}));
}

TEST_CASE("exponential: compositions with constants", "[ops][exponential]") {
  check_ops(unary("exp(2 x) - 3", [](auto x) { return etad::exp(2 * x) - 3; }, {-5, 5}),
            unary("log(x / 2.5f)", [](auto x) { return etad::log(x / 2.5f); }, {0.1, 10}),
            unary("log2(4.0 * x) + exp2(-x)", [](auto x) { return etad::log2(4.0 * x) + etad::exp2(-x); }, {0.1, 10}),
            binary("log(exp(x) + exp(y))",
                   [](auto x, auto y) { return etad::log(etad::exp(x) + etad::exp(y)); }, {-5, 5}, {-5, 5}),
            binary("x log10(y) + log1p(x y)",
                   [](auto x, auto y) { return x * etad::log10(y) + etad::log1p(x * y); }, {0.1, 3}, {0.1, 3}),
            unary("expm1(x) / x", [](auto x) { return etad::expm1(x) / x; }, {0.01, 2}));
}

TEMPLATE_TEST_CASE("exponential: closed-form derivatives", "[ops][exponential]", float, double, long double) {
  using T = TestType;
  const auto d = [](auto f, T x) { return static_cast<long double>(etad::gradient(f, x).gradient[0]); };
  const long double e = 8 * std::numeric_limits<T>::epsilon();
  const long double ln2 = 0.693147180559945309417232121458176568L;
  const long double ln10 = 2.302585092994045684017991454684364208L;
  const long double euler_e = 2.718281828459045235360287471352662498L;
  CHECK(d([](auto x) { return etad::exp(x); }, T(0)) == 1);
  CHECK(d([](auto x) { return etad::exp(x); }, T(1)) == Approx(euler_e).epsilon(e));
  CHECK(d([](auto x) { return etad::exp2(x); }, T(3)) == Approx(8 * ln2).epsilon(e));
  CHECK(d([](auto x) { return etad::exp2(x); }, T(-1)) == Approx(ln2 / 2).epsilon(e));
  CHECK(d([](auto x) { return etad::expm1(x); }, T(0)) == 1);
  CHECK(d([](auto x) { return etad::expm1(x); }, T(2)) == Approx(euler_e * euler_e).epsilon(e));
  // Far below 0, where expm1(x) + 1 cancels (it was 0 from x = -38 on in double).
  for (const int x : {-1, -20, -40, -50})
    CHECK(d([](auto x) { return etad::expm1(x); }, T(x)) ==
          Approx(std::exp(static_cast<long double>(x))).epsilon(e));
  CHECK(d([](auto x) { return etad::log(x); }, T(2)) == 0.5);
  CHECK(d([](auto x) { return etad::log(x); }, T(0.25)) == 4);
  CHECK(d([](auto x) { return etad::log2(x); }, T(1)) == Approx(1 / ln2).epsilon(e));
  CHECK(d([](auto x) { return etad::log2(x); }, T(8)) == Approx(1 / (8 * ln2)).epsilon(e));
  CHECK(d([](auto x) { return etad::log10(x); }, T(10)) == Approx(1 / (10 * ln10)).epsilon(e));
  CHECK(d([](auto x) { return etad::log1p(x); }, T(0)) == 1);
  CHECK(d([](auto x) { return etad::log1p(x); }, T(3)) == 0.25);
  // Chain rule through constants: d/dx log(3 x) = 1/x, d/dx exp(-x/2) = -exp(-x/2)/2.
  CHECK(d([](auto x) { return etad::log(3 * x); }, T(4)) == Approx(0.25L).epsilon(e));
  CHECK(d([](auto x) { return etad::exp(-x / 2); }, T(2)) == Approx(-0.5L / euler_e).epsilon(e));
}

TEMPLATE_TEST_CASE("exponential: values at 0, ±inf and NaN", "[ops][exponential]", float, double, long double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto g = [](auto f, T x) { return etad::gradient(f, x); };
  const auto exp = [](auto x) { return etad::exp(x); };
  const auto log = [](auto x) { return etad::log(x); };
  // exp: slope 0 at -inf, +inf at +inf; underflow gives an exact 0 slope.
  CHECK(g(exp, -inf).value == 0);
  CHECK(g(exp, -inf).gradient[0] == 0);
  CHECK(g(exp, inf).gradient[0] == inf);
  CHECK(g(exp, T(-1e5)).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::exp2(x); }, -inf).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::exp2(x); }, inf).value == inf);
  CHECK(g([](auto x) { return etad::exp2(x); }, inf).gradient[0] == inf);  // inf ln 2
  CHECK(g([](auto x) { return etad::expm1(x); }, inf).gradient[0] == inf);
  CHECK(g([](auto x) { return etad::expm1(x); }, -inf).value == -1);
  CHECK(g([](auto x) { return etad::expm1(x); }, -inf).gradient[0] == 0);
  // log at 0: value -inf, slope +inf (also at -0); below 0 the value is NaN; at +inf slope 0.
  CHECK(g(log, T(0)).value == -inf);
  CHECK(g(log, T(0)).gradient[0] == inf);
  CHECK(g(log, inf).gradient[0] == 0);
  CHECK(std::isnan(g(log, T(-1)).value));
  // Below 0 the value is NaN and the partial the formula's, 1/x (negative), as documented; so for
  // log2 and log10 (1/(x ln 2), 1/(x ln 10)).
  CHECK(g(log, T(-2)).gradient[0] == T(-0.5));
  CHECK(g(log, -inf).gradient[0] == 0);
  CHECK(g([](auto x) { return etad::log2(x); }, T(-2)).gradient[0] < 0);
  CHECK(g([](auto x) { return etad::log10(x); }, T(-2)).gradient[0] < 0);
  CHECK(g([](auto x) { return etad::log2(x); }, T(0)).value == -inf);
  CHECK(g([](auto x) { return etad::log2(x); }, T(0)).gradient[0] == inf);
  CHECK(g([](auto x) { return etad::log10(x); }, T(0)).gradient[0] == inf);
  CHECK(g([](auto x) { return etad::log10(x); }, inf).gradient[0] == 0);
  // log1p at -1: value -inf, slope +inf.
  CHECK(g([](auto x) { return etad::log1p(x); }, T(-1)).value == -inf);
  CHECK(g([](auto x) { return etad::log1p(x); }, T(-1)).gradient[0] == inf);
  CHECK(g([](auto x) { return etad::log1p(x); }, inf).gradient[0] == 0);
  // log1p below -1: NaN value, the formula's partial 1/(1 + x), negative (as log below 0).
  CHECK(std::isnan(g([](auto x) { return etad::log1p(x); }, T(-2)).value));
  CHECK(g([](auto x) { return etad::log1p(x); }, T(-2)).gradient[0] == -1);
  CHECK(g([](auto x) { return etad::log1p(x); }, T(-5)).gradient[0] == T(-0.25));
  // NaN in: NaN value and NaN slope.
  const auto nan_through = [&](auto f) {
    const auto r = g(f, nan);
    return std::isnan(r.value) && std::isnan(r.gradient[0]);
  };
  CHECK(nan_through(exp));
  CHECK(nan_through([](auto x) { return etad::exp2(x); }));
  CHECK(nan_through([](auto x) { return etad::expm1(x); }));
  CHECK(nan_through(log));
  CHECK(nan_through([](auto x) { return etad::log2(x); }));
  CHECK(nan_through([](auto x) { return etad::log10(x); }));
  CHECK(nan_through([](auto x) { return etad::log1p(x); }));
}

TEST_CASE("exponential: float stays float", "[ops][exponential]") {
  // The ln 2 and ln 10 constants are converted to the argument's type, so a float computation is
  // not dragged up to double. gradient_result<float, N> is float whatever the rules compute in,
  // so it is the rules' partials whose type is checked, and the gradients are compared bitwise
  // with the float-only expressions, at points where the same expressions with ln 2 and ln 10 in
  // double, rounded to float at the end, differ in the last bit (1.45f for exp2, 0.9f for log2
  // and log10).
  static_assert(std::is_same_v<decltype(etad::exp2_op::partials(1.45f, 2.7f)), std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::log2_op::partials(0.9f, -0.15f)), std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::log10_op::partials(0.9f, -0.05f)), std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::exp_op::partials(1.0f, 2.7f)), std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::expm1_op::partials(1.0f, 1.7f)), std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::log_op::partials(2.0f, 0.7f)), std::array<float, 1>>);
  static_assert(std::is_same_v<decltype(etad::log1p_op::partials(2.0f, 1.1f)), std::array<float, 1>>);
  const float ln2 = 0.693147180559945309f, ln10 = 2.302585092994045684f;
  const float a = 1.45f, b = 0.9f;
  CHECK(etad::gradient([](auto x) { return etad::exp2(x); }, a).gradient[0] == std::exp2(a) * ln2);
  CHECK(etad::gradient([](auto x) { return etad::log2(x); }, b).gradient[0] == 1 / (b * ln2));
  CHECK(etad::gradient([](auto x) { return etad::log10(x); }, b).gradient[0] == 1 / (b * ln10));
}
