// tests/tape/higher_order_test.cpp — second (and third) derivatives from tapes nested in tapes: a
// basic_tape<real<double>> records on reals whose values are reals of an outer etad::tape, so
// its gradients are outer reals and the outer tape differentiates them again. Checked against
// closed forms and against finite differences of the static gradient.
#include "support/finite_difference.hpp"
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

namespace {

using real = etad::real<double>;
using real2 = etad::real<etad::real<double>>;

/// d/dx_j of the static gradient's i-th entry, by finite differences (in long double).
template <class F, std::size_t N>
std::array<std::array<etad_test::difference, N>, N> difference_hessian(const F& f, const std::array<double, N>& x) {
  std::array<std::array<etad_test::difference, N>, N> h{};
  for (std::size_t i = 0; i < N; ++i) {
    const auto gi = [&f, i](auto... v) { return etad_tape_test::static_gradient(f, std::array{v...}).gradient[i]; };
    h[i] = etad_test::fd_gradient(gi, x);
  }
  return h;
}

template <class F, std::size_t N>
void check_hessian(std::string_view name, const F& f, const std::array<double, N>& x) {
  const auto h = etad_tape_test::nested_hessian(f, x);
  const auto d = difference_hessian(f, x);
  std::ostringstream m;
  m << name << " at " << etad_test::fmt(x);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j)
      m << "\nH" << i << j << ": nested tapes " << etad_test::fmt(h[i][j]) << ", finite difference "
        << etad_test::fmt(d[i][j].value) << " +- " << etad_test::fmt(d[i][j].error);
  INFO(m.str());
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      CHECK(etad_test::close(h[i][j], d[i][j].value, 1e-6, 1e-8 + d[i][j].error));
      CHECK(etad_test::close(h[i][j], h[j][i], 1e-13, 1e-14));  // symmetric
    }
}

}  // namespace

TEST_CASE("tape higher order: d2/dx2 of x^3 by nested tapes", "[tape][higher_order]") {
  etad::tape outer;
  const real x = outer.variable(2.0);
  real dy;
  {
    etad::basic_tape<real> inner;
    const real2 xi = inner.variable(x);
    const real2 y = xi * xi * xi;
    CHECK(y.value().value() == 8.0);
    dy = inner.gradient(y, xi)[0];  // 3 x^2, an outer real
  }
  CHECK(dy.value() == 12.0);
  CHECK_FALSE(dy.is_constant());
  CHECK(outer.gradient(dy, x)[0] == 12.0);  // 6 x
}

TEST_CASE("tape higher order: mixed partials of sin(x) y", "[tape][higher_order]") {
  // f = sin(x) y: H = [[-sin(x) y, cos x], [cos x, 0]].
  const double xv = 0.8, yv = -1.7;
  const auto h = etad_tape_test::nested_hessian([](auto x, auto y) { return etad::sin(x) * y; }, std::array{xv, yv});
  CHECK(h[0][0] == Approx(-std::sin(xv) * yv).epsilon(1e-15));
  CHECK(h[0][1] == Approx(std::cos(xv)).epsilon(1e-15));
  CHECK(h[1][0] == Approx(std::cos(xv)).epsilon(1e-15));
  CHECK(h[1][1] == 0.0);
}

TEST_CASE("tape higher order: Hessians of ops agree with differences of the static gradient",
          "[tape][higher_order]") {
  const std::array p{0.7, 0.4};
  const std::array q{-1.3, 2.1};
  for (const auto& x : {p, q}) {
    check_hessian("x^2 y + y^3", [](auto a, auto b) { return a * a * b + b * b * b; }, x);
    check_hessian("sin cos", [](auto a, auto b) { return etad::sin(a) * etad::cos(b) + etad::tan(a * 0.5); }, x);
    check_hessian("exp log", [](auto a, auto b) { return etad::exp(a * b) + etad::log(a * a + 1.0); }, x);
    check_hessian("exp2 expm1 log1p",
                  [](auto a, auto b) { return etad::exp2(a) * etad::expm1(b) + etad::log1p(b * b); }, x);
    check_hessian("log2 log10", [](auto a, auto b) { return etad::log2(a * a + 2.0) - etad::log10(b * b + 1.0); }, x);
    check_hessian("sqrt cbrt", [](auto a, auto b) { return etad::sqrt(a * a + b * b + 1.0) + etad::cbrt(a + 5.0); }, x);
    check_hessian("pow variants",
                  [](auto a, auto b) { return etad::pow(a, 3) * b + etad::pow(b * b + 1.0, 1.5) + etad::pow(1.7, a); }, x);
    check_hessian("hyperbolic", [](auto a, auto b) { return etad::sinh(a) * etad::cosh(b) + etad::tanh(a * b); }, x);
    check_hessian("inverse hyperbolic",
                  [](auto a, auto b) { return etad::asinh(a * b) + etad::acosh(b * b + 2.0) + etad::atanh(a * 0.3); }, x);
    check_hessian("inverse circular",
                  [](auto a, auto b) { return etad::asin(a * 0.3) * etad::acos(b * 0.3) + etad::atan(a * b); }, x);
    check_hessian("erf erfc", [](auto a, auto b) { return etad::erf(a) * etad::erfc(b); }, x);
    check_hessian("gamma", [](auto a, auto b) { return etad::lgamma(a * a + 1.0) + etad::tgamma(b * b + 0.5); }, x);
    check_hessian("abs fma", [](auto a, auto b) { return etad::abs(a) * b * b + etad::fma(a, b, a * a); }, x);
    check_hessian("floor and stop_gradient of a constant",
                  [](auto a, auto b) { return etad::floor(a) * b * b + a * a * etad::stop_gradient(3.0); }, x);
  }
}

TEST_CASE("tape higher order: Hessians of reductions on nested tapes", "[tape][higher_order]") {
  // Closed forms: squared_norm: 2 I; prod of (a, b, c): off-diagonal the third factor;
  // log_sum_exp: diag(p) - p p^T with p = softmax; dot(x, x): 2 I; sum and mean: 0.
  const std::array<double, 3> v{0.5, -1.0, 2.0};
  etad::tape outer{etad::persistent};
  std::vector<real> x;
  for (const double e : v) x.push_back(outer.variable(e));
  const auto hessian = [&](auto reduction) {
    std::array<real, 3> g{};
    {
      etad::basic_tape<real> inner;
      std::vector<real2> xi;
      for (const auto& e : x) xi.push_back(inner.variable(e));
      const real2 y = reduction(xi);
      g = inner.gradient(y, xi[0], xi[1], xi[2]);
    }
    std::array<std::array<double, 3>, 3> h{};
    for (std::size_t i = 0; i < 3; ++i) h[i] = outer.gradient(g[i], x[0], x[1], x[2]);
    return h;
  };
  const auto sn = hessian([](const auto& r) { return etad::squared_norm(r); });
  const auto dd = hessian([](const auto& r) { return etad::dot(r, r); });
  const auto pr = hessian([](const auto& r) { return etad::prod(r); });
  const auto su = hessian([](const auto& r) { return etad::sum(r) + etad::mean(r); });
  const auto ls = hessian([](const auto& r) { return etad::log_sum_exp(r); });
  double z = 0;
  for (const double e : v) z += std::exp(e);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      INFO("H" << i << j);
      CHECK(sn[i][j] == (i == j ? 2.0 : 0.0));
      CHECK(dd[i][j] == (i == j ? 2.0 : 0.0));
      CHECK(pr[i][j] == (i == j ? 0.0 : v[3 - i - j]));
      CHECK(su[i][j] == 0.0);
      const double pi = std::exp(v[i]) / z, pj = std::exp(v[j]) / z;
      CHECK(ls[i][j] == Approx((i == j ? pi : 0.0) - pi * pj).epsilon(1e-14).margin(1e-15));
    }
}

TEST_CASE("tape higher order: log_sum_exp on nested tapes is shifted by the maximum",
          "[tape][higher_order]") {
  // At +-1000 the unshifted sum of exponentials overflows or underflows; shifted by the
  // maximum m, log_sum_exp(a, a + 1) = a + 1 + log(1 + e^-1), softmax (q, 1 - q) with
  // q = 1 / (1 + e), and second derivatives q (1 - q) (diagonal) and -q (1 - q).
  const double q = 1 / (1 + std::exp(1.0)), lse1 = 1 + std::log1p(std::exp(-1.0));
  for (const double a : {1000.0, -1000.0, 0.25}) {
    INFO("a = " << a);
    etad::tape outer{etad::persistent};
    const std::array<real, 2> x{outer.variable(a), outer.variable(a + 1)};
    std::array<real, 2> g{};
    double value = 0;
    {
      etad::basic_tape<real> inner;
      const std::array<real2, 2> xi{inner.variable(x[0]), inner.variable(x[1])};
      const real2 y = etad::log_sum_exp(xi);
      value = y.value().value();
      g = inner.gradient(y, xi[0], xi[1]);
    }
    CHECK(value == Approx(a + lse1).epsilon(1e-15));
    CHECK(g[0].value() == Approx(q).epsilon(1e-14));
    CHECK(g[1].value() == Approx(1 - q).epsilon(1e-14));
    const auto h0 = outer.gradient(g[0], x[0], x[1]);
    CHECK(h0[0] == Approx(q * (1 - q)).epsilon(1e-13));
    CHECK(h0[1] == Approx(-q * (1 - q)).epsilon(1e-13));
  }
  // The empty range: -inf, as on a plain tape (not the value-initialized real, 0).
  etad::tape outer;
  etad::basic_tape<real> inner;
  const std::vector<real2> none;
  CHECK(etad::log_sum_exp(none).value().value() == -std::numeric_limits<double>::infinity());
}

TEST_CASE("tape higher order: a loop on nested tapes", "[tape][higher_order]") {
  // z = x^n by n multiplications (an ordinary loop over an int): d2z/dx2 = n (n-1) x^(n-2).
  const int n = 7;
  const double xv = 1.1;
  etad::tape outer;
  const real x = outer.variable(xv);
  real d;
  {
    etad::basic_tape<real> inner;
    const real2 xi = inner.variable(x);
    real2 z = 1.0;
    for (int k = 0; k < n; ++k) z = z * xi;
    d = inner.gradient(z, xi)[0];
  }
  CHECK(d.value() == Approx(n * std::pow(xv, n - 1)).epsilon(1e-14));
  CHECK(outer.gradient(d, x)[0] == Approx(n * (n - 1) * std::pow(xv, n - 2)).epsilon(1e-14));
}

TEST_CASE("tape higher order: an etad::loop node on nested tapes", "[tape][higher_order][loop]") {
  // s <- a s + b, four times: s = a^4 x + b (1 + a + a^2 + a^3). Its Hessian, by hand.
  const double x = 0.7, a = 1.1, b = 0.2;
  const auto h = etad_tape_test::nested_hessian(
      [](auto x, auto a, auto b) {
        return etad::loop(4, [](auto s, auto a, auto b) { return a * s + b; }, x, a, b);
      },
      std::array{x, a, b});
  const double want[3][3] = {{0, 4 * a * a * a, 0},
                             {4 * a * a * a, 12 * a * a * x + b * (2 + 6 * a), 1 + 2 * a + 3 * a * a},
                             {0, 1 + 2 * a + 3 * a * a, 0}};
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) CHECK(h[i][j] == Approx(want[i][j]).epsilon(1e-14).margin(1e-15));
  // while_loop on nested tapes: the condition gets plain numbers. s <- s y while s < 100, from
  // (2, 3): four iterations, s = x y^4; H_xy = 4 y^3, H_yy = 12 x y^2.
  const auto w = etad_tape_test::nested_hessian(
      [](auto x, auto y) {
        return etad::while_loop([](double s, double) { return s < 100; },
                                [](auto s, auto y) { return s * y; }, x, y);
      },
      std::array{2.0, 3.0});
  CHECK(w[0][0] == 0.0);
  CHECK(w[0][1] == 108.0);
  CHECK(w[1][0] == 108.0);
  CHECK(w[1][1] == 216.0);
  // The initial state also a parameter (loop(4, body, a, a, b), whose two partials are one), in
  // a static function called on the nested tape: s = a^5 + b (1 + a + a^2 + a^3), so H_aa =
  // 20 a^3 + b (2 + 6 a), H_ab = 1 + 2 a + 3 a^2, H_bb = 0.
  const auto t = etad_tape_test::nested_hessian(
      [](auto a, auto b) {
        return etad::call(
            [](auto a, auto b) {
              return etad::loop(4, [](auto s, auto a, auto b) { return a * s + b; }, a, a, b);
            },
            a, b);
      },
      std::array{a, b});
  CHECK(t[0][0] == Approx(20 * a * a * a + b * (2 + 6 * a)).epsilon(1e-14));
  CHECK(t[0][1] == Approx(1 + 2 * a + 3 * a * a).epsilon(1e-14));
  CHECK(t[1][0] == Approx(1 + 2 * a + 3 * a * a).epsilon(1e-14));
  CHECK(t[1][1] == 0.0);
  // A nonlinear body: against differences of the static gradient (itself the loop's).
  check_hessian("loop of a s^2 + b",
                [](auto x, auto a, auto b) {
                  return etad::loop(4, [](auto s, auto a, auto b) { return a * s * s + b; }, x, a, b);
                },
                std::array{0.7, 1.1, 0.2});
}

// stop_gradient stops higher orders too: on a nested tape its value is itself a stopped outer
// expression, so the outer tape does not see through it (as TensorFlow and JAX give 0 here).
TEST_CASE("tape higher order: stop_gradient stops second derivatives too", "[tape][higher_order]") {
  const auto h = etad_tape_test::nested_hessian([](auto x, auto y) { return x * etad::stop_gradient(x * y); },
                                                std::array{0.7, 0.4});
  CHECK(h[0][0] == 0.0);  // etad: 0.4 (= y)
  CHECK(h[0][1] == 0.0);  // etad: 0.7 (= x)
  CHECK(h[1][0] == 0.0);
  CHECK(h[1][1] == 0.0);
}

// Comparisons of nested reals, hypot, division, pow and atan2 on nested tapes, and a third tape
// (the rules branch through explicit bool() and return tuples where partials differ in type).
TEST_CASE("tape higher order: third derivative by three tapes", "[tape][higher_order]") {
  // d3/dx3 x^4 = 24 x; d2 = 12 x^2; d1 = 4 x^3.
  const double xv = 1.5;
  etad::tape t1{etad::persistent};
  const real x1 = t1.variable(xv);
  real d2;
  {
    etad::basic_tape<real> t2;
    const real2 x2 = t2.variable(x1);
    real2 d1;
    {
      etad::basic_tape<real2> t3;
      const etad::real<real2> x3 = t3.variable(x2);
      const etad::real<real2> y = x3 * x3 * x3 * x3;
      d1 = t3.gradient(y, x3)[0];
    }
    CHECK(d1.value().value() == 4 * xv * xv * xv);
    d2 = t2.gradient(d1, x2)[0];
  }
  CHECK(d2.value() == 12 * xv * xv);
  CHECK(t1.gradient(d2, x1)[0] == 24 * xv);
}

TEST_CASE("tape higher order: comparisons, hypot, pow and atan2 on nested tapes", "[tape][higher_order]") {
  const std::array x{0.7, 0.4};
  check_hessian("select", [](auto a, auto b) { return etad::select(a > b, a * a * b, b * b); }, x);
  check_hessian("min max", [](auto a, auto b) { return etad::min(a, b) * a + etad::max(a, b) * b; }, x);
  check_hessian("fmin fmax", [](auto a, auto b) { return etad::fmin(a, b) * a + etad::fmax(a, b) * b; }, x);
  check_hessian("division", [](auto a, auto b) { return a / (b * b + 1.0) - 1.0 / (a * a + 2.0) + a / 3.0; }, x);
  check_hessian("hypot", [](auto a, auto b) { return etad::hypot(a, b); }, x);
  check_hessian("pow", [](auto a, auto b) { return etad::pow(a, b); }, x);
  check_hessian("atan2", [](auto a, auto b) { return etad::atan2(a, b); }, x);
  etad::tape outer;
  const real xo = outer.variable(0.7);
  etad::basic_tape<real> inner;
  const real2 xi = inner.variable(xo);
  real2 z = xi;
  while (z < 2.0) z = z * 1.5;  // dynamic control flow on a nested tape
  CHECK(z.value().value() == Approx(0.7 * 1.5 * 1.5 * 1.5));  // 1.05, 1.575 < 2, then 2.3625
}

TEST_CASE("tape higher order: partials documented as 0 at singular points are 0 on nested tapes",
          "[tape][higher_order]") {
  // ops/power.hpp's conventions, on a nested tape, where each partial is an expression of reals
  // (a value-initialised expression once gave 0 * inf = NaN here). Expected: the documented
  // values, which the static gradient also gives.
  const auto first_derivatives = [](const auto& f, double a, double b) {
    etad::tape outer;
    const real ao = outer.variable(a), bo = outer.variable(b);
    etad::basic_tape<real> inner;
    const real2 ai = inner.variable(ao), bi = inner.variable(bo);
    const real2 z = f(ai, bi);
    const auto g = inner.gradient(z, ai, bi);
    return std::array{g[0].value(), g[1].value()};
  };
  const auto check_both = [&](const char* name, const auto& f, double a, double b, double da, double db) {
    INFO(name);
    const auto g = first_derivatives(f, a, b);
    const auto s = etad::gradient(f, a, b).gradient;
    CHECK(g[0] == da);
    CHECK(g[1] == db);
    CHECK(s[0] == da);
    CHECK(s[1] == db);
  };
  const auto hypot = [](auto a, auto b) { return etad::hypot(a, b); };
  const auto pow = [](auto a, auto b) { return etad::pow(a, b); };
  check_both("hypot at (0, 0)", hypot, 0.0, 0.0, 0.0, 0.0);
  check_both("pow at (0, 2)", pow, 0.0, 2.0, 0.0, 0.0);
  check_both("pow at (0, 0)", pow, 0.0, 0.0, 0.0, 0.0);
  check_both("pow at (0, -1)", pow, 0.0, -1.0, -INFINITY, 0.0);
  // Constant exponents 0 (real and integer) and 2, and a constant base 0, at 0 and 1.
  const auto one = [&](const auto& f, double a) { return first_derivatives([&f](auto x, auto) { return f(x); }, a, 0.0)[0]; };
  CHECK(one([](auto x) { return etad::pow(x, 0.0); }, 0.0) == 0.0);
  CHECK(one([](auto x) { return etad::pow(x, 0); }, 0.0) == 0.0);
  CHECK(one([](auto x) { return etad::pow(x, 2); }, 0.0) == 0.0);
  CHECK(one([](auto x) { return etad::pow(0.0, x); }, 1.0) == 0.0);
  CHECK(one([](auto x) { return etad::pow(0.0, x); }, 0.0) == 0.0);
}

TEST_CASE("tape higher order: a first-order adjoint of exactly 0 still carries second derivatives",
          "[tape][higher_order]") {
  // The sweeps skip a statement whose adjoint is exactly zero. On a nested tape that adjoint is
  // an outer real: a zero value with a derivative on the outer tape must still be pushed (only a
  // constant zero is skipped), or its second-order terms are lost.
  // f = u^2 with u = x^2 - 1: f' = 4 x (x^2 - 1), f'' = 12 x^2 - 4. At x = +-1 the adjoint of u,
  // 2u, is 0. Two statements (the short sweep) and four (the register sweep).
  for (const double xv : {1.0, -1.0, 2.0}) {
    INFO("x = " << xv);
    for (const bool long_sweep : {false, true}) {
      etad::tape outer;
      const real x = outer.variable(xv);
      real d;
      {
        etad::basic_tape<real> inner;
        const real2 xi = inner.variable(x);
        real2 f;
        if (long_sweep) {
          const real2 a = xi * xi;
          const real2 u = a - 1.0;
          const real2 w = u * u;
          f = w * 1.0;
        } else {
          const real2 u = xi * xi - 1.0;
          f = u * u;
        }
        d = inner.gradient(f, xi)[0];
      }
      CHECK(d.value() == 4 * xv * (xv * xv - 1));
      CHECK(outer.gradient(d, x)[0] == 12 * xv * xv - 4);
    }
  }
  // Least squares at a zero residual, through gradients() (its sweep with reached-flags):
  // f = (a b - 1)^2 / 2 at (2, 1/2) has gradient 0 and Hessian J^T J = [[b^2, ab], [ab, a^2]].
  {
    etad::tape outer{etad::persistent};
    const real a = outer.variable(2.0), b = outer.variable(0.5);
    std::vector<std::optional<real>> g;
    {
      etad::basic_tape<real> inner;
      const real2 ai = inner.variable(a), bi = inner.variable(b);
      const real2 r = ai * bi - 1.0;
      const real2 f = 0.5 * r * r;
      g = inner.gradients(std::vector<real2>{f}, std::vector<real2>{ai, bi});
    }
    REQUIRE(g[0].has_value());
    REQUIRE(g[1].has_value());
    CHECK(g[0]->value() == 0.0);
    CHECK(outer.gradient(*g[0], a, b) == std::array{0.25, 1.0});
    CHECK(outer.gradient(*g[1], a, b) == std::array{1.0, 4.0});
  }
  // An untaken branch's partial is a constant zero: it records nothing on the outer tape, so
  // the branch's adjoint stays a constant zero and its infinite partial (sqrt at 0, its own
  // statement) stays off the path, as on a double tape: f = x select(x > 0, sqrt(x), 0) at 0
  // has f' = f'' = 0 (the select's adjoint, x, is not a constant). The same through a range
  // statement (dot over consecutive reals, one coefficient 0), and through an ordinary one.
  {
    etad::tape outer;
    const real x = outer.variable(0.0);
    real d;
    {
      etad::basic_tape<real> inner;
      const real2 xi = inner.variable(x);
      const real2 s = etad::sqrt(xi);
      const real2 g = etad::select(xi > 0.0, s, 0.0);
      const real2 f = xi * g;
      d = inner.gradient(f, xi)[0];
    }
    CHECK(d.value() == 0.0);
    CHECK(outer.gradient(d, x)[0] == 0.0);
  }
  for (const bool consecutive : {true, false}) {
    INFO((consecutive ? "a range statement" : "an ordinary statement"));
    etad::tape outer;
    const real w = outer.variable(0.0), v = outer.variable(3.0);
    real d;
    {
      etad::basic_tape<real> inner;
      const real2 wi = inner.variable(w), vi = inner.variable(v);
      std::vector<real2> xs(2);
      xs[0] = etad::sqrt(wi);  // sqrt'(0) = inf
      if (!consecutive) {
        const real2 gap = vi * 2.0;
        CHECK(gap.value().value() == 6.0);
      }
      xs[1] = vi * 1.0;
      const real2 f = vi * etad::dot(xs, std::vector<double>{0.0, 1.0});  // v^2
      d = inner.gradient(f, wi)[0];
    }
    CHECK(d.value() == 0.0);
  }
  // An infinite adjoint times a constant-zero partial is pushed: NaN, as on a double tape
  // (z = log(0 x): dz/dx = inf * 0).
  {
    etad::tape outer;
    const real x = outer.variable(2.0);
    etad::basic_tape<real> inner;
    const real2 xi = inner.variable(x);
    const real2 u = xi * 0.0;
    const real2 z = etad::log(u);
    CHECK(std::isnan(inner.gradient(z, xi)[0].value()));
  }
}

TEST_CASE("tape higher order: pow's mixed second derivative at exponent 0",
          "[tape][higher_order]") {
  // f = a^b: f_a = b a^(b-1), f_ab = a^(b-1) (1 + b ln a), 1/a at b = 0. The partial f_a is 0
  // there, but must still depend on b (it was a constant 0 * a^0, and f_ab came out 0).
  for (const double bv : {0.0, 1e-300, 0.5}) {
    INFO("b = " << bv);
    etad::tape outer{etad::persistent};
    const real a = outer.variable(2.0), b = outer.variable(bv);
    real ga, gb;
    {
      etad::basic_tape<real> inner;
      const real2 ai = inner.variable(a), bi = inner.variable(b);
      const real2 f = etad::pow(ai, bi);
      const auto g = inner.gradient(f, ai, bi);
      ga = g[0];
      gb = g[1];
    }
    const double want = std::pow(2.0, bv - 1) * (1 + bv * std::log(2.0));
    CHECK(outer.gradient(ga, a, b)[1] == Approx(want).epsilon(1e-15));
    CHECK(outer.gradient(gb, a, b)[0] == Approx(want).epsilon(1e-15));
  }
  // Through an expression base: pow(x^2 + 1, y) at (3, 0): f_xy = 2x / (x^2 + 1) = 0.6.
  etad::tape outer{etad::persistent};
  const real x = outer.variable(3.0), y = outer.variable(0.0);
  real gx;
  {
    etad::basic_tape<real> inner;
    const real2 xi = inner.variable(x), yi = inner.variable(y);
    const real2 f = etad::pow(xi * xi + 1.0, yi);
    gx = inner.gradient(f, xi, yi)[0];
  }
  CHECK(gx.value() == 0.0);
  CHECK(outer.gradient(gx, x, y)[1] == Approx(0.6).epsilon(1e-15));
}

TEST_CASE("tape higher order: a loop parameter not reached yet adds nothing on nested tapes",
          "[tape][higher_order][loop]") {
  // s <- sqrt(s) + p once, from s = 0: d/dp = 1 (sqrt's partial at 0 is inf, and the partial
  // with respect to p before the iteration is a constant 0: inf * 0 must not be computed, as
  // statically and on a double tape). d2/dp ds0 = d2/dp2 = 0.
  const auto f = [](auto s0, auto p) {
    return etad::loop(1, [](auto s, auto p) { return sqrt(s) + p; }, s0, p);
  };
  REQUIRE(etad::gradient(f, 0.0, 2.0).gradient[1] == 1.0);
  etad::tape outer{etad::persistent};
  const real s0 = outer.variable(0.0), p = outer.variable(2.0);
  std::array<real, 2> g;
  {
    etad::basic_tape<real> inner;
    const real2 si = inner.variable(s0), pi = inner.variable(p);
    const real2 z = f(si, pi);
    CHECK(z.value().value() == 2.0);
    g = inner.gradient(z, si, pi);
  }
  CHECK(g[1].value() == 1.0);
  CHECK(outer.gradient(g[1], s0, p) == std::array{0.0, 0.0});
  // A parameter whose partial is 0 but depends on the outer variables keeps that dependence:
  // s <- s * p + q twice from s = 0 at q = 0 gives s = p q + q, d/dp = q, d2/dp dq = 1.
  const auto h = etad_tape_test::nested_hessian(
      [](auto s0, auto p, auto q) {
        return etad::loop(2, [](auto s, auto p, auto q) { return s * p + q; }, s0, p, q);
      },
      std::array{0.0, 1.5, 0.0});
  CHECK(h[1][2] == 1.0);
  CHECK(h[2][1] == 1.0);
  CHECK(h[1][1] == 0.0);
}

TEST_CASE("tape higher order: bool constants in conditions on nested tapes", "[tape][higher_order]") {
  // select(true, ...) and `comparison && flag` keep their bool on nested reals (they did not
  // compile there: the bool became a real).
  const auto sel = [](auto x) { return etad::select(true, x * x, x); };
  const auto hs = etad_tape_test::nested_hessian(sel, std::array{3.0});
  CHECK(hs[0][0] == 2.0);
  // z <- z y while z < 100 and fewer than 10 steps, from z = 2 y at y = 3: z = 2 y^4 (three
  // steps), dz/dy = 8 y^3 = 216, d2z/dy2 = 24 y^2 = 216.
  etad::tape outer;
  const real y = outer.variable(3.0);
  real d;
  {
    etad::basic_tape<real> inner;
    const real2 yi = inner.variable(y);
    real2 z = 2.0 * yi;
    int n = 0;
    while (z < 100.0 && n < 10) {
      z = z * yi;
      ++n;
    }
    CHECK(n == 3);
    d = inner.gradient(z, yi)[0];
  }
  CHECK(d.value() == 216.0);
  CHECK(outer.gradient(d, y)[0] == 216.0);
}

TEST_CASE("tape higher order: an inner stop_recording pauses the inner tape only", "[tape][higher_order]") {
  // As with TensorFlow's nested tapes: values computed while the inner tape is paused are
  // constants there, but still outer reals whose derivatives the outer tape records. log(e^x +
  // e^y) has d/dx = softmax; x y has d/dx = y. (The reductions made their value from an outer
  // expression's plain number and lost these derivatives.)
  etad::tape outer{etad::persistent};
  const real x = outer.variable(0.5), y = outer.variable(-1.0);
  real l, p, q;
  {
    etad::basic_tape<real> inner;
    const std::vector<real2> v{inner.variable(x), inner.variable(y)};
    const etad::stop_recording<real> pause;
    const real2 li = etad::log_sum_exp(v), pi = etad::prod(v), qi = v[0] * v[1];
    CHECK(li.is_constant());
    CHECK(pi.is_constant());
    CHECK(qi.is_constant());
    l = li.value();
    p = pi.value();
    q = qi.value();
  }
  const double ex = std::exp(0.5), ey = std::exp(-1.0);
  CHECK(l.value() == Approx(std::log(ex + ey)).epsilon(1e-15));
  const auto gl = outer.gradient(l, x, y);
  CHECK(gl[0] == Approx(ex / (ex + ey)).epsilon(1e-14));
  CHECK(gl[1] == Approx(ey / (ex + ey)).epsilon(1e-14));
  CHECK(outer.gradient(p, x, y) == std::array{-1.0, 0.5});
  CHECK(outer.gradient(q, x, y) == std::array{-1.0, 0.5});
}

TEST_CASE("tape higher order: loops are evaluated and compared on nested reals",
          "[tape][higher_order][loop]") {
  // evaluate() and a comparison take the loop's value on the nested tape's reals (values only).
  etad::tape outer;
  const real x = outer.variable(0.5);
  etad::basic_tape<real> inner;
  const real2 y = inner.variable(x);
  const auto body = [](auto s, auto a) { return s * a + 0.1; };
  double plain = 0.5;
  for (int i = 0; i < 3; ++i) plain = plain * 0.5 + 0.1;
  CHECK(etad::evaluate(etad::loop(3, body, y, y)).value() == plain);
  CHECK(bool(etad::loop(3, body, y, y) < 5.0));
  CHECK(!bool(etad::loop(3, body, y, y) > 5.0));
}

TEST_CASE("tape higher order: a nested real takes numbers of other types", "[tape][higher_order]") {
  // real<real<double>> from and = a double or an int (assignment was ambiguous).
  etad::tape outer;
  etad::basic_tape<real> inner;
  real2 y = 0.5;
  CHECK(y.value().value() == 0.5);
  y = 0.25;
  CHECK(y.value().value() == 0.25);
  CHECK(y.is_constant());
  y = 3;
  CHECK(y.value().value() == 3.0);
  real z;
  z = 2;
  CHECK(z.value() == 2.0);
}
