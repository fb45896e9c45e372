// Repeated inputs of one statement: where the optimizer proves two leaves of an expression to be
// one real (copies of the same real, as in `t * t`), record() stores ONE partial for it, the sum
// of the occurrences' partials (detail::known_equal, tape/real.hpp). This file is compiled with
// -O3 (tests/CMakeLists.txt), as the benchmarks are: the exact counts below are what g++ 12 and
// clang 14 (the compilers CI uses) prove there; another compiler may merge less, which these
// tests report. (Built without optimization, nothing is merged; the other tape tests, at -O2,
// accept either count.) Expected gradients are closed forms, or the static layer's.
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <utility>

using etad::real;

TEST_CASE("tape merge: t * t records one input with partial 2t", "[tape][merge]") {
  etad::tape tape;
  const real t = tape.variable(0.75);
  const real s = t * t;
  CHECK(tape.statements() == 2);
  CHECK(tape.partials() == 1);
  CHECK(tape.gradient(s, t)[0] == 1.5);  // exact: 0.75 + 0.75
}

TEST_CASE("tape merge: each real once, other reals never merged", "[tape][merge]") {
  etad::tape tape;
  const real x = tape.variable(0.6), y = tape.variable(-1.7);
  const std::size_t p0 = tape.partials();
  // Leaves x, y, y, x: two inputs.
  const real a = x * y + y * x;
  CHECK(tape.partials() - p0 == 2);
  const auto ga = tape.gradient(a, x, y);
  CHECK(ga[0] == 2 * -1.7);
  CHECK(ga[1] == 2 * 0.6);
  // Leaves t, y, t: two inputs, t's partial cos(t) cos(y t) - sin(t) sin(y t) y.
  etad::tape second;
  const real t = second.variable(0.9), u = second.variable(0.4);
  const real b = sin(t) * cos(u * t);
  CHECK(second.partials() == 2);
  const auto gb = second.gradient(b, t, u);
  CHECK(gb[0] == Approx(std::cos(0.9) * std::cos(0.36) - std::sin(0.9) * std::sin(0.36) * 0.4)
                     .epsilon(1e-15));
  CHECK(gb[1] == Approx(-std::sin(0.9) * std::sin(0.36) * 0.9).epsilon(1e-15));
}

TEST_CASE("tape merge: a copy of a real is the same input", "[tape][merge]") {
  etad::tape tape;
  const real x = tape.variable(1.25);
  const real c = x;  // a copy: the same index, so the same input
  const real p = x * c * x;
  CHECK(tape.partials() == 1);
  CHECK(tape.gradient(p, x)[0] == Approx(3 * 1.25 * 1.25).epsilon(1e-15));
}

TEST_CASE("tape merge: the plan merges into kept leaves when answers are not transitive", "[tape][merge]") {
  // record() asks the compiler pair by pair; nothing makes its answers transitive. Here leaf 1
  // is "equal" to leaf 0 and leaf 2 to leaf 1, but leaf 2 not to leaf 0: leaf 2 must go where
  // leaf 1 went (leaf 0, kept), not to leaf 1 (merged away), or its partial would be lost.
  using etad::detail::index_t;
  const index_t in[3] = {10, 11, 12};
  const auto eq = [](index_t a, index_t b) {
    return (a == 10 && b == 11) || (a == 11 && b == 12) || a == b;
  };
  std::size_t into[3];
  bool keep[3];
  CHECK(etad::detail::plan_merge(in, into, keep, eq, std::make_index_sequence<3>{}) == 1);
  CHECK(into[0] == 0);
  CHECK(into[1] == 0);
  CHECK(into[2] == 0);
  CHECK(keep[0]);
  CHECK_FALSE(keep[1]);
  CHECK_FALSE(keep[2]);
  double p[3] = {1.0, 2.0, 4.0};
  etad::detail::apply_merge(p, into, std::make_index_sequence<3>{});
  CHECK(p[0] == 7.0);
  // And with no equal pair, every leaf is kept.
  const auto none = [](index_t, index_t) { return false; };
  CHECK(etad::detail::plan_merge(in, into, keep, none, std::make_index_sequence<3>{}) == 3);
  CHECK((into[0] == 0 && into[1] == 1 && into[2] == 2));
}

TEST_CASE("tape merge: constants' partials go to the sink, merged or not", "[tape][merge]") {
  etad::tape tape;
  const real x = tape.variable(0.5);
  const real c2(2.0), c3(3.0);  // constant reals: leaves with index 0
  const real p = x * c2 * c3;
  // x, and one or two partials for index 0 (the two constants may be merged: both index 0)
  CHECK(tape.partials() >= 2);
  CHECK(tape.partials() <= 3);
  CHECK(tape.gradient(p, x)[0] == 6.0);
}

TEST_CASE("tape merge: statements of more than 16 leaves keep one partial per leaf", "[tape][merge]") {
  etad::tape tape;
  const real x = tape.variable(1.03125);
  // 17 leaves, all x: past detail::max_merged_leaves, nothing is merged.
  const real p = x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x;
  CHECK(tape.partials() == 17);
  CHECK(tape.gradient(p, x)[0] == Approx(17 * std::pow(1.03125, 16)).epsilon(1e-14));
  etad::tape second;
  const real y = second.variable(1.03125);
  const real q = y * y * y * y * y * y * y * y * y * y * y * y * y * y * y * y;  // 16 leaves
  // At the limit: merged as far as the compiler can tell (clang 14 -O3: 5 partials; g++ 12
  // does not see through this deep a product: 16); either way the gradient is right.
  CHECK(second.gradient(q, y)[0] == Approx(16 * std::pow(1.03125, 15)).epsilon(1e-14));
}

TEMPLATE_TEST_CASE("tape merge: float and long double tapes", "[tape][merge]", float, long double) {
  using T = TestType;
  etad::basic_tape<T> tape;
  const etad::real<T> x = tape.variable(T(0.625));
  const etad::real<T> f = x * x + etad::sin(x);
  CHECK(tape.partials() >= 1);
  CHECK(tape.partials() <= 3);
  const T expected = 2 * T(0.625) + std::cos(T(0.625));
  CHECK(tape.gradient(f, x)[0] == Approx(expected).epsilon(std::is_same_v<T, float> ? 1e-6 : 1e-15));
}

TEST_CASE("tape merge: a nested tape's statements are not merged", "[tape][merge]") {
  // Its partials are reals of the outer tape: a sum of them would be a statement there.
  using outer_real = etad::real<double>;
  using inner_real = etad::real<outer_real>;
  etad::tape outer;
  const outer_real x = outer.variable(2.0);
  etad::basic_tape<outer_real> inner;
  const inner_real xi = inner.variable(x);
  const inner_real y = xi * xi * xi;
  CHECK(inner.partials() == 3);
  const outer_real dy = inner.gradient(y, xi)[0];  // 3 x^2, an outer real
  CHECK(dy.value() == 12.0);
  CHECK(outer.gradient(dy, x)[0] == 12.0);  // 6 x
}

namespace {
// The chain benchmark's body (bench/problems/chain.hpp): per iteration tt = t * t (one input, t)
// and t = f(t, x, y, z, tt) with 10 leaf occurrences of 5 reals.
template <class AD>
AD chain(const AD& x, const AD& y, const AD& z, std::size_t k) {
  using std::sin, std::cos, std::exp, std::sqrt;
  AD t = x;
  for (std::size_t i = 0; i < k; ++i) {
    AD tt = t * t;
    t = sin(t) * cos(y * t) + exp(-z * tt) / (1.0 + x * tt) + 0.5 * sqrt(y * z + tt);
  }
  return t;
}
}  // namespace

TEST_CASE("tape merge: the chain body records 1 + 5 partials per iteration", "[tape][merge]") {
  constexpr std::size_t k = 7;
  const double x0 = 0.6, y0 = 0.7, z0 = 0.9;
  etad::tape tape;
  const real x = tape.variable(x0), y = tape.variable(y0), z = tape.variable(z0);
  const real r = chain(x, y, z, k);
  CHECK(tape.statements() == 3 + 2 * k);
  CHECK(tape.partials() == 6 * k);
  const auto g = tape.gradient(r, x, y, z);
  // Independently: forward accumulation of the static layer's local gradients, iteration by
  // iteration (as the benchmark's etad_static does).
  double t = x0, tx = 1, ty = 0, tz = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const auto l = etad::gradient(
        [](auto t, auto x, auto y, auto z) {
          const auto tt = t * t;
          return sin(t) * cos(y * t) + exp(-z * tt) / (1 + x * tt) + 0.5 * sqrt(y * z + tt);
        },
        t, x0, y0, z0);
    const double ft = l.gradient[0];
    t = l.value;
    tx = ft * tx + l.gradient[1];
    ty = ft * ty + l.gradient[2];
    tz = ft * tz + l.gradient[3];
  }
  CHECK(r.value() == Approx(t).epsilon(1e-14));
  CHECK(g[0] == Approx(tx).epsilon(1e-12));
  CHECK(g[1] == Approx(ty).epsilon(1e-12));
  CHECK(g[2] == Approx(tz).epsilon(1e-12));
}
