// tests/static/loop_test.cpp — etad::loop and etad::while_loop (static/loop.hpp), and the fused
// rules they are made of (core/rule.hpp). Expected values come from closed forms, from the same
// loop written out in plain C++ on the tape, and from finite differences of the loop's value.
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace loop_test {

// s <- a s + b, k times from x: s_k = a^k x + b (a^k - 1) / (a - 1).
constexpr auto affine = [](auto s, auto a, auto b) { return a * s + b; };

struct affine_closed_form {
  double value, dx, da, db;
};
affine_closed_form affine_exact(int k, double x, double a, double b) {
  const double ak = std::pow(a, k), ak1 = k == 0 ? 0.0 : k * std::pow(a, k - 1);
  const double geometric = (ak - 1) / (a - 1);  // 1 + a + ... + a^(k-1)
  const double dgeometric = (ak1 * (a - 1) - (ak - 1)) / ((a - 1) * (a - 1));
  return {ak * x + b * geometric, ak, ak1 * x + b * dgeometric, geometric};
}

TEST_CASE("loop: an affine recurrence has the closed form's value and gradient", "[static][loop]") {
  const double x = 0.3, a = 1.1, b = 0.2;
  for (int k : {0, 1, 2, 7, 50}) {
    INFO("k = " << k);
    const auto r = etad::gradient(
        [k](auto x, auto a, auto b) { return etad::loop(k, affine, x, a, b); }, x, a, b);
    const auto e = affine_exact(k, x, a, b);
    CHECK(r.value == Approx(e.value).epsilon(1e-13));
    CHECK(r.gradient[0] == Approx(e.dx).epsilon(1e-13));
    CHECK(r.gradient[1] == Approx(e.da).epsilon(1e-12));
    CHECK(r.gradient[2] == Approx(e.db).epsilon(1e-13));
  }
}

TEST_CASE("loop: zero iterations give the initial state, with gradient 1 for it and 0 for the "
          "parameters", "[static][loop]") {
  const auto r = etad::gradient(
      [](auto x, auto a, auto b) { return etad::loop(0, affine, x * x, a, b); }, 3.0, 2.0, 5.0);
  CHECK(r.value == 9.0);
  CHECK(r.gradient == std::array{6.0, 0.0, 0.0});
}

TEST_CASE("loop: an infinite partial of the state does not make a parameter's gradient NaN",
          "[static][loop]") {
  // s1 = sqrt(s0) + p from s0 = 0: ds1/dp = 1, ds1/ds0 = +inf. The parameter's partial starts at
  // zero and must not become inf * 0.
  const auto r = etad::gradient(
      [](auto s0, auto p) { return etad::loop(1, [](auto s, auto p) { return sqrt(s) + p; }, s0, p); },
      0.0, 2.0);
  CHECK(r.value == 2.0);
  CHECK(std::isinf(r.gradient[0]));
  CHECK(r.gradient[1] == 1.0);
}

// The chain benchmark's body: a loop whose derivative no closed form gives.
constexpr auto chain_body = [](auto t, auto x, auto y, auto z) {
  using etad::sin, etad::cos, etad::exp, etad::sqrt;
  const auto tt = t * t;
  return sin(t) * cos(y * t) + exp(-z * tt) / (1 + x * tt) + 0.5 * sqrt(y * z + tt);
};
constexpr auto chain = [](auto x, auto y, auto z) { return etad::loop(12, chain_body, x, x, y, z); };

TEST_CASE("loop: the gradient equals the tape's of the same loop written out, and finite "
          "differences", "[static][loop]") {
  const std::array p{0.6, 0.7, 0.9};
  const auto r = etad::gradient(chain, p[0], p[1], p[2]);

  // The same twelve iterations as a plain C++ loop on the tape: one statement per iteration.
  etad::tape t;
  const etad::real<double> x = t.variable(p[0]), y = t.variable(p[1]), z = t.variable(p[2]);
  etad::real<double> s = x;
  for (int i = 0; i < 12; ++i) s = chain_body(s, x, y, z);
  const auto g = t.gradient(s, x, y, z);
  CHECK(r.value == Approx(s.value()).epsilon(1e-14));
  for (std::size_t i = 0; i < 3; ++i) CHECK(r.gradient[i] == Approx(g[i]).epsilon(1e-12));

  const auto d = etad_test::fd_gradient(chain, p);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("d/dx" << i << ": loop " << etad_test::fmt(r.gradient[i]) << ", finite difference "
                << etad_test::fmt(d[i].value) << " +- " << etad_test::fmt(d[i].error));
    CHECK(etad_test::close(r.gradient[i], d[i].value, 1e-8, 2 * d[i].error));
  }
}

TEST_CASE("loop: jvp, vjp and jacobian agree with the gradient", "[static][loop]") {
  const std::array p{0.6, 0.7, 0.9};
  const auto r = etad::gradient(chain, p[0], p[1], p[2]);
  const auto wrapped = [](auto x, auto y, auto z) { return chain(x, y, z); };
  const std::array v{0.25, -1.5, 2.0};
  const auto j = etad::jvp(wrapped, p, v);
  CHECK(j.value == r.value);
  CHECK(j.tangent == Approx(r.gradient[0] * v[0] + r.gradient[1] * v[1] + r.gradient[2] * v[2])
                         .epsilon(1e-13));
  const auto b = etad::vjp(wrapped, p, 2.0);
  for (std::size_t i = 0; i < 3; ++i) CHECK(b.gradient[i] == Approx(2 * r.gradient[i]).epsilon(1e-14));

  // Two outputs, each with its own loop: rows of the Jacobian are the outputs' gradients.
  const auto jac = etad::jacobian(
      [](auto x, auto y, auto z) {
        return std::tuple{chain(x, y, z), etad::loop(5, affine, z, x, y)};
      },
      p[0], p[1], p[2]);
  for (std::size_t i = 0; i < 3; ++i) CHECK(jac.jacobian[0][i] == Approx(r.gradient[i]).epsilon(1e-14));
  const auto e = affine_exact(5, p[2], p[0], p[1]);
  CHECK(jac.value[1] == Approx(e.value).epsilon(1e-14));
  CHECK(jac.jacobian[1][0] == Approx(e.da).epsilon(1e-12));
  CHECK(jac.jacobian[1][1] == Approx(e.db).epsilon(1e-13));
  CHECK(jac.jacobian[1][2] == Approx(e.dx).epsilon(1e-13));
}

TEST_CASE("loop: a loop node inside a larger expression, and a loop inside a loop's body",
          "[static][loop]") {
  // f = x * loop + y: the loop is one node among others.
  const auto r = etad::gradient(
      [](auto x, auto a, auto b) { return x * etad::loop(7, affine, x, a, b) + a; }, 0.3, 1.1, 0.2);
  const auto e = affine_exact(7, 0.3, 1.1, 0.2);
  CHECK(r.value == Approx(0.3 * e.value + 1.1).epsilon(1e-14));
  CHECK(r.gradient[0] == Approx(e.value + 0.3 * e.dx).epsilon(1e-13));
  CHECK(r.gradient[1] == Approx(0.3 * e.da + 1).epsilon(1e-13));
  CHECK(r.gradient[2] == Approx(0.3 * e.db).epsilon(1e-13));

  // Nested: each outer iteration multiplies by a three times: s_k = x a^(3k).
  const auto nested = etad::gradient(
      [](auto x, auto a) {
        return etad::loop(
            4,
            [](auto s, auto a) {
              return etad::loop(3, [](auto u, auto a) { return u * a; }, s, a);
            },
            x, a);
      },
      1.5, 1.2);
  CHECK(nested.value == Approx(1.5 * std::pow(1.2, 12)).epsilon(1e-14));
  CHECK(nested.gradient[0] == Approx(std::pow(1.2, 12)).epsilon(1e-14));
  CHECK(nested.gradient[1] == Approx(1.5 * 12 * std::pow(1.2, 11)).epsilon(1e-14));
}

TEST_CASE("while_loop: the trip count follows the values, and the gradient is that of the "
          "iterations that ran", "[static][loop]") {
  // s <- s y while s < 100, from x: 2 -> 6 -> 18 -> 54 -> 162, four iterations: s = x y^4.
  const auto grow = [](auto x, auto y) {
    return etad::while_loop([](double s, double) { return s < 100; },
                            [](auto s, auto y) { return s * y; }, x, y);
  };
  const auto r = etad::gradient(grow, 2.0, 3.0);
  CHECK(r.value == 162.0);
  CHECK(r.gradient[0] == 81.0);          // y^4
  CHECK(r.gradient[1] == 4 * 2.0 * 27);  // 4 x y^3
  // A condition false at once: no iteration.
  const auto none = etad::gradient(grow, 200.0, 3.0);
  CHECK(none.value == 200.0);
  CHECK(none.gradient == std::array{1.0, 0.0});
  // On numbers, the loop is computed at once.
  CHECK(grow(2.0, 3.0) == 162.0);
}

TEST_CASE("loop: on numbers, in their common floating-point type (double for integers)",
          "[static][loop]") {
  const auto mul = [](auto t, auto y) { return t * y; };
  const auto a = etad::loop(3, mul, 1, 2.5);  // an int initial state, a double parameter
  static_assert(std::is_same_v<decltype(a), const double>);
  CHECK(a == 15.625);
  const auto b = etad::loop(3, mul, 1, 2);
  static_assert(std::is_same_v<decltype(b), const double>);
  CHECK(b == 8.0);
  const auto c = etad::loop(3, mul, 1.5f, 2.0f);
  static_assert(std::is_same_v<decltype(c), const float>);
  CHECK(c == 12.0f);
}

TEST_CASE("loop: on the tape, a loop is one statement with the loop's partials",
          "[static][loop][tape]") {
  etad::tape t;
  const etad::real<double> x = t.variable(0.3), a = t.variable(1.1), b = t.variable(0.2);
  const std::size_t before = t.statements();
  const etad::real<double> s = etad::loop(7, affine, x, a, b) * x;
  CHECK(t.statements() == before + 1);
  const auto e = affine_exact(7, 0.3, 1.1, 0.2);
  const auto [dx, da, db] = t.gradient(s, x, a, b);
  CHECK(s.value() == Approx(0.3 * e.value).epsilon(1e-14));
  CHECK(dx == Approx(e.value + 0.3 * e.dx).epsilon(1e-13));
  CHECK(da == Approx(0.3 * e.da).epsilon(1e-13));
  CHECK(db == Approx(0.3 * e.db).epsilon(1e-13));
}

TEST_CASE("loop: float and long double", "[static][loop]") {
  const auto f = etad::gradient(
      [](auto x, auto a, auto b) { return etad::loop(7, affine, x, a, b); }, 0.3f, 1.1f, 0.2f);
  static_assert(std::is_same_v<decltype(f.value), float>);
  const auto e = affine_exact(7, double(0.3f), double(1.1f), double(0.2f));
  CHECK(f.value == Approx(e.value).epsilon(1e-5));
  CHECK(f.gradient[1] == Approx(e.da).epsilon(1e-5));
  const auto l = etad::gradient(
      [](auto x, auto y) { return etad::loop(3, [](auto t, auto y) { return t * t * y; }, x, y); },
      1.1L, 0.9L);
  // s3 = x^8 y^7: d/dx = 8 x^7 y^7, d/dy = 7 x^8 y^6.
  CHECK(std::fabs(l.gradient[0] - 8 * std::pow(1.1L, 7) * std::pow(0.9L, 7)) < 1e-16L);
  CHECK(std::fabs(l.gradient[1] - 7 * std::pow(1.1L, 8) * std::pow(0.9L, 6)) < 1e-16L);
}

// Polynomial loops are constant expressions: s3 = x^8, derivative 8 x^7.
constexpr auto squared_thrice =
    etad::gradient([](auto x) { return etad::loop(3, [](auto t) { return t * t; }, x); }, 2.0);
static_assert(squared_thrice.value == 256.0);
static_assert(squared_thrice.gradient[0] == 1024.0);

// A rule that counts the calls of its partials, to see which sweeps differentiate a body.
inline int counted_partials = 0;
struct counted_square_op {
  static constexpr std::string_view name = "counted_square";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return x * x; }
  static auto partials(const auto& x, const auto&) {
    ++counted_partials;
    return std::array{2 * x};
  }
};
// s <- (s * s) a: the body's value is computed as the plain loop below computes it.
constexpr auto counted_body = [](auto s, auto a) { return etad::apply(counted_square_op{}, s) * a; };

TEST_CASE("loop: evaluate() and loops on numbers compute values only, not the body's partials",
          "[static][loop]") {
  double plain = 0.5;
  for (int i = 0; i < 5; ++i) plain = (plain * plain) * 1.1;

  etad::tape t;
  const etad::real<double> x = t.variable(0.5);
  const auto e = etad::loop(5, counted_body, x, 1.1);
  counted_partials = 0;
  CHECK(etad::evaluate(e) == plain);
  CHECK(counted_partials == 0);
  // On numbers, a loop inside a loop's body: the inner loop's value only, too.
  const double nested = etad::loop(
      2, [](auto s, auto a) { return etad::loop(5, counted_body, s, a); }, 0.5, 1.1);
  double nested_plain = 0.5;
  for (int i = 0; i < 10; ++i) nested_plain = (nested_plain * nested_plain) * 1.1;
  CHECK(nested == nested_plain);
  CHECK(counted_partials == 0);
  // A gradient does differentiate the body, once per iteration, and its value is the same.
  const etad::real<double> s = e;
  CHECK(counted_partials == 5);
  CHECK(s.value() == plain);
  // s5 = a^31 x^32: d/dx = 32 a^31 x^31.
  CHECK(t.gradient(s, x)[0] == Approx(32 * std::pow(1.1, 31) * std::pow(0.5, 31)).epsilon(1e-13));
}

// The Alias of a loop node's rule (static/loop.hpp): the position among its children of the
// parameter that is the initial state itself, or 0; -1 for what is not a loop node.
template <class E>
inline constexpr std::size_t alias_of = std::size_t(-1);
template <class B, class S, std::size_t L, std::size_t A, class... C>
inline constexpr std::size_t alias_of<etad::node<etad::loop_op<B, S, L, A>, C...>> = A;

TEST_CASE("loop: a parameter that is the initial state itself takes the partials of both",
          "[static][loop]") {
  // loop(k, affine, a, a, b): s_k = a^k a + b (a^k - 1) / (a - 1), so d/da is the closed form's
  // dx + da at x = a. The two partials are accumulated as one (from 1); init gets none.
  const double a = 1.1, b = 0.2;
  for (int k : {0, 1, 2, 7, 50}) {
    INFO("k = " << k);
    const auto r = etad::gradient(
        [k](auto a, auto b) {
          const auto l = etad::loop(k, affine, a, a, b);
          static_assert(alias_of<std::remove_cvref_t<decltype(l)>> == 1);
          return l;
        },
        a, b);
    const auto e = affine_exact(k, a, a, b);
    CHECK(r.value == Approx(e.value).epsilon(1e-14));
    CHECK(r.gradient[0] == Approx(e.dx + e.da).epsilon(1e-13));
    CHECK(r.gradient[1] == Approx(e.db).epsilon(1e-13));
  }

  // The same input-only expression twice (u = x x as init and as affine's b, after the input b
  // as its a): d/dx = 2 x (dx + db).
  const double x = 1.05;
  const auto u = etad::gradient(
      [](auto x, auto b) {
        const auto l = etad::loop(7, affine, x * x, b, x * x);
        static_assert(alias_of<std::remove_cvref_t<decltype(l)>> == 2);
        return l;
      },
      x, b);
  // affine takes (s, a, b): here a = b (the input) and b = x x.
  const auto eu = affine_exact(7, x * x, b, x * x);
  CHECK(u.value == Approx(eu.value).epsilon(1e-14));
  CHECK(u.gradient[0] == Approx(2 * x * (eu.dx + eu.db)).epsilon(1e-13));
  CHECK(u.gradient[1] == Approx(eu.da).epsilon(1e-13));

  // Not the same: other inputs, and constants (of one type, whatever their values).
  const auto c = etad::gradient(
      [](auto a) {
        const auto l = etad::loop(3, affine, 2.0, a, 2.0);
        static_assert(alias_of<std::remove_cvref_t<decltype(l)>> == 0);
        const auto m = etad::loop(3, affine, a, a * 1.0, a + 0.0);
        static_assert(alias_of<std::remove_cvref_t<decltype(m)>> == 0);
        return l + m;
      },
      a);
  // s_3 = 2 a^3 + 2 (1 + a + a^2), and a^4 + a (1 + a + a^2) from the second loop.
  CHECK(c.gradient[0] == Approx(6 * a * a + 2 * (1 + 2 * a) + 4 * a * a * a + 1 + 2 * a + 3 * a * a)
                             .epsilon(1e-13));

  // A contracting loop long enough that init's partial alone, 0.3^k, would sink below the
  // normal numbers (at k = 589) and to 0: s <- 0.3 s + x from x, d s_k / dx = 0.3^k + (1 -
  // 0.3^k) / 0.7. (Kept apart, the sum is the same to rounding: this checks the value, not
  // the speed, which is docs/performance.md's.)
  const auto contracting = [](auto x) {
    return etad::loop(2000, [](auto s, auto x) { return 0.3 * s + x; }, x, x);
  };
  const auto l = etad::gradient(contracting, 0.5);
  CHECK(l.value == Approx(0.5 / 0.7).epsilon(1e-14));
  CHECK(l.gradient[0] == Approx(1 / 0.7).epsilon(1e-14));

  // The merged partial is init's only: at an infinite adjoint, init gets nothing rather than
  // inf * 0. sqrt(s) with s = x x - 1 (one iteration from x, parameter x) at x = 1: s = 0,
  // ds/dx = 2, so the gradient is +inf, as jvp's tangent and the plain sqrt(x x - 1)'s.
  const auto at_zero = [](auto x) {
    return etad::sqrt(etad::loop(1, [](auto s, auto x) { return s * x - 1; }, x, x));
  };
  const auto z = etad::gradient(at_zero, 1.0);
  CHECK(z.value == 0.0);
  CHECK(z.gradient[0] == std::numeric_limits<double>::infinity());
  CHECK(etad::jvp(at_zero, std::array{1.0}, std::array{1.0}).tangent ==
        std::numeric_limits<double>::infinity());
  CHECK(etad::gradient([](auto x) { return etad::sqrt(x * x - 1); }, 1.0).gradient[0] ==
        std::numeric_limits<double>::infinity());

  // Forward mode and vjp take the same partials.
  const auto twice = [](auto a, auto b) { return etad::loop(7, affine, a, a, b); };
  const auto g = etad::gradient(twice, a, b);
  const auto j = etad::jvp(twice, std::array{a, b}, std::array{0.5, -2.0});
  CHECK(j.tangent == Approx(0.5 * g.gradient[0] - 2.0 * g.gradient[1]).epsilon(1e-13));
  const auto v = etad::vjp(twice, std::array{a, b}, 3.0);
  CHECK(v.gradient[0] == Approx(3 * g.gradient[0]).epsilon(1e-14));
  CHECK(v.gradient[1] == Approx(3 * g.gradient[1]).epsilon(1e-14));
}

TEST_CASE("loop: a negative trip count is an etad::error", "[static][loop][errors]") {
  CHECK_THROWS_AS(etad::loop(-1, affine, 1.0, 2.0, 3.0), etad::error);
  CHECK_THROWS_WITH(
      etad::gradient([](auto x) { return etad::loop(-3, [](auto t) { return t; }, x); }, 1.0),
      Catch::Contains("negative trip count"));
}

}  // namespace loop_test
