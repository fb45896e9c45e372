// tests/static/outlined_sweep.cpp — the static sweep with subtrees in functions of their own.
// A subtree of more than ETAD_OUTLINE_LIMIT nodes is swept by ETAD_OUTLINE functions (forward,
// backward, tangent); by default only expressions of over a thousand nodes do that, so this
// executable is built on its own with ETAD_OUTLINE_LIMIT=8 (tests/CMakeLists.txt): a macro that
// changes inline function bodies must not be mixed with other settings in one program.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include "support/generated_sum.hpp"

#include <array>
#include <cmath>
#include <cstddef>

static_assert(ETAD_OUTLINE_LIMIT == 8, "etad_outline_tests must be built with ETAD_OUTLINE_LIMIT=8");

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

}  // namespace

TEST_CASE("outlined static sweep: the chain's nested sums are outlined", "[static][outline]") {
  const auto c = coefficients<terms>();
  using E = decltype(chain(c.data())(etad::arg<0>{}, etad::arg<1>{}, etad::arg<2>{}));
  STATIC_REQUIRE(etad::detail::node_count_v<E> > 400);
  STATIC_REQUIRE(etad::detail::outlines_children_v<E>);
  // Its first child is the nested sum of the first 32 terms: large, with work of its own.
  using Nested = etad::detail::child_t_of<E, 0>;
  STATIC_REQUIRE(etad::detail::outlined_v<Nested>);
  // A term, c[k] * A(u) * B(v * w), is 9 nodes: outlined too at this limit (8).
  using Term = etad::detail::child_t_of<E, 1>;
  STATIC_REQUIRE(etad::detail::node_count_v<Term> == 9);
  STATIC_REQUIRE(etad::detail::outlined_v<Term>);
  // Its product c[k] * A(u) is 4 nodes, and B(v * w) is input-only (a shared slot): inline.
  using Left = etad::detail::child_t_of<Term, 0>;
  using Right = etad::detail::child_t_of<Term, 1>;
  STATIC_REQUIRE(etad::detail::node_count_v<Left> == 4);
  STATIC_REQUIRE(!etad::detail::outlined_v<Left>);
  STATIC_REQUIRE(Right::input_only);
  STATIC_REQUIRE(!etad::detail::outlined_v<Right>);
}

TEST_CASE("outlined static sweep: gradient, jvp and jacobian of a 50-term chain",
          "[static][outline]") {
  const auto c = coefficients<terms>();
  const auto f = chain(c.data());
  for (const std::array<double, 3>& in : {std::array{0.3, 0.5, 0.7}, std::array{0.9, 0.2, 0.45}}) {
    const auto want = reference(c, in);
    const auto got = etad::gradient(f, in[0], in[1], in[2]);
    CHECK(got.value == Approx(want.value).epsilon(1e-12));
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(got.gradient[i] == Approx(want.gradient[i]).epsilon(1e-12));
      std::array<double, 3> e{};
      e[i] = 1;
      const auto t = etad::jvp(f, in, e);  // forward mode through the outlined tangents
      CHECK(t.value == Approx(want.value).epsilon(1e-12));
      CHECK(t.tangent == Approx(want.gradient[i]).epsilon(1e-12));
    }
    // Two outputs: rows are the gradients of f and of 2 f - x.
    const auto j = etad::jacobian(
        [&f](auto x, auto y, auto z) { return std::tuple{f(x, y, z), 2.0 * f(x, y, z) - x}; },
        in[0], in[1], in[2]);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(j.jacobian[0][i] == Approx(want.gradient[i]).epsilon(1e-12));
      CHECK(j.jacobian[1][i] == Approx(2 * want.gradient[i] - (i == 0 ? 1.0 : 0.0)).epsilon(1e-12));
    }
  }
}

TEST_CASE("outlined static sweep: a small formula with constants, closed form", "[static][outline]") {
  // f = a sin(x) y + b (x + c y^2) exp(d x): subtrees with constants of more than 8 nodes.
  const double a = 1.5, b = -0.75, k = 2.0, d = 0.5;
  const auto f = [=](auto x, auto y) {
    return a * sin(x) * y + b * (x + k * y * y) * exp(d * x) + (a * x + b * y) * (k * x - d * y);
  };
  using E = decltype(f(etad::arg<0>{}, etad::arg<1>{}));
  STATIC_REQUIRE(etad::detail::outlines_children_v<E>);
  for (const auto [x, y] : {std::array{0.4, -1.1}, std::array{-2.0, 0.3}}) {
    const double q = x + k * y * y, ex = std::exp(d * x);
    const double want = a * std::sin(x) * y + b * q * ex + (a * x + b * y) * (k * x - d * y);
    const double dx = a * std::cos(x) * y + b * ex + b * q * d * ex + a * (k * x - d * y) +
                      (a * x + b * y) * k;
    const double dy = a * std::sin(x) + b * 2 * k * y * ex + b * (k * x - d * y) -
                      (a * x + b * y) * d;
    const auto got = etad::gradient(f, x, y);
    CHECK(got.value == Approx(want).epsilon(1e-14));
    CHECK(got.gradient[0] == Approx(dx).epsilon(1e-14));
    CHECK(got.gradient[1] == Approx(dy).epsilon(1e-14));
    const auto t = etad::jvp(f, std::array{x, y}, std::array{0.25, -2.0});
    CHECK(t.tangent == Approx(0.25 * dx - 2.0 * dy).epsilon(1e-13));
  }
}
