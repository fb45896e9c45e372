// tests/ops/special_points_test.cpp — documented behaviour at singular points, in every mode:
// the static gradient, jvp, the run-time tape (gradient and gradients()), and first and second
// derivatives from a tape nested in a tape; in float, double and long double. Expected values
// are derived by hand (one-sided limits from the side where the function is defined, IEEE rules).
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace {

/// f'(x) and f''(x) at x in every mode, for a generic unary f.
template <class T>
struct every_mode {
  T value;       // static gradient's value
  T gradient;    // etad::gradient
  T tangent;     // etad::jvp in direction 1
  T tape;        // tape.gradient
  T gradients;   // tape.gradients (unconnected::none: the reached-flags sweep)
  T nested;      // first derivative from the nested tape
  T second;      // second derivative: the outer tape's gradient of the nested one
};

template <class T, class F>
every_mode<T> at(const F& f, T x) {
  every_mode<T> r{};
  const auto s = etad::gradient(f, x);
  r.value = s.value;
  r.gradient = s.gradient[0];
  r.tangent = etad::jvp(f, std::array{x}, std::array{T(1)}).tangent;
  {
    etad::basic_tape<T> t{etad::persistent};
    const etad::real<T> xr = t.variable(x);
    const etad::real<T> z = f(xr);
    r.tape = t.gradient(z, xr)[0];
    const std::vector<etad::real<T>> targets{z}, sources{xr};
    const auto g = t.gradients(targets, sources);
    REQUIRE(g[0].has_value());
    r.gradients = *g[0];
  }
  {
    etad::basic_tape<T> outer;
    const etad::real<T> xo = outer.variable(x);
    etad::real<T> d;
    {
      etad::basic_tape<etad::real<T>> inner;
      const auto xi = inner.variable(xo);
      const etad::real<etad::real<T>> z = f(xi);
      d = inner.gradient(z, xi)[0];
    }
    r.nested = d.value();
    r.second = outer.gradient(d, xo)[0];
  }
  return r;
}

template <class T>
void check_first(const every_mode<T>& m, T want) {
  CHECK(m.gradient == want);
  CHECK(m.tangent == want);
  CHECK(m.tape == want);
  CHECK(m.gradients == want);
  CHECK(m.nested == want);
}

}  // namespace

TEMPLATE_TEST_CASE("special points: sqrt and the logarithms have slope +inf at -0 as at +0", "[ops][special_points]",
                   float, double, long double) {
  // sqrt(-0) = -0 and log(-0) = -inf (IEEE: -0 is a zero). The slope at a zero is the one-sided
  // limit from x > 0, where they are defined: +inf for 1/(2 sqrt x), 1/x, 1/(x ln 2), 1/(x ln 10).
  // Computed as 1/(2 * -0) or 1/-0 it was -inf. The second derivatives are -1/(4 x^(3/2)) and
  // -1/x^2 (times 1/ln 2, 1/ln 10): -inf.
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const T minus_zero = -T(0);
  {
    INFO("sqrt");
    const auto m = at([](auto x) { return etad::sqrt(x); }, minus_zero);
    CHECK(m.value == 0);
    check_first(m, inf);
    CHECK(m.second == -inf);
  }
  {
    INFO("log");
    const auto m = at([](auto x) { return etad::log(x); }, minus_zero);
    CHECK(m.value == -inf);
    check_first(m, inf);
    CHECK(m.second == -inf);
  }
  {
    INFO("log2");
    const auto m = at([](auto x) { return etad::log2(x); }, minus_zero);
    CHECK(m.value == -inf);
    check_first(m, inf);
    CHECK(m.second == -inf);
  }
  {
    INFO("log10");
    const auto m = at([](auto x) { return etad::log10(x); }, minus_zero);
    CHECK(m.value == -inf);
    check_first(m, inf);
    CHECK(m.second == -inf);
  }
  // At +0, unchanged.
  {
    const auto s = at([](auto x) { return etad::sqrt(x); }, T(0));
    check_first(s, inf);
    CHECK(s.second == -inf);
    const auto l = at([](auto x) { return etad::log(x); }, T(0));
    check_first(l, inf);
    CHECK(l.second == -inf);
  }
}

TEMPLATE_TEST_CASE("special points: sqrt(-x) and log(-x) at x = 0 slope like the functions they are",
                   "[ops][special_points]", float, double, long double) {
  // sqrt(-x) is defined for x <= 0, and its slope -1/(2 sqrt(-x)) tends to -inf as x -> 0-; so
  // does that of log(-x), 1/x. At x = +0 the argument -x is -0. pow(-x, 0.5) (whose rule takes
  // IEEE's pow(-0, -0.5) = +inf) already gave -inf: sqrt must agree with it.
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const auto s = at([](auto x) { return etad::sqrt(-x); }, T(0));
  check_first(s, -inf);
  const auto p = at([](auto x) { return etad::pow(-x, 0.5); }, T(0));
  check_first(p, -inf);
  const auto l = at([](auto x) { return etad::log(-x); }, T(0));
  check_first(l, -inf);
  // Away from zero nothing changes: d/dx sqrt(-x) at -4 = -1/4, d/dx log(-x) at -2 = -1/2.
  check_first(at([](auto x) { return etad::sqrt(-x); }, T(-4)), T(-0.25));
  check_first(at([](auto x) { return etad::log(-x); }, T(-2)), T(-0.5));
}

TEMPLATE_TEST_CASE("special points: abs at NaN has NaN first and second derivatives", "[ops][special_points]",
                   float, double, long double) {
  // NaN in, NaN out, at every order: abs''(NaN) came out 1 (the partial was x itself, whose
  // derivative is 1). Elsewhere abs'' is 0, also at the kink (abs'(0) = 0 is a constant).
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto abs = [](auto x) { return etad::abs(x); };
  const auto n = at(abs, nan);
  CHECK(std::isnan(n.value));
  CHECK(std::isnan(n.gradient));
  CHECK(std::isnan(n.tangent));
  CHECK(std::isnan(n.tape));
  CHECK(std::isnan(n.gradients));
  CHECK(std::isnan(n.nested));
  CHECK(std::isnan(n.second));
  for (const T x : {T(0), -T(0), T(2), T(-2), std::numeric_limits<T>::infinity()}) {
    CAPTURE(x);
    const auto m = at(abs, x);
    check_first(m, x > 0 ? T(1) : x < 0 ? T(-1) : T(0));
    CHECK(m.second == 0);
  }
}

TEMPLATE_TEST_CASE("special points: hypot's second derivatives at the origin are 0, as abs''(0)", "[ops][special_points]",
                   float, double, long double) {
  // hypot(x, 0) = |x|, so by abs's convention (abs'(0) = 0, a constant) d2/dx2 at 0 is 0. The
  // Hessian near the origin, (I - n n^T) / hypot, is unbounded; nothing makes it the identity,
  // which the convention's a / 1, b / 1 gave on a nested tape.
  using T = TestType;
  const auto x0 = at([](auto x) { return etad::hypot(x, 0.0); }, T(0));
  check_first(x0, T(0));
  CHECK(x0.second == 0);
  const auto a0 = at([](auto x) { return etad::abs(x); }, T(0));
  CHECK(a0.second == x0.second);

  // The full Hessian by nested tapes at (0, 0), (-0, 0), and at (3, 4), where it is
  // (I - n n^T) / 5 with n = (3, 4) / 5: [[16, -12], [-12, 9]] / 125.
  const auto hessian = [](T a, T b) {
    etad::basic_tape<T> outer{etad::persistent};
    const etad::real<T> ao = outer.variable(a), bo = outer.variable(b);
    std::array<etad::real<T>, 2> g;
    {
      etad::basic_tape<etad::real<T>> inner;
      const auto ai = inner.variable(ao), bi = inner.variable(bo);
      const etad::real<etad::real<T>> f = etad::hypot(ai, bi);
      g = inner.gradient(f, ai, bi);
    }
    CHECK(g[0].value() == (a == 0 && b == 0 ? T(0) : a / T(5)));
    return std::array{outer.gradient(g[0], ao, bo), outer.gradient(g[1], ao, bo)};
  };
  for (const T a : {T(0), -T(0)}) {
    const auto h = hessian(a, T(0));
    CHECK(h[0] == std::array{T(0), T(0)});
    CHECK(h[1] == std::array{T(0), T(0)});
  }
  const auto h = hessian(T(3), T(4));
  const long double e = 8 * std::numeric_limits<T>::epsilon();
  CHECK(h[0][0] == Approx(16 / 125.0L).epsilon(e));
  CHECK(h[0][1] == Approx(-12 / 125.0L).epsilon(e));
  CHECK(h[1][0] == Approx(-12 / 125.0L).epsilon(e));
  CHECK(h[1][1] == Approx(9 / 125.0L).epsilon(e));
}
