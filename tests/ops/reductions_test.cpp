// tests/ops/reductions_test.cpp — log_sum_exp over a pack (the static layer's reduction, whose
// exponentials in double come from detail::exp_nonpositive): value and gradient against an
// independent long double evaluation (also with spreads where terms underflow), against central
// differences, and the -inf/+inf/NaN elements; the float path (std::exp) too. Then sum, mean,
// squared_norm, prod and dot over a pack against closed forms (also in constant expressions),
// and packs of 40 and 100 elements, which stay shared subexpressions.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

template <std::size_t N>
auto lse_gradient(const std::array<double, N>& x) {
  return etad::gradient([](const auto& p) { return etad::log_sum_exp(p); }, x);
}

/// log sum e^x_i and softmax in long double, around the maximum.
template <std::size_t N>
std::pair<long double, std::array<long double, N>> reference(const std::array<double, N>& x) {
  long double m = x[0];
  for (const double e : x) m = std::max(m, static_cast<long double>(e));
  long double s = 0;
  for (const double e : x) s += std::exp(static_cast<long double>(e) - m);
  std::array<long double, N> g{};
  for (std::size_t i = 0; i < N; ++i) g[i] = std::exp(static_cast<long double>(x[i]) - m) / s;
  return {m + std::log(s), g};
}

template <std::size_t N>
void check_against_reference(const std::array<double, N>& x) {
  const auto [value, gradient] = lse_gradient(x);
  const auto [want, g_want] = reference(x);
  CHECK(std::fabs(value - want) <= 4e-16L * std::fabs(want) + 1e-15L);
  long double m = x[0];
  for (const double e : x) m = std::max(m, static_cast<long double>(e));
  for (std::size_t i = 0; i < N; ++i) {
    INFO("i = " << i << ", x_i - max = " << x[i] - m);
    // The partial is e^(x_i - m) / s: the shift x_i - m is rounded to double (a relative error
    // of the partial up to |x_i - m| 2^-53), on top of a few ulps of the exponentials, their
    // sum and the division. Nothing depends on the size of m itself.
    const long double shift_error = std::fabs(x[i] - m) * 0x1p-52L;
    CHECK(std::fabs(gradient[i] - g_want[i]) <=
          (2e-15L + shift_error) * g_want[i] + 2 * std::numeric_limits<double>::denorm_min());
  }
}

}  // namespace

TEST_CASE("static log_sum_exp: value and softmax against long double", "[ops][reductions]") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  for (const double spread : {1.0, 20.0, 700.0, 2000.0}) {
    INFO("spread = " << spread);
    for (int trial = 0; trial < 20; ++trial) {
      std::array<double, 13> x{};
      for (double& e : x) e = -20 + spread * unit(rng);
      check_against_reference(x);
    }
  }
  check_against_reference(std::array{0.0});
  check_against_reference(std::array{1000.0, 1001.0});  // e^x would overflow
  // Underflow: the last partial is e^-745 / 1.37 = 3.6e-324, which rounds to the smallest
  // subnormal (4.9e-324); with -1760 it is e^-760 / 1.37, far below half of it: 0.
  check_against_reference(std::array{-1000.0, -1001.0, -1745.0});
  CHECK(lse_gradient(std::array{-1000.0, -1001.0, -1760.0}).gradient[2] == 0.0);
  const auto [v, g] = lse_gradient(std::array{-1000.0, -1001.0, -1745.0});
  CHECK(v == Approx(-1000.0 + std::log1p(std::exp(-1.0))).epsilon(1e-15));
}

TEST_CASE("static log_sum_exp: softmax far from 0 (large |max|)", "[ops][reductions]") {
  // The partials once were e^(x_i - f) with f = value: at |m| = 1e16, f = m + log s is rounded to
  // m + 2, and every partial was e^-2 instead of 1/3. Softmax depends only on the differences.
  for (const double c : {1e6, 1e10, 1e14, -1e14, 1e16, -1e16, 1e300}) {
    INFO("c = " << c);
    check_against_reference(std::array{c, c, c - 1});  // the last equals c from 1e16 on
    check_against_reference(std::array{c, c * (1 - 0x1p-50), -c});
    const auto [v, g] = lse_gradient(std::array{c, c, c - 1});
    long double sum = 0;
    for (const double e : g) sum += e;
    CHECK(std::fabs(sum - 1) <= 4e-16L);
  }
  const auto [v, g] = lse_gradient(std::array{1e308, 1e308});
  CHECK(v == 1e308);  // 1e308 + log 2, rounded
  CHECK(g == std::array{0.5, 0.5});
}

TEST_CASE("static log_sum_exp: gradient matches central differences", "[ops][reductions]") {
  const std::array<double, 5> x{0.3, -1.7, 2.2, 0.9, -0.4};
  const auto [value, gradient] = lse_gradient(x);
  const auto f = [](std::array<long double, 5> y) {
    long double s = 0;
    for (const long double e : y) s += std::exp(e);
    return std::log(s);
  };
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::array<long double, 5> up{}, down{};
    for (std::size_t j = 0; j < x.size(); ++j) up[j] = down[j] = x[j];
    const long double h = 1e-6L;
    up[i] += h;
    down[i] -= h;
    const long double fd = (f(up) - f(down)) / (2 * h);
    INFO("i = " << i);
    CHECK(gradient[i] == Approx(static_cast<double>(fd)).epsilon(1e-9));
  }
  CHECK(value == Approx(static_cast<double>(f({0.3L, -1.7L, 2.2L, 0.9L, -0.4L}))).epsilon(1e-15));
}

TEST_CASE("static log_sum_exp: -inf, +inf and NaN elements", "[ops][reductions]") {
  const double quiet_nan = std::numeric_limits<double>::quiet_NaN();
  {
    const auto [v, g] = lse_gradient(std::array{-inf, 0.0, -inf});
    CHECK(v == 0.0);
    CHECK(g == std::array{0.0, 1.0, 0.0});
  }
  {
    const auto [v, g] = lse_gradient(std::array{0.0, inf, 1.0});
    CHECK(v == inf);
    CHECK(g[0] == 0.0);
    CHECK(std::isnan(g[1]));  // e^(inf - inf)
    CHECK(g[2] == 0.0);
  }
  {
    const auto [v, g] = lse_gradient(std::array{-inf, -inf});
    CHECK(v == -inf);
    CHECK(std::isnan(g[0]));  // e^(-inf - -inf)
  }
  for (std::size_t at = 0; at < 3; ++at) {
    INFO("NaN at " << at);
    std::array<double, 3> x{0.5, -1.0, 2.0};
    x[at] = quiet_nan;
    const auto [v, g] = lse_gradient(x);
    CHECK(std::isnan(v));
    for (const double e : g) CHECK(std::isnan(e));
  }
}

TEST_CASE("static log_sum_exp: float keeps std::exp and float precision", "[ops][reductions]") {
  const auto [v, g] =
      etad::gradient([](const auto& p) { return etad::log_sum_exp(p); }, std::array{0.5f, -1.0f, 2.0f});
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(v)>, float>);
  const double z = std::exp(0.5) + std::exp(-1.0) + std::exp(2.0);
  CHECK(v == Approx(std::log(z)).epsilon(1e-6));
  CHECK(g[2] == Approx(std::exp(2.0) / z).epsilon(1e-6));
}

TEST_CASE("static log_sum_exp: one statement on a nested tape, differentiated twice",
          "[ops][reductions][higher_order]") {
  // log_sum_exp(pack(...)) of a nested tape's reals: the rule's maximum compares reals, whose
  // comparisons are expressions (it did not compile: std::max needs `<` to give a bool). By hand,
  // with p = softmax(x): the gradient is p and the Hessian diag(p) - p p^T.
  const std::array<double, 3> v{0.5, -1.0, 2.0};
  etad::tape outer{etad::persistent};
  const std::array<etad::real<double>, 3> x{outer.variable(v[0]), outer.variable(v[1]),
                                            outer.variable(v[2])};
  std::array<etad::real<double>, 3> g{};
  etad::real<double> value;
  {
    etad::basic_tape<etad::real<double>> inner;
    const auto a = inner.variable(x[0]), b = inner.variable(x[1]), c = inner.variable(x[2]);
    const etad::real<etad::real<double>> y = etad::log_sum_exp(etad::pack(a, b, c));
    value = y.value();
    g = inner.gradient(y, a, b, c);
  }
  long double z = 0;
  for (const double e : v) z += std::exp(static_cast<long double>(e));
  std::array<double, 3> p{};
  for (std::size_t i = 0; i < 3; ++i) p[i] = static_cast<double>(std::exp(static_cast<long double>(v[i])) / z);
  CHECK(value.value() == Approx(static_cast<double>(std::log(z))).epsilon(1e-15));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(g[i].value() == Approx(p[i]).epsilon(1e-15));
    const auto row = outer.gradient(g[i], x[0], x[1], x[2]);
    for (std::size_t j = 0; j < 3; ++j) {
      INFO("H" << i << j);
      CHECK(row[j] == Approx((i == j ? p[i] : 0.0) - p[i] * p[j]).epsilon(1e-14).margin(1e-15));
    }
  }
}

TEST_CASE("static log_sum_exp: the maximum is std::max's choice on ties and NaN",
          "[ops][reductions]") {
  // The shift m is the first largest element and a NaN first element wins, as std::max({...})
  // chooses; a tie shares the softmax equally.
  const auto [v, g] = lse_gradient(std::array{1.0, 1.0});
  CHECK(v == Approx(1.0 + std::log(2.0)).epsilon(1e-15));
  CHECK(g[0] == 0.5);
  CHECK(g[1] == 0.5);
}

// --- sum, mean, squared_norm, prod, dot over a pack: closed forms ------------------------------

TEST_CASE("static mean, prod and dot: values and gradients against closed forms",
          "[ops][reductions]") {
  const std::array<double, 4> x{1.5, -2.0, 0.25, 3.0};
  const std::array<double, 4> c{2.0, -1.0, 4.0, 0.5};

  SECTION("mean: (1/n) sum, every partial 1/n") {
    const auto r = etad::gradient([](const auto& p) { return etad::mean(p); }, x);
    CHECK(r.value == Approx((1.5 - 2.0 + 0.25 + 3.0) / 4).epsilon(1e-15));
    for (const double g : r.gradient) CHECK(g == 0.25);
  }
  SECTION("prod: partial i is the product of the others (zeros included)") {
    const auto r = etad::gradient([](const auto& p) { return etad::prod(p); }, x);
    CHECK(r.value == Approx(1.5 * -2.0 * 0.25 * 3.0).epsilon(1e-15));
    CHECK(r.gradient[0] == Approx(-2.0 * 0.25 * 3.0).epsilon(1e-15));
    CHECK(r.gradient[1] == Approx(1.5 * 0.25 * 3.0).epsilon(1e-15));
    CHECK(r.gradient[2] == Approx(1.5 * -2.0 * 3.0).epsilon(1e-15));
    CHECK(r.gradient[3] == Approx(1.5 * -2.0 * 0.25).epsilon(1e-15));
    // One zero element: only its own partial survives (the product of the others).
    const auto z = etad::gradient([](const auto& p) { return etad::prod(p); },
                                  std::array{2.0, 0.0, 5.0});
    CHECK(z.value == 0.0);
    CHECK(z.gradient[0] == 0.0);
    CHECK(z.gradient[1] == 10.0);
    CHECK(z.gradient[2] == 0.0);
  }
  SECTION("dot with coefficients, in either order: partials are the coefficients") {
    const auto a = etad::gradient([&c](const auto& p) { return etad::dot(p, c); }, x);
    const auto b = etad::gradient([&c](const auto& p) { return etad::dot(c, p); }, x);
    const double want = 2.0 * 1.5 + -1.0 * -2.0 + 4.0 * 0.25 + 0.5 * 3.0;
    CHECK(a.value == Approx(want).epsilon(1e-15));
    CHECK(b.value == Approx(want).epsilon(1e-15));
    for (std::size_t i = 0; i < 4; ++i) {
      CHECK(a.gradient[i] == c[i]);
      CHECK(b.gradient[i] == c[i]);
    }
  }
  SECTION("dot of two packs: d/dx_i of sum x_i y_i, with x and y overlapping") {
    // f(x0..x3) = x0 x2 + x1 x3 + x2 x0 = 2 x0 x2 + x1 x3.
    const auto r = etad::gradient(
        [](const auto& p) {
          return etad::dot(etad::pack(get<0>(p), get<1>(p), get<2>(p)),
                           etad::pack(get<2>(p), get<3>(p), get<0>(p)));
        },
        x);
    CHECK(r.value == Approx(2 * 1.5 * 0.25 + -2.0 * 3.0).epsilon(1e-15));
    CHECK(r.gradient[0] == Approx(2 * 0.25).epsilon(1e-15));
    CHECK(r.gradient[1] == Approx(3.0).epsilon(1e-15));
    CHECK(r.gradient[2] == Approx(2 * 1.5).epsilon(1e-15));
    CHECK(r.gradient[3] == Approx(-2.0).epsilon(1e-15));
  }
  SECTION("squared_norm: partials 2 x_i") {
    const auto r = etad::gradient([](const auto& p) { return etad::squared_norm(p); }, x);
    CHECK(r.value == Approx(1.5 * 1.5 + 4.0 + 0.0625 + 9.0).epsilon(1e-15));
    for (std::size_t i = 0; i < 4; ++i) CHECK(r.gradient[i] == 2 * x[i]);
  }
}

TEST_CASE("static mean, prod and dot: in constant expressions and in float", "[ops][reductions]") {
  // d/dx of x0 x1 x2 at (2, 3, 4): (12, 8, 6); mean of (2, 3, 4) has partials 1/3.
  constexpr auto p = etad::gradient([](const auto& v) { return etad::prod(v); },
                                    std::array{2.0, 3.0, 4.0});
  static_assert(p.value == 24.0 && p.gradient[0] == 12.0 && p.gradient[1] == 8.0 &&
                p.gradient[2] == 6.0);
  constexpr auto d = etad::gradient(
      [](const auto& v) { return etad::dot(v, std::array{1.0, -2.0, 0.5}); },
      std::array{2.0, 3.0, 4.0});
  static_assert(d.value == 2.0 - 6.0 + 2.0 && d.gradient[0] == 1.0 && d.gradient[1] == -2.0 &&
                d.gradient[2] == 0.5);
  const auto m = etad::gradient([](const auto& v) { return etad::mean(v); },
                                std::array{2.0f, 3.0f, 4.0f});
  CHECK(m.value == 3.0f);
  for (const float g : m.gradient) CHECK(g == Approx(1.0f / 3.0f).epsilon(1e-7));
}

// --- prod and log_sum_exp over longer packs, and shared ---------------------------------------

TEST_CASE("static prod: the value is the product as written, each partial that of the others",
          "[ops][reductions]") {
  // prod's value is (((x0 x1) x2) ...) as the formula is written: bitwise the left fold; each
  // partial is the product of the others to a few ulps.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> near_one(0.9, 1.1);
  std::array<double, 40> x{};
  for (double& e : x) e = near_one(rng);
  const auto p = etad::gradient([](const auto& v) { return etad::prod(v); }, x);
  double want = x[0];
  for (std::size_t i = 1; i < x.size(); ++i) want = want * x[i];
  CHECK(p.value == want);
  for (std::size_t i = 0; i < x.size(); ++i) {
    long double others = 1;
    for (std::size_t j = 0; j < x.size(); ++j)
      if (j != i) others *= x[j];
    INFO("i = " << i);
    CHECK(std::fabs(p.gradient[i] - others) <= 1e-14L * std::fabs(others));
  }
}

TEST_CASE("static prod and log_sum_exp over 100 elements: against independent evaluations",
          "[ops][reductions]") {
  // A pack past the 64 operands that a fold takes at once (detail::max_fold), swept as wide
  // nodes: closed forms in long double.
  std::array<double, 100> x{};
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.95 + 0.001 * double((i * 37) % 100);
  const auto p = etad::gradient([](const auto& v) { return etad::prod(v); }, x);
  long double all = 1;
  for (const double e : x) all *= e;
  CHECK(std::fabs(p.value - all) <= 1e-13L * all);
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("i = " << i);
    CHECK(std::fabs(p.gradient[i] - all / x[i]) <= 1e-13L * all / x[i]);
  }
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(double(i)) * 3;
  check_against_reference(x);
  const auto s = etad::gradient([](const auto& v) { return etad::sum(v); }, x);
  for (const double g : s.gradient) CHECK(g == 1.0);
}

TEST_CASE("static prod and log_sum_exp of inputs are shared subexpressions", "[ops][reductions]") {
  // A reduction over placeholders is input-only: every occurrence of it shares one slot,
  // computed once (log-softmax, x_i - log_sum_exp(x) for every i, evaluates it once). A fused
  // rule would not be (its partials live in a frame per occurrence): 7.5x the time of that
  // log-softmax at N = 16 when prod and log_sum_exp were made fused.
  using A = etad::arg<0>;
  using B = etad::arg<1>;
  STATIC_REQUIRE(decltype(etad::log_sum_exp(etad::pack(A{}, B{})))::input_only);
  STATIC_REQUIRE(decltype(etad::prod(etad::pack(A{}, B{})))::input_only);
  // The log-softmax's gradient: sum_i (i + 1) (x_i - l) has d/dx_j = (j + 1) - 10 p_j
  // (10 = 1 + 2 + 3 + 4, p = softmax(x)).
  const std::array<double, 4> x{0.5, -1.0, 2.0, 0.25};
  const auto r = etad::gradient(
      [](const auto& p) {
        const auto l = etad::log_sum_exp(p);
        return (get<0>(p) - l) + 2.0 * (get<1>(p) - l) + 3.0 * (get<2>(p) - l) +
               4.0 * (get<3>(p) - l);
      },
      x);
  long double z = 0;
  for (const double e : x) z += std::exp(static_cast<long double>(e));
  for (std::size_t j = 0; j < 4; ++j) {
    const long double p = std::exp(static_cast<long double>(x[j])) / z;
    INFO("j = " << j);
    CHECK(r.gradient[j] == Approx(static_cast<double>((j + 1) - 10 * p)).epsilon(1e-13));
  }
}
