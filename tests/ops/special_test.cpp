// tests/ops/special_test.cpp — erf, erfc, tgamma, lgamma, digamma: gradients against finite
// differences, and digamma / trigamma against closed forms from the literature (independent of the
// series in ops/special.hpp), reflection at negative non-integers, poles, infinities, NaN.
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

using etad_test::check_ops;
using etad_test::close;
using etad_test::unary;

namespace {
constexpr long double euler_gamma = 0.577215664901532860606512090082402431L;
constexpr long double ln2 = 0.693147180559945309417232121458176568L;
constexpr long double pi = 3.141592653589793238462643383279502884L;

struct known {
  long double x, value;
};

/// psi(x) at points where it has a closed form (Abramowitz & Stegun 6.3.2-6.3.4, 6.3.7).
std::vector<known> digamma_table() {
  std::vector<known> t{
      {1, -euler_gamma},
      {0.5L, -euler_gamma - 2 * ln2},
      {0.25L, -euler_gamma - pi / 2 - 3 * ln2},
      {1 / 3.0L, -euler_gamma - pi / (2 * std::sqrt(3.0L)) - 1.5L * std::log(3.0L)},
      {1.5L, 2 - euler_gamma - 2 * ln2},
      {-0.5L, 2 - euler_gamma - 2 * ln2},  // reflection: psi(1 - x) - psi(x) = pi cot(pi x) = 0
  };
  long double harmonic = 0;  // psi(n + 1) = H_n - gamma
  for (int n = 1; n <= 30; ++n) {
    harmonic += 1.0L / n;
    t.push_back({n + 1.0L, harmonic - euler_gamma});
  }
  return t;
}

/// psi'(x) (trigamma): psi'(1) = pi^2/6, psi'(1/2) = pi^2/2, psi'(n + 1) = pi^2/6 - sum 1/k^2,
/// and by reflection psi'(-1/2) = pi^2 - psi'(3/2) = pi^2/2 + 4.
std::vector<known> trigamma_table() {
  std::vector<known> t{{1, pi * pi / 6}, {0.5L, pi * pi / 2}, {-0.5L, pi * pi / 2 + 4}, {1.5L, pi * pi / 2 - 4}};
  long double s = 0;
  for (int n = 1; n <= 30; ++n) {
    s += 1.0L / (static_cast<long double>(n) * n);
    t.push_back({n + 1.0L, pi * pi / 6 - s});
  }
  return t;
}

template <class T>
long double digamma_tol() {  // measured: float 3.6 eps, double 2 eps, long double 4e-17
  if constexpr (std::is_same_v<T, long double>) return 1e-16L;  // the series' documented truncation
  else return 16 * std::numeric_limits<T>::epsilon();
}
}  // namespace

TEST_CASE("special: gradients match finite differences", "[ops][special]") {
  // Default tolerances suffice at these points. Note: tgamma' = Gamma psi and lgamma' = psi pass
  // through 0 at x0 = 1.4616...; psi has an absolute (not relative) error of a few ulps of ln 10
  // (the shifted argument), so a point within ~1e-3 of x0 would need an absolute floor in float
  // (about 2e-6, times Gamma for tgamma).
  check_ops(unary("erf", [](auto x) { return etad::erf(x); }, {-3, 3}),
            unary("erfc", [](auto x) { return etad::erfc(x); }, {-3, 5}),
            unary("erf(x / 4) * erfc(x)", [](auto x) { return etad::erf(x / 4) * etad::erfc(x); }, {-2, 2}),
            unary("tgamma", [](auto x) { return etad::tgamma(x); }, {0.1, 6}),
            unary("tgamma x < 0", [](auto x) { return etad::tgamma(x); }, {-2.95, -2.05}),
            unary("tgamma (-1, 0)", [](auto x) { return etad::tgamma(x); }, {-0.95, -0.05}),
            unary("lgamma", [](auto x) { return etad::lgamma(x); }, {0.1, 10}),
            unary("lgamma large", [](auto x) { return etad::lgamma(x); }, {10, 1000}),
            unary("lgamma x < 0", [](auto x) { return etad::lgamma(x); }, {-3.95, -3.05}),
            unary("digamma", [](auto x) { return etad::digamma(x); }, {0.1, 10}),
            unary("digamma large", [](auto x) { return etad::digamma(x); }, {10, 1000}),
            unary("digamma x < 0", [](auto x) { return etad::digamma(x); }, {-1.95, -1.05}));
}

TEMPLATE_TEST_CASE("special: digamma against closed forms", "[ops][special]", float, double, long double) {
  using T = TestType;
  for (const auto& [x, ref] : digamma_table()) {
    CAPTURE(x, ref);
    CHECK(close(etad::digamma(static_cast<T>(x)), ref, 0, digamma_tol<T>() * std::max(1.0L, std::fabs(ref))));
    // lgamma' = psi, through the sweep.
    CHECK(close(etad::gradient([](auto v) { return etad::lgamma(v); }, static_cast<T>(x)).gradient[0], ref, 0,
                digamma_tol<T>() * std::max(1.0L, std::fabs(ref))));
  }
  // Large x: psi(x) = ln x - 1/(2x) - 1/(12x^2) + 1/(120x^4) - 1/(252x^6) + O(x^-8).
  for (const long double x : {1e3L, 12345.5L, 1e6L}) {
    CAPTURE(x);
    const long double ref = std::log(x) - 1 / (2 * x) - 1 / (12 * x * x) + 1 / (120 * x * x * x * x);
    CHECK(close(etad::digamma(static_cast<T>(x)), ref, digamma_tol<T>()));
  }
  // Integers are accepted on plain numbers (as double).
  CHECK(close(etad::digamma(1), -euler_gamma, 1e-15));
}

TEMPLATE_TEST_CASE("special: trigamma (the derivative of digamma) against closed forms", "[ops][special]", float, double,
                   long double) {
  using T = TestType;
  const long double rel = std::is_same_v<T, long double> ? 1e-16L : 16 * std::numeric_limits<T>::epsilon();
  for (const auto& [x, ref] : trigamma_table()) {
    CAPTURE(x, ref);
    CHECK(close(etad::gradient([](auto v) { return etad::digamma(v); }, static_cast<T>(x)).gradient[0], ref, rel));
  }
}

TEST_CASE("special: digamma reflection at negative non-integers, against finite differences of std::lgamma",
          "[ops][special]") {
  // psi(x) = d/dx ln|Gamma(x)|; std::lgamma in long double knows nothing of etad's series.
  const auto lg = [](long double v) { return std::lgamma(v); };
  for (const long double x : {-0.5L, -0.01L, -1.5L, -2.3L, -3.7L, -4.1L, -7.25L, -10.6L}) {
    CAPTURE(x);
    const auto d = etad_test::partial_difference(lg, std::array{x}, 0);
    CHECK(close(etad::digamma(static_cast<double>(x)), d.value, 1e-12, d.error));
    CHECK(close(etad::digamma(x), d.value, 1e-12, d.error));
  }
}

TEMPLATE_TEST_CASE("special: gamma and error-function derivatives in closed form", "[ops][special]", float, double,
                   long double) {
  using T = TestType;
  // Relative to max(1, |value|): psi's error is absolute (psi(-1/2) = 0.036 is a difference of
  // O(1) terms).
  const long double e = digamma_tol<T>();
  const auto near = [&](long double v, long double ref) { return close(v, ref, e, e); };
  const auto d = [](auto f, T x) { return static_cast<long double>(etad::gradient(f, x).gradient[0]); };
  const auto tgamma = [](auto x) { return etad::tgamma(x); };
  const auto lgamma = [](auto x) { return etad::lgamma(x); };
  CHECK(near(d(tgamma, T(1)), -euler_gamma));
  CHECK(near(d(tgamma, T(2)), 1 - euler_gamma));
  CHECK(near(d(tgamma, T(3)), 3 - 2 * euler_gamma));  // Gamma(3) psi(3) = 2 (3/2 - gamma)
  CHECK(near(d(tgamma, T(0.5)), std::sqrt(pi) * (-euler_gamma - 2 * ln2)));
  CHECK(near(d(lgamma, T(1)), -euler_gamma));
  CHECK(near(d(lgamma, T(-0.5)), 2 - euler_gamma - 2 * ln2));
  const long double two_over_sqrt_pi = 2 / std::sqrt(pi);
  CHECK(near(d([](auto x) { return etad::erf(x); }, T(0)), two_over_sqrt_pi));
  CHECK(near(d([](auto x) { return etad::erf(x); }, T(1)), two_over_sqrt_pi / std::exp(1.0L)));
  CHECK(near(d([](auto x) { return etad::erfc(x); }, T(0)), -two_over_sqrt_pi));
  CHECK(near(d([](auto x) { return etad::erfc(x); }, T(-2)), -two_over_sqrt_pi * std::exp(-4.0L)));
}

TEMPLATE_TEST_CASE("special: poles, infinities and NaN", "[ops][special]", float, double, long double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto g = [](auto f, T x) { return etad::gradient(f, x); };
  const auto digamma = [](auto x) { return etad::digamma(x); };
  const auto lgamma = [](auto x) { return etad::lgamma(x); };
  const auto tgamma = [](auto x) { return etad::tgamma(x); };
  // Poles of digamma (0, -1, -2, ...): NaN value and NaN slope.
  for (const T p : {T(0), T(-1), T(-2), T(-7)}) {
    CAPTURE(p);
    CHECK(std::isnan(g(digamma, p).value));
    CHECK(std::isnan(g(digamma, p).gradient[0]));
    CHECK(std::isnan(g(lgamma, p).gradient[0]));  // lgamma is +inf there; its slope has no sign
    CHECK(std::isnan(g(tgamma, p).gradient[0]));
  }
  CHECK(g(lgamma, T(0)).value == inf);
  CHECK(g(tgamma, T(0)).value == inf);
  // At +inf: digamma +inf with slope 0; lgamma +inf with slope +inf (= digamma).
  CHECK(g(digamma, inf).value == inf);
  CHECK(g(digamma, inf).gradient[0] == 0);
  CHECK(g(lgamma, inf).gradient[0] == inf);
  // At -inf: lgamma +inf (IEEE) with a NaN slope (digamma's poles accumulate there); tgamma NaN.
  CHECK(g(lgamma, -inf).value == inf);
  CHECK(std::isnan(g(lgamma, -inf).gradient[0]));
  CHECK(std::isnan(g(tgamma, -inf).value));
  CHECK(std::isnan(g(tgamma, -inf).gradient[0]));
  // tgamma at -0: -inf (IEEE), slope NaN as at +0. At +inf, and where Gamma overflows (beyond
  // 171.6 in double, 35.04 in float, 1755.5 in long double): value +inf, slope +inf (inf psi,
  // psi > 0 there).
  CHECK(g(tgamma, -T(0)).value == -inf);
  CHECK(std::isnan(g(tgamma, -T(0)).gradient[0]));
  const T overflow = std::is_same_v<T, float> ? T(36) : std::is_same_v<T, double> ? T(172) : T(1756);
  for (const T x : {inf, overflow}) {
    CAPTURE(x);
    CHECK(g(tgamma, x).value == inf);
    CHECK(g(tgamma, x).gradient[0] == inf);
  }
  // erf and erfc saturate: slope exactly 0 at ±inf and once e^(-x^2) underflows (|x| > 27.3 for
  // double, 10.2 for float, 106.8 for long double; 1e200, where x^2 overflows, in double).
  for (const T x : {inf, -inf, T(120), T(-120), std::is_same_v<T, float> ? T(10.5) : T(1e200)}) {
    CAPTURE(x);
    CHECK(g([](auto v) { return etad::erf(v); }, x).gradient[0] == 0);
    CHECK(g([](auto v) { return etad::erfc(v); }, x).gradient[0] == 0);
  }
  const auto nan_through = [&](auto f) {
    const auto r = g(f, nan);
    return std::isnan(r.value) && std::isnan(r.gradient[0]);
  };
  CHECK(nan_through([](auto x) { return etad::erf(x); }));
  CHECK(nan_through([](auto x) { return etad::erfc(x); }));
  CHECK(nan_through(tgamma));
  CHECK(nan_through(lgamma));
  CHECK(nan_through(digamma));
}
