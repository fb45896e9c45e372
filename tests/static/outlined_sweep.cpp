// tests/static/outlined_sweep.cpp — the static sweep with parts in functions of their own.
// A subtree of more than ETAD_OUTLINE_LIMIT nodes is swept by ETAD_OUTLINE functions (forward,
// backward, tangent), and so are the shared slots, in chunks of ETAD_OUTLINE_LIMIT / 8, when
// there are more than two chunks' worth, and, with g++, the children of such a subtree 32 at a
// time when it has more than 64; by default only expressions of over a thousand nodes
// (or 256 slots) do that, so this executable is built on its own with ETAD_OUTLINE_LIMIT=16
// (tests/CMakeLists.txt): a macro that changes inline function bodies must not be mixed with
// other settings in one program. (Its main() is Catch2's, from tests/main.cpp.)
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include "support/generated_sum.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

static_assert(ETAD_OUTLINE_LIMIT == 16, "etad_outline_tests must be built with ETAD_OUTLINE_LIMIT=16");

namespace {

using namespace etad_test;

constexpr std::size_t terms = 50;

// The 50-term `+` chain of tools/compile_time.py (generated at build time): nested sum nodes of
// hundreds of nodes, each term (c[k] * A(u) * B(v * w), 8 nodes with its constant) inline.
auto chain = [](const double* c) {
  return [c](auto x, auto y, auto z) {
    return
#include "chain_sum_50.inc"
        ;
  };
};

// The same chain without constants: every node is shared (input-only), so all the work is in
// the slots, which this build sweeps two slots per ETAD_OUTLINE function (slot_chunk = 16 / 8).
auto chain_input_only = [](auto x, auto y, auto z) {
  return
#include "chain_input_only_50.inc"
      ;
};

// The generator's 100-term sum over a pack: one node of 100 children and about 900 nodes, over
// the limit, so with g++ its children are swept in groups of 32 (32, 32, 32, 4), each group in a
// function of its own (detail::grouped_v); clang sweeps them in one (group_wide_nodes).
auto wide = [](const double* c) {
  return [c](auto x, auto y, auto z) {
    return
#include "pack_sum_100.inc"
        ;
  };
};

// f's gradient (reverse, through the outlined backward sweeps) and its jvp along each axis
// (forward, through the outlined tangents) at `in`, against the term-by-term reference.
template <class F, class Want>
void check_gradient_and_jvps(const F& f, const std::array<double, 3>& in, const Want& want) {
  const auto got = etad::gradient(f, in[0], in[1], in[2]);
  CHECK(got.value == Approx(want.value).epsilon(1e-12));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(got.gradient[i] == Approx(want.gradient[i]).epsilon(1e-12));
    std::array<double, 3> e{};
    e[i] = 1;
    const auto t = etad::jvp(f, in, e);
    CHECK(t.value == Approx(want.value).epsilon(1e-12));
    CHECK(t.tangent == Approx(want.gradient[i]).epsilon(1e-12));
  }
}

// The Jacobian of two outputs, f and 2 f - x (reverse sweeps, one per row) at `in`: its rows
// are f's reference gradient and twice it minus the x axis.
template <class F, class Want>
void check_two_output_jacobian(const F& f, const std::array<double, 3>& in, const Want& want) {
  const auto j = etad::jacobian(
      [&f](auto x, auto y, auto z) { return std::tuple{f(x, y, z), 2.0 * f(x, y, z) - x}; },
      in[0], in[1], in[2]);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(j.jacobian[0][i] == Approx(want.gradient[i]).epsilon(1e-12));
    CHECK(j.jacobian[1][i] == Approx(2 * want.gradient[i] - (i == 0 ? 1.0 : 0.0)).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("outlined static sweep: shared subexpressions swept in chunks", "[static][outline]") {
  using P = decltype(etad::detail::make_program<double, 3>(chain_input_only));
  using Sweep = decltype(std::declval<P&>().sw);
  STATIC_REQUIRE(Sweep::slot_chunk == 2);
  STATIC_REQUIRE(Sweep::chunked_slots);
  STATIC_REQUIRE(Sweep::slots > 100);  // A(u), B(v w), v w and their products: many distinct
  std::array<double, terms> ones{};
  ones.fill(1.0);
  for (const std::array<double, 3>& in : {std::array{0.3, 0.5, 0.7}, std::array{0.9, 0.2, 0.45}})
    check_gradient_and_jvps(chain_input_only, in, reference(ones, in));
}

TEST_CASE("outlined static sweep: the chain's nested sums are outlined", "[static][outline]") {
  const auto c = coefficients<terms>();
  using E = decltype(chain(c.data())(etad::arg<0>{}, etad::arg<1>{}, etad::arg<2>{}));
  STATIC_REQUIRE(etad::detail::node_count_v<E> > 400);
  // Its first child is the nested sum of the first 32 terms: large, with work of its own.
  using Nested = etad::detail::child_t_of<E, 0>;
  STATIC_REQUIRE(etad::detail::outlined_v<Nested>);
  // A term, c[k] * A(u) * B(v * w), is 9 nodes: inline at this limit (16).
  using Term = etad::detail::child_t_of<E, 1>;
  STATIC_REQUIRE(etad::detail::node_count_v<Term> == 9);
  STATIC_REQUIRE(!etad::detail::outlined_v<Term>);
  // The nested sum is also held in a one-element array (detail::boxed_v: what keeps g++'s
  // points-to analysis out of it), the term as itself; the tests below go through both.
  using etad::detail::flat_leaf;
  STATIC_REQUIRE(etad::detail::boxed_v<Nested>);
  STATIC_REQUIRE(std::is_array_v<decltype(flat_leaf<0, Nested>::value)>);
  STATIC_REQUIRE(!etad::detail::boxed_v<Term>);
  STATIC_REQUIRE(std::is_same_v<decltype(flat_leaf<1, Term>::value), Term>);
}

TEST_CASE("outlined static sweep: gradient, jvp and jacobian of a 50-term chain",
          "[static][outline]") {
  const auto c = coefficients<terms>();
  const auto f = chain(c.data());
  for (const std::array<double, 3>& in : {std::array{0.3, 0.5, 0.7}, std::array{0.9, 0.2, 0.45}}) {
    const auto want = reference(c, in);
    check_gradient_and_jvps(f, in, want);
    check_two_output_jacobian(f, in, want);
  }
}

TEST_CASE("outlined static sweep: a small formula with constants, closed form", "[static][outline]") {
  // f = a sin(x) y + b (x + k y^2) exp(d x) + (a x + b y)(k x - d y) cos(b y); its last term
  // has 19 nodes, with constants: outlined at this limit (16).
  const double a = 1.5, b = -0.75, k = 2.0, d = 0.5;
  const auto f = [=](auto x, auto y) {
    return a * sin(x) * y + b * (x + k * y * y) * exp(d * x) +
           (a * x + b * y) * (k * x - d * y) * cos(b * y);
  };
  using E = decltype(f(etad::arg<0>{}, etad::arg<1>{}));
  STATIC_REQUIRE(etad::detail::outlined_v<etad::detail::child_t_of<E, 2>>);
  for (const auto [x, y] : {std::array{0.4, -1.1}, std::array{-2.0, 0.3}}) {
    const double q = x + k * y * y, ex = std::exp(d * x);
    const double P = a * x + b * y, Q = k * x - d * y, C = std::cos(b * y);
    const double want = a * std::sin(x) * y + b * q * ex + P * Q * C;
    const double dx = a * std::cos(x) * y + b * ex + b * q * d * ex + (a * Q + P * k) * C;
    const double dy = a * std::sin(x) + b * 2 * k * y * ex + (b * Q - P * d) * C -
                      P * Q * b * std::sin(b * y);
    const auto got = etad::gradient(f, x, y);
    CHECK(got.value == Approx(want).epsilon(1e-14));
    CHECK(got.gradient[0] == Approx(dx).epsilon(1e-14));
    CHECK(got.gradient[1] == Approx(dy).epsilon(1e-14));
    const auto t = etad::jvp(f, std::array{x, y}, std::array{0.25, -2.0});
    CHECK(t.tangent == Approx(0.25 * dx - 2.0 * dy).epsilon(1e-13));
  }
}

TEST_CASE("outlined static sweep: a 100-term pack, its children in groups", "[static][outline]") {
  constexpr std::size_t n = 100;
  const auto c = coefficients<n>();
  const auto f = wide(c.data());
  using E = decltype(f(etad::arg<0>{}, etad::arg<1>{}, etad::arg<2>{}));
  STATIC_REQUIRE(E::arity == n);
  STATIC_REQUIRE(etad::detail::grouped_v<E> == etad::detail::group_wide_nodes);
  STATIC_REQUIRE(etad::detail::group_count_v<E> == 4);
  STATIC_REQUIRE(etad::detail::group_size_v<E, 0> == 32);
  STATIC_REQUIRE(etad::detail::group_size_v<E, 3> == 4);
  // A term is 9 nodes: not outlined on its own, so the groups are what cuts this node.
  STATIC_REQUIRE(!etad::detail::outlined_v<etad::detail::child_t_of<E, 0>>);
  for (const std::array<double, 3>& in : {std::array{0.3, 0.5, 0.7}, std::array{0.9, 0.2, 0.45}}) {
    const auto want = reference(c, in);
    check_gradient_and_jvps(f, in, want);
    check_two_output_jacobian(f, in, want);
  }
}

TEST_CASE("outlined static sweep: a tape statement over a pack of 70 squares, in groups",
          "[static][outline][tape]") {
  // sum of x_i^2 over 70 reals: one statement whose local gradient is the static sweep of a
  // node of 70 children (211 nodes), grouped with g++ (32, 32, 6). Partials 2 x_i (no x_i is
  // 0, so a child skipped or visited twice shows in the value or the gradient).
  constexpr std::size_t n = 70;
  const auto at = [](std::size_t i) { return 0.05 * double(i + 1) - 0.97; };  // x_i
  etad::tape t;
  std::array<etad::real<double>, n> x;
  for (std::size_t i = 0; i < n; ++i) x[i] = t.variable(at(i));
  const auto e = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return sum(etad::pack((x[I] * x[I])...));
  }(std::make_index_sequence<n>{});
  using E = std::remove_cvref_t<decltype(e)>;
  STATIC_REQUIRE(etad::detail::grouped_v<E> == etad::detail::group_wide_nodes);
  STATIC_REQUIRE(etad::detail::group_count_v<E> == 3);
  const etad::real<double> r = e;
  double want = 0;
  for (std::size_t i = 0; i < n; ++i) want += at(i) * at(i);
  CHECK(r.value() == Approx(want).epsilon(1e-14));
  std::array<double, n> g{};
  t.gradient(r, std::span<const etad::real<double>>(x), std::span<double>(g));
  for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == 2 * at(i));
}
