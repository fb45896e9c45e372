// tests/static/product_test.cpp — trees of products (rules with `product = true`, such as *) are
// swept as one product of their factors: an input-only factor that occurs k times gets ONE
// partial, k times that of its last occurrence (3 c x^2 for c x x x), and subtrees holding nothing
// else that needs a partial are not visited. Expected values are closed forms at points where
// every product is exact in binary, so the comparisons are exact; the tangent sweep (which does
// not merge) and central differences give independent checks elsewhere. A user's product rule
// of arity 3 is in examples/custom_gradient.cpp.
#include <etad/etad.hpp>

#include "support/finite_difference.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>
#include <type_traits>

#include <boost/mp11/algorithm.hpp>

namespace mock {

/// a * b as a product rule that counts how often its partials are computed, so that a test can
/// see which product nodes the reverse sweep visits.
inline int product_partial_calls = 0;
struct counted_mul_op {
  static constexpr std::string_view name = "counted_mul";
  static constexpr std::size_t arity = 2;
  static constexpr bool product = true;
  static constexpr auto value(const auto& a, const auto& b) { return a * b; }
  static auto partials(const auto& a, const auto& b, const auto&) {
    ++product_partial_calls;
    return std::array{b, a};
  }
};
inline constexpr etad::op_fn<counted_mul_op> cmul{};

}  // namespace mock

namespace {

using etad::arg;
using etad::constant;

// The plan of a product: what each factor, left to right, receives (0: nothing).
template <class E>
constexpr auto weights = etad::detail::product_plan_t<E>::weight;

using X = arg<0>;
using Y = arg<1>;
using C = constant<double>;
using cxxy = decltype(C{} * X{} * X{} * Y{});
using xyx = decltype(X{} * Y{} * X{});
using cx_cx = decltype((C{} * X{}) * (C{} * X{}));
using sin_sin = decltype(sin(X{}) * sin(X{}) * Y{});

static_assert(weights<cxxy> == std::array<std::size_t, 4>{0, 0, 2, 1});
static_assert(weights<xyx> == std::array<std::size_t, 3>{0, 1, 2});
static_assert(weights<cx_cx> == std::array<std::size_t, 4>{0, 0, 0, 2});
static_assert(weights<sin_sin> == std::array<std::size_t, 3>{0, 2, 1});  // sin(x) is one factor
static_assert(etad::detail::merges_factors_v<cxxy>);
static_assert(!etad::detail::merges_factors_v<decltype(C{} * X{} * Y{})>);  // nothing repeats
static_assert(!etad::detail::merges_factors_v<decltype(sin(X{}) * cos(X{}))>);  // distinct factors

// e squared K times over: x^(2^K) as a DAG of K + 1 types, whose tree has 2^K factors.
template <int K, class E>
auto squared(const E& e) {
  if constexpr (K == 0)
    return e;
  else
    return squared<K - 1>(e * e);
}
template <int K>
using squared_t = decltype(squared<K>(X{}));

// Up to detail::product_factor_limit (64) factors a product tree is one list; past it, the
// factors are the node's children, product nodes included: squared 7 times is (x^64)(x^64),
// whose second factor gets the partial, twice.
static_assert(etad::detail::factor_count_v<squared_t<6>> == 64);
static_assert(etad::detail::factors_of<squared_t<6>>::flat);
static_assert(weights<squared_t<6>>[63] == 64 && weights<squared_t<6>>[62] == 0);
static_assert(!etad::detail::factors_of<squared_t<7>>::flat);
static_assert(weights<squared_t<7>> == std::array<std::size_t, 2>{0, 2});
static_assert(etad::detail::factor_count_v<squared_t<8>> == 4);  // x^64 four times
// Squared 12 times: x^64 as 64 factors, the last one receiving 64 times its partial.
static_assert(std::is_same_v<etad::detail::factors_of<squared_t<12>>::type,
                             boost::mp11::mp_repeat_c<boost::mp11::mp_list<squared_t<6>>, 64>>);
static_assert(weights<squared_t<12>>[63] == 64 && weights<squared_t<12>>[0] == 0);

}  // namespace

TEST_CASE("product: x squared 12 times over compiles, and its gradient is 2^12 x^(2^12 - 1)", "[static][product]") {
  // At +-1 every product is exact: value 1, gradient +-2^12. (Listed as one product of 2^K
  // factors, g++ exceeded its constexpr limit from K = 10 on. With the bound, K = 20 compiles in
  // 2.4 s with g++; clang++ takes 26 s there, in its own front end, as it does for a DAG of
  // hypot(e, e) that deep: hence K = 12 here.)
  const auto f = [](auto x) { return squared<12>(x); };
  constexpr double n = 1 << 12;
  CHECK(etad::gradient(f, 1.0).value == 1.0);
  CHECK(etad::gradient(f, 1.0).gradient[0] == n);
  CHECK(etad::gradient(f, -1.0).gradient[0] == -n);
  CHECK(etad::gradient(f, 0.0).gradient[0] == 0.0);
  // Elsewhere each squaring doubles the relative rounding error: up to 2^12 ulps, 9.1e-13.
  const double x = 1 + 0x1p-14;
  const auto [v, g] = etad::gradient(f, x);
  CHECK(v == Approx(std::pow(x, n)).epsilon(4e-12));
  CHECK(g[0] == Approx(n * std::pow(x, n - 1)).epsilon(4e-12));
  CHECK(g[0] == Approx(etad::jvp(f, std::array{x}, std::array{1.0}).tangent).epsilon(4e-12));
}

TEST_CASE("product: a repeated factor gets one partial, k times its last occurrence's", "[static][product]") {
  const double c = 1.5;
  mock::product_partial_calls = 0;
  // c x x x: the two inner products hold only c and earlier occurrences of x: not visited.
  const auto [v, g] = etad::gradient(
      [c](auto x) { return mock::cmul(mock::cmul(mock::cmul(c, x), x), x); }, 2.0);
  CHECK(v == 12.0);
  CHECK(g[0] == 3 * c * 2.0 * 2.0);  // 18, exact
  CHECK(mock::product_partial_calls == 1);

  // No repeated factor: the plain reverse sweep, every product node visited.
  mock::product_partial_calls = 0;
  const auto [v2, g2] = etad::gradient(
      [c](auto x, auto y) { return mock::cmul(mock::cmul(c, x), y); }, 2.0, -0.5);
  CHECK(v2 == -1.5);
  CHECK(g2 == std::array{c * -0.5, c * 2.0});
  CHECK(mock::product_partial_calls == 2);
}

TEST_CASE("product: closed forms of monomials written in different shapes", "[static][product]") {
  const double x = 1.5, y = -2.0, c = 0.75;  // every product below is exact in binary
  SECTION("input-only: x x x y y (a shared slot)") {
    const auto [v, g] = etad::gradient([](auto a, auto b) { return a * a * a * b * b; }, x, y);
    CHECK(v == x * x * x * y * y);
    CHECK(g == std::array{3 * x * x * y * y, 2 * x * x * x * y});
  }
  SECTION("a constant in front, a nested product on the right: c x (x y) x") {
    const auto [v, g] = etad::gradient([c](auto a, auto b) { return c * a * (a * b) * a; }, x, y);
    CHECK(v == c * x * x * x * y);
    CHECK(g == std::array{3 * c * x * x * y, c * x * x * x});
  }
  SECTION("x y x: the repeated factor around another") {
    const auto [v, g] = etad::gradient([](auto a, auto b) { return a * b * a; }, x, y);
    CHECK(g == std::array{2 * x * y, x * x});
  }
  SECTION("(c x)(c x): the repeated factor inside two non-shared products") {
    const auto [v, g] = etad::gradient([c](auto a) { return (c * a) * (c * a); }, x);
    CHECK(g[0] == 2 * c * c * x);
  }
  SECTION("the full cubic of the poly10 benchmark") {
    const std::array<double, 10> k{0.5, -1.25, 2.0, 0.75, -0.25, 1.0, 0.125, -0.5, 1.5, -0.375};
    const auto [v, g] = etad::gradient(
        [&k](auto a, auto b) {
          return k[0] + k[1] * a + k[2] * b + k[3] * a * a + k[4] * a * b + k[5] * b * b +
                 k[6] * a * a * a + k[7] * a * a * b + k[8] * a * b * b + k[9] * b * b * b;
        },
        x, y);
    CHECK(g[0] == k[1] + 2 * k[3] * x + k[4] * y + 3 * k[6] * x * x + 2 * k[7] * x * y + k[8] * y * y);
    CHECK(g[1] == k[2] + k[4] * x + 2 * k[5] * y + k[7] * x * x + 2 * k[8] * x * y + 3 * k[9] * y * y);
  }
}

TEST_CASE("product: a repeated input-only subexpression is one factor", "[static][product]") {
  // sin(x) sin(x) y: d/dx = 2 y sin x cos x, d/dy = sin^2 x.
  for (const double x : {0.3, 1.1, -2.4}) {
    const double y = 1.75;
    const auto [v, g] = etad::gradient([](auto a, auto b) { return sin(a) * sin(a) * b; }, x, y);
    CHECK(g[0] == Approx(2 * y * std::sin(x) * std::cos(x)).epsilon(1e-15));
    CHECK(g[1] == Approx(std::sin(x) * std::sin(x)).epsilon(1e-15));
  }
}

TEST_CASE("product: merged gradients agree with the tangent sweep and central differences", "[static][product]") {
  // Written with etad::exp so that the finite differences evaluate f in long double.
  auto f = [](auto a, auto b) { return 0.3 * a * etad::exp(b) * a * a * etad::exp(b) + b * a * b; };
  for (const auto& p : {std::array{0.7, -0.4}, std::array{-1.3, 0.9}, std::array{2.1, 0.2}}) {
    const auto [v, g] = etad::gradient(f, p[0], p[1]);
    const auto fd = etad_test::fd_gradient(f, p);
    for (std::size_t i = 0; i < 2; ++i) {
      std::array<double, 2> e{};
      e[i] = 1;
      CHECK(g[i] == Approx(etad::jvp(f, p, e).tangent).epsilon(1e-14));
      CHECK(std::fabs(g[i] - static_cast<double>(fd[i].value)) <=
            1e-12 * std::fabs(g[i]) + static_cast<double>(fd[i].error));
    }
  }
}

TEST_CASE("product: special values follow IEEE as the sum of the separate partials would", "[static][product]") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  auto square = [](auto a) { return a * a; };
  CHECK(etad::gradient(square, inf).gradient[0] == inf);     // inf + inf
  CHECK(etad::gradient(square, -inf).gradient[0] == -inf);
  CHECK(etad::gradient(square, -0.0).gradient[0] == 0.0);
  // x x y at x = 0, y = inf: d/dx = 2 x y = 0 inf, NaN either way; d/dy = x^2 = 0.
  const auto [v, g] = etad::gradient([](auto a, auto b) { return a * a * b; }, 0.0, inf);
  CHECK(std::isnan(g[0]));
  CHECK(g[1] == 0.0);
}

TEST_CASE("product: constant evaluation", "[static][product]") {
  static_assert(etad::gradient([](auto x, auto y) { return 2 * x * y * x * x; }, 3.0, 0.5).gradient ==
                std::array{2 * 3 * 3.0 * 0.5 * 3.0, 2 * 27.0});
  SUCCEED();
}
