// tests/static/sweep_test.cpp — the static sweeps (gradient, jvp, vjp, jacobian) tested with mock
// rules whose derivatives are exact, at points where every product is exact: a failure here is the
// plumbing's, not the maths'. Covers sharing of input-only subexpressions (evaluated once), runtime
// constants, several outputs, large sums, constant evaluation and result types.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace mock {

/// 2x; partial 2.
struct twice_op {
  static constexpr std::string_view name = "twice";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return 2 * x; }
  static constexpr auto partials(const auto&, const auto&) { return std::array{2}; }
};
inline constexpr etad::op_fn<twice_op> twice{};

/// The identity, counting how often its value and its partials are computed.
inline int value_calls = 0;
inline int partial_calls = 0;
struct counting_op {
  static constexpr std::string_view name = "counting";
  static constexpr std::size_t arity = 1;
  static auto value(const auto& x) {
    ++value_calls;
    return x;
  }
  static auto partials(const auto&, const auto&) {
    ++partial_calls;
    return std::array{1};
  }
};
inline constexpr etad::op_fn<counting_op> counting{};

/// lerp(a, b, t) = a + t (b - a); partials 1 - t, t, b - a.
struct lerp_op {
  static constexpr std::string_view name = "lerp";
  static constexpr std::size_t arity = 3;
  static constexpr auto value(const auto& a, const auto& b, const auto& t) { return a + t * (b - a); }
  static constexpr auto partials(const auto& a, const auto& b, const auto& t, const auto&) {
    return std::array{1 - t, t, b - a};
  }
};
inline constexpr etad::op_fn<lerp_op> lerp{};

/// k x with k a parameter of the rule (so the rule is not empty and its nodes are never shared).
struct scale_op {
  static constexpr std::string_view name = "scale";
  static constexpr std::size_t arity = 1;
  double k;
  constexpr auto value(const auto& x) const { return k * x; }
  constexpr auto partials(const auto&, const auto&) const { return std::array{k}; }
};
constexpr auto scale(double k) { return etad::op_fn<scale_op>{scale_op{k}}; }

void reset_counts() { value_calls = partial_calls = 0; }

}  // namespace mock

using mock::counting;
using mock::lerp;
using mock::twice;

TEST_CASE("sweep: a shared subexpression is evaluated once per call", "[static][sweep]") {
  // s = counting(x) is input-only: one slot, computed once, swept once.
  const auto f = [](auto x) {
    const auto s = counting(x);
    return s * s + s;
  };
  mock::reset_counts();
  const auto g = etad::gradient(f, 3.0);
  CHECK(mock::value_calls == 1);
  CHECK(mock::partial_calls == 1);
  CHECK(g.value == 12);
  CHECK(g.gradient[0] == 7);  // 2x + 1
  mock::reset_counts();
  const auto j = etad::jvp(f, std::array{3.0}, std::array{1.0});
  CHECK(mock::value_calls == 1);
  CHECK(j.tangent == 7);
  mock::reset_counts();
  const auto v = etad::vjp(f, std::array{3.0}, 2.0);
  CHECK(mock::value_calls == 1);
  CHECK(v.gradient[0] == 14);
  // Also across the outputs of a Jacobian: one forward sweep, one evaluation.
  mock::reset_counts();
  const auto jac = etad::jacobian([](auto x, auto y) { return std::tuple{counting(x) * y, counting(x) + y}; }, 3.0, 5.0);
  CHECK(mock::value_calls == 1);
  CHECK(jac.jacobian[0] == std::array{5.0, 3.0});
  CHECK(jac.jacobian[1] == std::array{1.0, 1.0});
  // Written out twice (not through a variable) it is still one subexpression: same type.
  mock::reset_counts();
  CHECK(etad::gradient([](auto x) { return counting(x) * counting(x); }, 3.0).gradient[0] == 6);
  CHECK(mock::value_calls == 1);
  // Both sides of a select are evaluated; the shared slot still only once.
  mock::reset_counts();
  CHECK(etad::gradient([](auto x) { return etad::select(x > 0, counting(x), -counting(x)); }, -2.0).gradient[0] == -1);
  CHECK(mock::value_calls == 1);
}

TEST_CASE("sweep: subexpressions with runtime constants are correct, and never shared wrongly", "[static][sweep]") {
  // e = c x holds a constant: not input-only, so each occurrence has its own frame.
  const auto make = [](double c) {
    return [c](auto x) {
      const auto e = c * x;
      return e * e + e;
    };
  };
  for (const double c : {2.5, -1.25, 0.0}) {
    CAPTURE(c);
    const auto g = etad::gradient(make(c), 3.0);  // c^2 x^2 + c x
    CHECK(g.value == c * c * 9 + c * 3);
    CHECK(g.gradient[0] == 2 * c * c * 3 + c);
  }
  // Two nodes of the same type with different constants, and the same for parameterised rules.
  const double c1 = 0.5, c2 = 3;
  CHECK(etad::gradient([=](auto x) { return (c1 * x) * (c2 * x); }, 2.0).gradient[0] == 2 * c1 * c2 * 2);
  CHECK(etad::gradient([](auto x) { return mock::scale(2)(x) * mock::scale(3)(x); }, 2.0).gradient[0] == 24);  // 12 x
  // A counted node over a constant-bearing child is evaluated per occurrence (no slot), correctly.
  CHECK(etad::gradient([](auto x) {
    const auto s = counting(x * 2.0);
    return s * s;
  }, 3.0).gradient[0] == 24);  // (2x)^2 -> 8x
}

namespace {
// Two outputs, with exact partials: o0 = twice(x) y + lerp(x, y, z), o1 = lerp(y, z, x) - twice(z).
// J = [[2y + 1 - z, 2x + z, y - x],
//      [z - y,      1 - x,  x - 2]]
constexpr auto two_outputs = [](auto x, auto y, auto z) {
  return std::tuple{twice(x) * y + lerp(x, y, z), lerp(y, z, x) - twice(z)};
};
constexpr auto output0 = [](auto x, auto y, auto z) { return std::get<0>(two_outputs(x, y, z)); };
constexpr auto output1 = [](auto x, auto y, auto z) { return std::get<1>(two_outputs(x, y, z)); };

template <class T>
constexpr std::array<std::array<T, 3>, 2> expected_jacobian(T x, T y, T z) {
  return {{{2 * y + 1 - z, 2 * x + z, y - x}, {z - y, 1 - x, x - 2}}};
}
}  // namespace

TEMPLATE_TEST_CASE("sweep: jacobian, gradient, vjp and jvp agree with the written-out Jacobian", "[static][sweep]", float,
                   double, long double) {
  using T = TestType;
  const T x = 1.5, y = -2, z = 0.25;  // dyadic: every product below is exact
  const auto J = expected_jacobian(x, y, z);
  const auto jac = etad::jacobian(two_outputs, x, y, z);
  static_assert(std::is_same_v<decltype(jac.jacobian), std::array<std::array<T, 3>, 2>>);
  CHECK(jac.value[0] == 2 * x * y + x + z * (y - x));
  CHECK(jac.value[1] == y + x * (z - y) - 2 * z);
  CHECK(jac.jacobian == J);
  // Row i is the gradient of output i.
  CHECK(etad::gradient(output0, x, y, z).gradient == J[0]);
  CHECK(etad::gradient(output1, x, y, z).gradient == J[1]);
  // vjp: seed^T J.
  const std::array<T, 2> seed{3, -0.5};
  const auto v = etad::vjp(two_outputs, std::array{x, y, z}, seed);
  CHECK(v.value == jac.value);
  for (std::size_t k = 0; k < 3; ++k) CHECK(v.gradient[k] == seed[0] * J[0][k] + seed[1] * J[1][k]);
  CHECK(etad::vjp(output0, std::array{x, y, z}, T(4)).gradient ==
        std::array<T, 3>{4 * J[0][0], 4 * J[0][1], 4 * J[0][2]});
  // jvp: J v.
  const std::array<T, 3> dir{1, 0.5, -2};
  const auto t = etad::jvp(two_outputs, std::array{x, y, z}, dir);
  static_assert(std::is_same_v<decltype(t.tangent), std::array<T, 2>>);
  for (std::size_t i = 0; i < 2; ++i) CHECK(t.tangent[i] == J[i][0] * dir[0] + J[i][1] * dir[1] + J[i][2] * dir[2]);
  // A direction of other numbers (here int) is converted to T: column 1 of J.
  const auto column = etad::jvp(two_outputs, std::array{x, y, z}, std::array{0, 1, 0});
  static_assert(std::is_same_v<decltype(column.tangent), std::array<T, 2>>);
  CHECK(column.tangent == std::array<T, 2>{J[0][1], J[1][1]});
  // The 3-argument rule alone: partials (1 - t, t, b - a).
  CHECK(etad::gradient([](auto a, auto b, auto s) { return lerp(a, b, s); }, x, y, z).gradient ==
        std::array<T, 3>{1 - z, z, y - x});
  // std::pair and std::array of outputs work like a tuple.
  const auto p = etad::jacobian([](auto a, auto b) { return std::pair{a * b, twice(a)}; }, x, y);
  CHECK(p.jacobian == std::array<std::array<T, 2>, 2>{{{y, x}, {2, 0}}});
  const auto a = etad::jacobian([](auto u) { return std::array{u * 2.0, u * 3.0}; }, x);
  CHECK(a.jacobian == std::array<std::array<T, 1>, 2>{{{2}, {3}}});
}

TEMPLATE_TEST_CASE("sweep: ignored inputs, constant functions, identity", "[static][sweep]", float, double, long double) {
  using T = TestType;
  const auto ignores = etad::gradient([](auto x, auto, auto z) { return x * z; }, T(2), T(7), T(3));
  CHECK(ignores.gradient == std::array<T, 3>{3, 0, 2});
  const auto one = etad::gradient([](auto) { return 1.0; }, T(5));
  static_assert(std::is_same_v<decltype(one.value), T>);
  CHECK(one.value == 1);
  CHECK(one.gradient[0] == 0);
  const auto ints = etad::gradient([](auto, auto) { return 7; }, T(5), T(6));
  CHECK(ints.value == 7);
  CHECK(ints.gradient == std::array<T, 2>{0, 0});
  CHECK(etad::jvp([](auto) { return 1.0; }, std::array{T(5)}, std::array{T(1)}).tangent == 0);
  const auto id = etad::gradient([](auto, auto y) { return y; }, T(5), T(6));
  CHECK(id.value == 6);
  CHECK(id.gradient == std::array<T, 2>{0, 1});
  // Many inputs: sum of (i + 1) x_i.
  const auto many = etad::gradient(
      [](auto... x) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
          return ((x * (I + 1)) + ...);
        }(std::index_sequence_for<decltype(x)...>{});
      },
      T(1), T(1), T(1), T(1), T(1), T(1), T(1), T(1), T(1), T(1));
  CHECK(many.gradient == std::array<T, 10>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
}

TEST_CASE("sweep: f may return an expression of hand-built placeholders", "[static][sweep]") {
  // arg<I> names no function, so it counts as f's own input I (the captured-input check rejects
  // only placeholders that name another traced function): d/dx (x y^2) = y^2, d/dy = 2 x y.
  const auto e = etad::arg<0>{} * etad::arg<1>{} * etad::arg<1>{};
  const auto g = etad::gradient([e](auto, auto) { return e; }, 3.0, 5.0);
  CHECK(g.value == 75.0);
  CHECK(g.gradient == std::array{25.0, 30.0});
}

TEST_CASE("sweep: placeholders name the function traced, whatever its qualifiers", "[static][sweep]") {
  const auto f = [](auto x, auto y) { return x * y; };
  using F = std::remove_cvref_t<decltype(f)>;  // f is const
  using E = decltype(etad::detail::trace<2>(f));
  static_assert(std::is_same_v<E, decltype(etad::detail::trace<2>(std::declval<F&>()))>);
  static_assert(std::is_same_v<etad::detail::placeholder_t<1, 0, const F&>, etad::arg<1, 0, F>>);
  static_assert(etad::detail::own_leaves_v<E, 0, F>);
  // The same expression seen from another function (a captured input) or another level is not.
  static_assert(!etad::detail::own_leaves_v<E, 0, decltype([] {})>);
  static_assert(!etad::detail::own_leaves_v<E, 1, F>);
  CHECK(etad::gradient(f, 2.0, 4.0).gradient == std::array{4.0, 2.0});
}

namespace {
// A sum of N = 100 h terms x * k, k = 1..N, built by + from folds of 10 (each + extends one flat
// sum node, so the result is ONE node with N children). Nested small folds because a single fold
// of 1000 `+` costs g++ O(N^2) memory (over 20 GB: every intermediate sum of 2..N terms is its own
// type) and exceeds clang's limit of 256 fold arguments in the test itself.
template <std::size_t Offset, std::size_t... K>
constexpr auto sum10(auto x, std::index_sequence<K...>) {
  return ((x * (Offset + K + 1)) + ...);
}
template <std::size_t Offset, std::size_t... B>
constexpr auto sum100(auto x, std::index_sequence<B...>) {
  return (sum10<Offset + 10 * B>(x, std::make_index_sequence<10>{}) + ...);
}
template <std::size_t... H>
constexpr auto big_sum(auto x, std::index_sequence<H...>) {
  return (sum100<100 * H>(x, std::make_index_sequence<10>{}) + ...);
}

// 1000 terms on both compilers: sum nodes are at most detail::max_sum_width wide (clang 14
// refuses folds over more than 256 arguments, and unbounded flattening cost quadratic memory).
inline constexpr std::size_t sum_terms = 1000;

template <std::size_t N>
constexpr auto nested_twice(auto x) {
  if constexpr (N == 0)
    return x;
  else
    return twice(nested_twice<N - 1>(x));
}
}  // namespace

TEST_CASE("sweep: a 1000-term sum and a 60-deep chain", "[static][sweep]") {
  const auto f = [](auto x) { return big_sum(x, std::make_index_sequence<sum_terms / 100>{}); };
  using sum_t = decltype(f(etad::arg<0>{}));
  static_assert(std::is_same_v<sum_t::op_type, etad::sum_op> && sum_t::arity <= etad::detail::max_sum_width);
  constexpr double total = sum_terms * (sum_terms + 1) / 2;  // sum of k, k = 1..N
  const auto g = etad::gradient(f, 1.5);
  CHECK(g.value == 1.5 * total);
  CHECK(g.gradient[0] == total);
  CHECK(etad::jvp(f, std::array{1.5}, std::array{2.0}).tangent == 2 * total);
  const auto chain = etad::gradient([](auto x) { return nested_twice<60>(x); }, 0.75);
  CHECK(chain.value == std::ldexp(0.75, 60));
  CHECK(chain.gradient[0] == std::ldexp(1.0, 60));
}

TEST_CASE("sweep: gradients, jvp, vjp and jacobians in constant expressions", "[static][sweep]") {
  static_assert(etad::gradient([](auto x) { return x * x * x + 3 * x; }, 2.0).gradient[0] == 15.0);
  // x^2 y + 2 x y^2 - y at (1, 2): value 8, gradient (2xy + 2y^2, x^2 + 4xy - 1) = (12, 8).
  constexpr auto p = etad::gradient([](auto x, auto y) { return x * x * y + 2 * x * y * y - y; }, 1.0, 2.0);
  static_assert(p.value == 8 && p.gradient[0] == 12 && p.gradient[1] == 8);
  // (x - y)^3 / 4 + x at (3, 1): gradient (3 (x-y)^2 / 4 + 1, -3 (x-y)^2 / 4) = (4, -3).
  constexpr auto q = etad::gradient([](auto x, auto y) { return (x - y) * (x - y) * (x - y) / 4 + x; }, 3.0f, 1.0f);
  static_assert(q.gradient[0] == 4 && q.gradient[1] == -3);
  static_assert(etad::gradient([](auto x) { return twice(twice(x)) * x; }, 3.0L).gradient[0] == 24);  // 4 x^2
  static_assert(etad::gradient([](auto x, auto y) { return etad::max(x, y) * etad::select(x < y, x, -y); }, 2.0, 5.0)
                    .gradient[1] == 2);  // y x, x < y
  constexpr auto j = etad::jvp([](auto x, auto y) { return x * y + y; }, std::array{2.0, 3.0}, std::array{1.0, -1.0});
  static_assert(j.value == 9 && j.tangent == 3 - 3);
  constexpr auto v = etad::vjp([](auto x, auto y) { return std::tuple{x * y, x - y}; }, std::array{2.0, 3.0},
                               std::array{1.0, 2.0});
  static_assert(v.gradient[0] == 3 + 2 && v.gradient[1] == 2 - 2);
  constexpr auto jac = etad::jacobian([](auto x, auto y) { return std::tuple{x * y, x + y}; }, 2.0, 3.0);
  static_assert(jac.jacobian[0][0] == 3 && jac.jacobian[0][1] == 2 && jac.jacobian[1][0] == 1 && jac.jacobian[1][1] == 1);
  SUCCEED("checked at compile time");
}

TEST_CASE("sweep: results have the type of the inputs", "[static][sweep]") {
  const auto f = [](auto x, auto y) { return x * y + 2.0; };
  static_assert(std::is_same_v<decltype(etad::gradient(f, 1.0f, 2.0f)), etad::gradient_result<float, 2>>);
  static_assert(std::is_same_v<decltype(etad::gradient(f, 1.0L, 2.0L)), etad::gradient_result<long double, 2>>);
  static_assert(std::is_same_v<decltype(etad::gradient(f, 1.0f, 2.0)), etad::gradient_result<double, 2>>);
  static_assert(std::is_same_v<decltype(etad::gradient(f, 1.0f, 2.0L)), etad::gradient_result<long double, 2>>);
  static_assert(std::is_same_v<decltype(etad::jvp(f, std::array{1.0f, 2.0f}, std::array{1.0f, 0.0f}).tangent), float>);
  static_assert(std::is_same_v<decltype(etad::vjp(f, std::array{1.0L, 2.0L}, 1.0L).gradient), std::array<long double, 2>>);
  static_assert(std::is_same_v<decltype(etad::jacobian(f, 1.0f, 2.0f).jacobian), std::array<std::array<float, 2>, 1>>);
  // Float arithmetic really is float: 1 + 2^-30 rounds to 1 in float, not in double.
  const float tiny = std::ldexp(1.0f, -30);
  CHECK(etad::gradient([](auto x, auto y) { return x + y; }, 1.0f, tiny).value == 1.0f);
  CHECK(etad::gradient([](auto x, auto y) { return x + y; }, 1.0, double(tiny)).value != 1.0);
}

// --- found while writing these tests: 0 * inf leaks between outputs and directions -------------

TEST_CASE("sweep: a Jacobian row is the gradient of its output alone (infinite partial elsewhere)",
          "[static][sweep]") {
  // Row i is swept from output i only: an output with seed 0 pushes nothing, so an infinite
  // partial there (sqrt at 0) cannot make 0 * inf = NaN in another row.
  const auto f = [](auto x) { return std::tuple{etad::sqrt(x), x}; };
  const auto jac = etad::jacobian(f, 0.0);
  CHECK(jac.jacobian[0][0] == std::numeric_limits<double>::infinity());
  CHECK(jac.jacobian[1][0] == 1);
  const auto g = [](auto x, auto y) { return std::tuple{etad::sqrt(x) * 2.0, y}; };
  CHECK(etad::jacobian(g, 0.0, 1.0).jacobian[1] == std::array{0.0, 1.0});
}

TEST_CASE("sweep: jvp in a unit direction equals that gradient component (infinite partial elsewhere)",
          "[static][sweep]") {
  // A zero tangent contributes nothing (not inf * 0): sqrt(x) + y at (0, 1) in direction (0, 1)
  // gives 1, as gradient() says d/dy = 1.
  const auto f = [](auto x, auto y) { return etad::sqrt(x) + y; };
  CHECK(etad::gradient(f, 0.0, 1.0).gradient[1] == 1);  // holds
  CHECK(etad::jvp(f, std::array{0.0, 1.0}, std::array{0.0, 1.0}).tangent == 1);
}

TEST_CASE("sweep: input adjoints add from -0.0, and an input that receives nothing is +0.0",
          "[static][sweep]") {
  // The sum of an input's contributions starts from -0.0 (the identity of +), so the first one
  // is taken as it is; an input that receives none reports +0.0 — absent from f, or reached only
  // through the untaken side of a select, or only through a comparison.
  const auto absent = etad::gradient([](auto x, auto) { return x * 3.0; }, 2.0, 5.0).gradient;
  CHECK(absent[0] == 3.0);
  CHECK(absent[1] == 0.0);
  CHECK_FALSE(std::signbit(absent[1]));
  const auto untaken = [](auto x, auto y) { return etad::select(x > 0, x * y, x); };
  const auto g = etad::gradient(untaken, -1.0, 4.0).gradient;
  CHECK(g[0] == 1.0);
  CHECK(g[1] == 0.0);
  CHECK_FALSE(std::signbit(g[1]));
  CHECK(etad::gradient(untaken, 2.0, 4.0).gradient == std::array{4.0, 2.0});
  // A single contribution of -0.0 is kept as it is (the hand-written d/dy of x y at x = -0).
  const auto h = etad::gradient([](auto x, auto y) { return x * y; }, -0.0, 4.0).gradient;
  CHECK(h[1] == 0.0);
  CHECK(std::signbit(h[1]));
  // Several Jacobian rows: each row starts afresh (reset between outputs).
  const auto jac = etad::jacobian([](auto x, auto y) { return std::tuple{x * y, x + 0.0 * y}; }, 2.0, 3.0);
  CHECK(jac.jacobian[0] == std::array{3.0, 2.0});
  CHECK(jac.jacobian[1] == std::array{1.0, 0.0});
}

TEST_CASE(
    "sweep: when every input is reached there are no flags, and a seed of 0 still reaches none",
    "[static][sweep]") {
  // An expression that reaches every input through rules without a gate (no select, min, ...)
  // returns the adjoints as they are, without reached-flags (static/gradient.hpp); the result
  // must be the one the flags give. A vjp seeded with 0 pushes nothing, so every input reports
  // +0.0 (not -0.0, nor 0 * inf = NaN at sqrt's infinite partial).
  const auto f = [](auto x, auto y) { return etad::sqrt(x) + x * y; };
  using X = etad::arg<0>;
  using Y = etad::arg<1>;
  STATIC_REQUIRE(etad::detail::reaches_every_input_v<decltype(etad::sqrt(X{}) + X{} * Y{}), 2>);
  STATIC_REQUIRE(etad::detail::reaches_every_input_v<decltype(etad::max(X{}, Y{}) + Y{}), 2> ==
                 false);  // x only through max's gate
  STATIC_REQUIRE(etad::detail::reaches_every_input_v<decltype(X{} + etad::stop_gradient(Y{})), 2> ==
                 false);
  const auto v = etad::vjp(f, std::array{0.0, 2.0}, 0.0);
  CHECK(v.gradient == std::array{0.0, 0.0});
  CHECK_FALSE(std::signbit(v.gradient[0]));
  CHECK_FALSE(std::signbit(v.gradient[1]));
  const auto w = etad::vjp(f, std::array{4.0, 2.0}, -0.5);
  CHECK(w.gradient[0] == -0.5 * (0.25 + 2.0));
  CHECK(w.gradient[1] == -0.5 * 4.0);
  // Over a pack of 100: every element reached (sum) — all partials 1. Element 7 left out of
  // the sum and reached only through the untaken side of a select: +0.0, and the other 99
  // still 1 (the flags' path, since not every input is reached for sure).
  std::array<double, 100> x{};
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i) - 50;
  const auto all = etad::gradient([](const auto& p) { return etad::sum(p); }, x);
  for (const double g : all.gradient) CHECK(g == 1.0);
  const auto one = etad::gradient(
      [](const auto& p) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
          return etad::sum(etad::pack(get<(I < 7 ? I : I + 1)>(p)...)) +
                 etad::select(get<0>(p) > 0, get<7>(p), 0.0);
        }(std::make_index_sequence<99>{});
      },
      x);  // get<0>(p) = -50: the select takes 0.0
  CHECK(one.gradient[7] == 0.0);
  CHECK_FALSE(std::signbit(one.gradient[7]));
  for (std::size_t i = 0; i < x.size(); ++i)
    if (i != 7) CHECK(one.gradient[i] == 1.0);
  const auto unused = etad::gradient(
      [](const auto& p) { return get<0>(p) * get<99>(p); }, x);  // 98 inputs unreached: +0.0
  CHECK(unused.gradient[0] == 49.0);
  CHECK(unused.gradient[99] == -50.0);
  for (std::size_t i = 1; i < 99; ++i) {
    CHECK(unused.gradient[i] == 0.0);
    CHECK_FALSE(std::signbit(unused.gradient[i]));
  }
}
