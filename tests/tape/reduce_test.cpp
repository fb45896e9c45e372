// tests/tape/reduce_test.cpp — what the tape records (one statement per assignment, one partial per
// real leaf occurrence; one statement per reduction, one partial per active element: constants in
// the range take none) and the reductions' values and gradients against their closed forms: sum
// -> ones, mean -> 1/n, squared_norm -> 2x, prod -> products of the others (also with zeros),
// log_sum_exp -> softmax (also where a naive exp would overflow), dot -> the other factor; over
// ranges and over a pointer and a length.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace {

using real = etad::real<double>;

/// The gradient of target with respect to every element of xs.
std::vector<double> gradient_all(etad::tape& t, const real& target, const std::vector<real>& xs) {
  std::vector<double> g(xs.size());
  t.gradient(target, xs, g);
  return g;
}

std::vector<real> variables(etad::tape& t, const std::vector<double>& v) {
  std::vector<real> r;
  for (const double e : v) r.push_back(t.variable(e));
  return r;
}

}  // namespace

TEST_CASE("tape accounting: one statement per assignment, at most one partial per real leaf", "[tape][reduce]") {
  etad::tape t;
  CHECK(t.statements() == 0);
  CHECK(t.partials() == 0);
  const real x = t.variable(0.5);
  const real y = t.variable(2.0);
  CHECK(t.statements() == 2);  // variables are statements without partials
  CHECK(t.partials() == 0);
  const real z = x * y + etad::sin(x);
  CHECK(t.statements() == 3);
  // x, y, x; or x, y when the optimizer sees that both x are one real (tape/merge_test.cpp)
  const std::size_t pz = t.partials();
  CHECK((pz == 3 || pz == 2));
  // Constants are not leaves that take partials.
  const real w = z * 2.0 + 1.0 + real(3.0);
  CHECK(t.statements() == 4);
  CHECK(t.partials() == pz + 2);  // z, and the constant real (a leaf occurrence, pointed at no index)
  CHECK(t.gradient(w, x, y) == std::array{2 * (2.0 + std::cos(0.5)), 2 * 0.5});
  // A copy records nothing; assigning a real (not an expression) records nothing.
  real c = z;
  c = x;
  CHECK(t.statements() == 4);
}

TEST_CASE("tape accounting: a reduction is one statement with one partial per element", "[tape][reduce]") {
  etad::tape t;
  std::vector<double> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.001 * static_cast<double>(i) - 0.3;
  const std::vector<real> x = variables(t, v);
  const std::vector<double> a(1000, 0.5);
  const auto adds = [&](auto reduction, std::size_t partials) {
    const std::size_t s0 = t.statements(), p0 = t.partials();
    const real r = reduction();
    CHECK_FALSE(r.is_constant());
    CHECK(t.statements() - s0 == 1);
    CHECK(t.partials() - p0 == partials);
  };
  adds([&] { return etad::sum(x); }, 1000);
  adds([&] { return etad::mean(x); }, 1000);
  adds([&] { return etad::squared_norm(x); }, 1000);
  adds([&] { return etad::prod(x); }, 1000);
  adds([&] { return etad::log_sum_exp(x); }, 1000);
  adds([&] { return etad::dot(x, a); }, 1000);
  adds([&] { return etad::dot(a, x); }, 1000);
  adds([&] { return etad::dot(x, x); }, 2000);  // two ranges of reals: x's partials, then y's
}

TEST_CASE("tape reduce: sum, mean and squared_norm", "[tape][reduce]") {
  etad::tape t{etad::persistent};
  const std::vector<double> v{1.5, -2.0, 0.25, 4.0};
  const std::vector<real> x = variables(t, v);
  const real s = etad::sum(x);
  const real m = etad::mean(x);
  const real q = etad::squared_norm(x);
  CHECK(s.value() == 3.75);
  CHECK(m.value() == 3.75 / 4);
  CHECK(q.value() == 2.25 + 4.0 + 0.0625 + 16.0);
  CHECK(gradient_all(t, s, x) == std::vector<double>(4, 1.0));
  CHECK(gradient_all(t, m, x) == std::vector<double>(4, 0.25));
  CHECK(gradient_all(t, q, x) == std::vector<double>{3.0, -4.0, 0.5, 8.0});
  // The same real twice counts twice; a constant element contributes its value only.
  const std::vector<real> dup{x[0], x[0], x[1], real(10.0)};
  const real sd = etad::sum(dup);
  CHECK(sd.value() == 1.5 + 1.5 - 2.0 + 10.0);
  CHECK(t.gradient(sd, x[0], x[1], x[2]) == std::array{2.0, 1.0, 0.0});
  const real qd = etad::squared_norm(dup);
  CHECK(t.gradient(qd, x[0], x[1]) == std::array{6.0, -4.0});
}

TEST_CASE("tape reduce: sum and mean of every length around the lane width", "[tape][reduce]") {
  // sum() adds in interleaved lanes with a tail loop; small integers are exact in any order, so
  // every length must give exactly n (n + 1) / 2, on the tape (consecutive variables, a range
  // statement) and off it (a scattered range, and constants). Lengths up to
  // detail::short_scan_limit are scanned by a scalar loop, longer ones by vectorized loops:
  // both sides of that limit too.
  etad::tape t{etad::persistent};
  for (std::size_t n = 1; n <= etad::detail::short_scan_limit + 5; ++n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i + 1);
    const double expected = static_cast<double>(n * (n + 1) / 2);
    const std::vector<real> x = variables(t, v);
    CHECK(etad::sum(x).value() == expected);
    CHECK(etad::mean(x).value() == expected / static_cast<double>(n));
    CHECK(gradient_all(t, etad::sum(x), x) == std::vector<double>(n, 1.0));
    // A range statement stores 2 slots however long the range (sum's partials are all 1): a
    // partial and an index each, and one end offset.
    const std::size_t slot = sizeof(double) + sizeof(std::uint32_t);
    const std::size_t p0 = t.used_bytes();
    const real s = etad::sum(x);
    CHECK(t.used_bytes() - p0 == 2 * slot + sizeof(std::uint32_t));
    CHECK(s.value() == expected);
    std::vector<real> reversed(x.rbegin(), x.rend());  // not consecutive: one index per element
    CHECK(etad::sum(reversed).value() == expected);
    std::vector<double> g(n);
    t.gradient(etad::sum(reversed), x, g);
    CHECK(g == std::vector<double>(n, 1.0));
    const std::vector<real> constants(v.begin(), v.end());
    CHECK(etad::sum(constants).value() == expected);
  }
  // The lanes are x0 + x4 + ..., x1 + x5 + ..., x2 + ..., x3 + ..., added pairwise. Here they
  // give the exact sum 6, where a left-to-right loop loses the ones added to 1e16 and gives 3.
  const std::vector<double> w{1e16, 1, 1, 1, -1e16, 1, 1, 1};
  double serial = 0;
  for (const double e : w) serial += e;
  REQUIRE(serial == 3.0);  // the data does tell the two orders apart
  CHECK(etad::sum(variables(t, w)).value() == 6.0);
  // The same lanes past the short-scan limit (20 elements): lane 0 is 1e16 - 1e16 + 1e16 -
  // 1e16 + 0 = 0, lanes 1-3 are 4 each, so 12, where a left-to-right loop gives 7.
  std::vector<double> w20 = w;
  w20.insert(w20.end(), w.begin(), w.end());
  w20.insert(w20.end(), {0.0, 0.0, 0.0, 0.0});
  REQUIRE(w20.size() > etad::detail::short_scan_limit);
  double serial20 = 0;
  for (const double e : w20) serial20 += e;
  REQUIRE(serial20 != 12.0);  // the data tells the two orders apart here too
  CHECK(etad::sum(variables(t, w20)).value() == 12.0);
}

TEST_CASE("tape reduce: sum on both sides of the split-scan limit", "[tape][reduce]") {
  // Up to detail::split_scan_limit reals the scan runs two loops (values, then the check that
  // the reals are consecutive), beyond it one; both must give the same statement and value.
  // Small integers: exact in any order, n (n + 1) / 2.
  etad::tape t{etad::persistent};
  for (const std::size_t n : {etad::detail::split_scan_limit, etad::detail::split_scan_limit + 5}) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i % 7);
    double expected = 0;
    for (std::size_t i = 0; i < n; ++i) expected += v[i];  // exact: small integers
    const std::vector<real> x = variables(t, v);
    const std::size_t p0 = t.partials(), s0 = t.statements();
    const real s = etad::sum(x);
    CHECK(t.statements() == s0 + 1);
    CHECK(t.partials() == p0 + n);
    CHECK(s.value() == expected);
    std::vector<double> g(n);
    t.gradient(s, x, g);
    CHECK(std::count(g.begin(), g.end(), 1.0) == std::ptrdiff_t(n));
    // Not consecutive (one element swapped with its neighbour): the general path, same value.
    std::vector<real> y = x;
    std::swap(y[n / 2], y[n / 2 + 1]);
    CHECK(etad::sum(y).value() == expected);
    t.gradient(etad::sum(y), y, g);
    CHECK(std::count(g.begin(), g.end(), 1.0) == std::ptrdiff_t(n));
  }
}

TEST_CASE("tape reduce: prod, also with zero elements", "[tape][reduce]") {
  etad::tape t{etad::persistent};
  SECTION("no zero: prod / x_i") {
    const std::vector<real> x = variables(t, {2.0, -3.0, 0.5, 4.0});
    const real p = etad::prod(x);
    CHECK(p.value() == -12.0);
    CHECK(gradient_all(t, p, x) == std::vector<double>{-6.0, 4.0, -24.0, -3.0});
  }
  SECTION("one zero: only its partial survives, and it is the product of the others") {
    const std::vector<real> x = variables(t, {2.0, 0.0, 3.0, 4.0});
    const real p = etad::prod(x);
    CHECK(p.value() == 0.0);
    CHECK(gradient_all(t, p, x) == std::vector<double>{0.0, 24.0, 0.0, 0.0});
  }
  SECTION("two zeros: every partial is zero (no 0/0)") {
    const std::vector<real> x = variables(t, {0.0, 5.0, 0.0});
    const real p = etad::prod(x);
    const auto g = gradient_all(t, p, x);
    CHECK(g == std::vector<double>{0.0, 0.0, 0.0});
  }
  SECTION("one element, and the empty product") {
    const std::vector<real> x = variables(t, {7.0});
    const real p = etad::prod(x);
    CHECK(p.value() == 7.0);
    CHECK(t.gradient(p, x[0])[0] == 1.0);
    const std::vector<real> none;
    CHECK(etad::prod(none).value() == 1.0);
  }
}

TEST_CASE("tape reduce: long products, split into parts, with and without zeros", "[tape][reduce]") {
  // From 16 elements on, prod() scans 4 parts as interleaved chains. Powers of two keep every
  // product exact in any grouping, so the value and each partial must equal the product of the
  // others computed by a plain double loop (O(n^2), independent of etad).
  const double pattern[] = {2.0, -0.5, 4.0, 0.25, -1.0, 8.0, 0.5, -2.0, 1.0, 0.125};
  etad::tape t{etad::persistent};
  for (std::size_t n : {15, 16, 17, 18, 19, 23, 40, 41}) {
    for (int zeros = 0; zeros <= 2; ++zeros) {
      std::vector<double> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = pattern[(i * 7) % 10];
      if (zeros >= 1) v[n / 2 + 1] = 0.0;  // in the third part
      if (zeros == 2) v[n - 1] = 0.0;      // in the last part (with the remainder)
      std::vector<double> others(n, 1.0);
      double all = 1.0;
      for (std::size_t i = 0; i < n; ++i) {
        all *= v[i];
        for (std::size_t j = 0; j < n; ++j)
          if (j != i) others[i] *= v[j];
      }
      const std::vector<real> x = variables(t, v);
      const real p = etad::prod(x);
      INFO("n = " << n << ", zeros = " << zeros);
      CHECK(p.value() == all);
      CHECK(gradient_all(t, p, x) == others);
    }
  }
}

TEST_CASE("tape reduce: log_sum_exp is softmax's potential", "[tape][reduce]") {
  etad::tape t{etad::persistent};
  SECTION("ordinary values: value log sum e^x, gradient softmax") {
    const std::vector<double> v{0.5, -1.0, 2.0, 0.0};
    const std::vector<real> x = variables(t, v);
    const real l = etad::log_sum_exp(x);
    double z = 0;
    for (const double e : v) z += std::exp(e);
    CHECK(l.value() == Approx(std::log(z)).epsilon(1e-15));
    const auto g = gradient_all(t, l, x);
    double total = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      CHECK(g[i] == Approx(std::exp(v[i]) / z).epsilon(1e-15));
      total += g[i];
    }
    CHECK(total == Approx(1.0).epsilon(1e-15));
  }
  SECTION("1000 and 1001, where e^x overflows") {
    const std::vector<real> x = variables(t, {1000.0, 1001.0});
    const real l = etad::log_sum_exp(x);
    // log(e^1000 + e^1001) = 1001 + log(1 + e^-1); softmax = (1, e) / (1 + e).
    CHECK(l.value() == Approx(1001.0 + std::log1p(std::exp(-1.0))).epsilon(1e-15));
    const auto g = gradient_all(t, l, x);
    const double e = std::exp(1.0);
    CHECK(g[0] == Approx(1 / (1 + e)).epsilon(1e-15));
    CHECK(g[1] == Approx(e / (1 + e)).epsilon(1e-15));
  }
  SECTION("-1000 and -1001, where e^x underflows") {
    const std::vector<real> x = variables(t, {-1000.0, -1001.0});
    const real l = etad::log_sum_exp(x);
    CHECK(l.value() == Approx(-1000.0 + std::log1p(std::exp(-1.0))).epsilon(1e-15));
    const auto g = gradient_all(t, l, x);
    const double e = std::exp(1.0);
    CHECK(g[0] == Approx(e / (1 + e)).epsilon(1e-15));
    CHECK(g[1] == Approx(1 / (1 + e)).epsilon(1e-15));
  }
  SECTION("a -inf element gets zero weight; +inf gives +inf") {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<real> x = variables(t, {-inf, 0.0});
    const real l = etad::log_sum_exp(x);
    CHECK(l.value() == 0.0);
    CHECK(gradient_all(t, l, x) == std::vector<double>{0.0, 1.0});
    const std::vector<real> y = variables(t, {inf, 0.0});
    CHECK(etad::log_sum_exp(y).value() == inf);
    // The documented partials there: NaN for +inf elements, 0 for the others (-inf included).
    const std::vector<real> z = variables(t, {-inf, inf, 2.0});
    const real lz = etad::log_sum_exp(z);
    CHECK(lz.value() == inf);
    const std::vector<double> gz = gradient_all(t, lz, z);
    CHECK(gz[0] == 0.0);
    CHECK(std::isnan(gz[1]));
    CHECK(gz[2] == 0.0);
  }
}

TEST_CASE("tape reduce: log_sum_exp against long double, also where most terms underflow", "[tape][reduce]") {
  // The reference is computed independently, in long double with expl and logl; the spreads up
  // to 3000 make e^(x_i - max) underflow to subnormals and to 0 for many elements. Bounds: a few
  // ulps on value and partials (relative; partials also the rounding of x_i - max), plus two
  // subnormal steps absolute for partials that are (nearly) subnormal.
  etad::tape t{etad::persistent};
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> unit(0, 1), centre(-50, 50);
  std::size_t zeros = 0, subnormals = 0;
  for (const std::size_t n : {1, 2, 7, 8, 9, 33, 1000, 4099})
    for (const double spread : {1.0, 30.0, 800.0, 3000.0}) {
      INFO("n = " << n << ", spread = " << spread);
      std::vector<double> v(n);
      const double c = centre(rng);
      for (double& e : v) e = c + spread * unit(rng);
      if (n > 2) v[n / 2] = v[n / 3];  // a repeated value
      long double m = v[0];
      for (const double e : v) m = std::max(m, static_cast<long double>(e));
      long double s = 0;
      for (const double e : v) s += std::exp(static_cast<long double>(e) - m);
      const long double want = m + std::log(s);
      t.reset();
      const std::vector<real> x = variables(t, v);
      const real l = etad::log_sum_exp(x);
      CHECK(std::fabs(l.value() - want) <= 4e-16L * std::fabs(want) + 1e-15L);
      const auto g = gradient_all(t, l, x);
      double total = 0;
      for (std::size_t i = 0; i < n; ++i) {
        INFO("i = " << i << ", x_i - max = " << static_cast<double>(v[i] - m));
        const long double gi = std::exp(static_cast<long double>(v[i]) - m) / s;
        // x_i - max is rounded to double before the exponential (in any shifted formula): a
        // relative error of up to |x_i - max| 2^-53 in the partial, on top of a few ulps.
        const long double shift_error = std::fabs(static_cast<long double>(v[i]) - m) * 0x1p-53L;
        CHECK(std::fabs(g[i] - gi) <=
              (2e-15L + shift_error) * gi + 2 * std::numeric_limits<double>::denorm_min());
        total += g[i];
        zeros += g[i] == 0.0;
        subnormals += g[i] != 0.0 && g[i] < std::numeric_limits<double>::min();
      }
      CHECK(total == Approx(1.0).epsilon(1e-13));
    }
  // The data did reach the underflowing and the subnormal partials.
  CHECK(zeros > 1000);
  CHECK(subnormals > 10);
}

TEST_CASE("tape reduce: log_sum_exp agrees with the static layer's", "[tape][reduce]") {
  // The static layer's partials are e^(x_i - value), the tape's e^(x_i - max) / s, with the
  // sum in lanes on the tape and in order in the static layer.
  const std::array<double, 9> v{0.5, -1.0, 2.0, 0.0, -700.0, 1.5, -30.0, 2.0, -3.25};
  const auto [value, gradient] =
      etad::gradient([](const auto& p) { return etad::log_sum_exp(p); }, v);
  etad::tape t;
  const std::vector<real> x = variables(t, std::vector<double>(v.begin(), v.end()));
  const real l = etad::log_sum_exp(x);
  CHECK(l.value() == Approx(value).epsilon(4e-16));
  const auto g = gradient_all(t, l, x);
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("i = " << i);
    // The static partial is e^(x_i - value), the tape's e^(x_i - max) / s: the two shifts are
    // rounded differently, by up to |x_i - value| 2^-53 relative.
    const double shift_error = std::fabs(v[i] - value) * 0x1p-52;
    CHECK(g[i] == Approx(gradient[i]).epsilon(2e-15 + shift_error));
  }
}

TEST_CASE("tape reduce: dot with numbers and with reals", "[tape][reduce]") {
  etad::tape t{etad::persistent};
  const std::vector<real> x = variables(t, {1.0, 2.0, 3.0});
  const std::vector<real> y = variables(t, {-1.0, 0.5, 4.0});
  const std::array<double, 3> a{0.5, -2.0, 3.0};
  const real da = etad::dot(x, a);
  CHECK(da.value() == 0.5 - 4.0 + 9.0);
  CHECK(gradient_all(t, da, x) == std::vector<double>{0.5, -2.0, 3.0});
  const real ad = etad::dot(std::vector<float>{1.0f, 2.0f, 3.0f}, x);  // numbers of another type
  CHECK(ad.value() == 14.0);
  CHECK(gradient_all(t, ad, x) == std::vector<double>{1.0, 2.0, 3.0});
  const real xy = etad::dot(x, y);
  CHECK(xy.value() == -1.0 + 1.0 + 12.0);
  CHECK(gradient_all(t, xy, x) == std::vector<double>{-1.0, 0.5, 4.0});  // y
  CHECK(gradient_all(t, xy, y) == std::vector<double>{1.0, 2.0, 3.0});   // x
  const real xx = etad::dot(x, x);
  CHECK(gradient_all(t, xx, x) == std::vector<double>{2.0, 4.0, 6.0});
}

TEST_CASE("tape reduce: any contiguous range of reals", "[tape][reduce]") {
  etad::tape t{etad::persistent};
  const real a = t.variable(1.0), b = t.variable(2.0), c = t.variable(3.0);
  const std::array<real, 3> arr{a, b, c};
  const real carr[] = {a, b, c};
  const std::vector<real> vec{a, b, c};
  const std::span<const real> tail = std::span<const real>(vec).subspan(1);
  CHECK(etad::sum(arr).value() == 6.0);
  CHECK(etad::sum(carr).value() == 6.0);
  CHECK(etad::sum(tail).value() == 5.0);
  const real s = etad::sum(tail);
  CHECK(t.gradient(s, a, b, c) == std::array{0.0, 1.0, 1.0});
  const real p = etad::prod(std::span<const real, 3>(arr));
  CHECK(t.gradient(p, a, b, c) == std::array{6.0, 3.0, 2.0});
}

TEST_CASE("tape reduce: reductions compose with expressions", "[tape][reduce]") {
  // f = log_sum_exp(x) * sum(x) + squared_norm(x) / n, x = (0.1, 0.2, 0.3):
  // df/dx_i = softmax_i sum + lse + 2 x_i / n.
  etad::tape t;
  const std::vector<double> v{0.1, 0.2, 0.3};
  const std::vector<real> x = variables(t, v);
  const real lse = etad::log_sum_exp(x);
  const real s = etad::sum(x);
  const real f = lse * s + etad::squared_norm(x) / 3.0;
  double z = 0;
  for (const double e : v) z += std::exp(e);
  const auto g = gradient_all(t, f, x);
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(g[i] == Approx(std::exp(v[i]) / z * 0.6 + std::log(z) + 2 * v[i] / 3).epsilon(1e-14));
}

TEST_CASE("tape reduce: the pointer and length forms", "[tape][reduce]") {
  // The reductions of the n reals at p, against closed forms: sum -> ones, mean -> 1/n,
  // squared_norm -> 2x, prod -> products of the others, log_sum_exp -> softmax, dot -> the other
  // factor. Each is one statement, as the range form is.
  etad::tape t{etad::persistent};
  const std::vector<double> v{1.5, -2.0, 0.25, 4.0};
  const std::vector<real> x = variables(t, v);
  const real* p = x.data();
  const std::size_t n = x.size();
  const auto one_statement = [&](auto reduction) {
    const std::size_t s0 = t.statements();
    const real r = reduction();
    CHECK(t.statements() == s0 + 1);
    return r;
  };
  const real s = one_statement([&] { return etad::sum(p, n); });
  CHECK(s.value() == 3.75);
  CHECK(gradient_all(t, s, x) == std::vector<double>(4, 1.0));
  const real m = one_statement([&] { return etad::mean(p, n); });
  CHECK(m.value() == 3.75 / 4);
  CHECK(gradient_all(t, m, x) == std::vector<double>(4, 0.25));
  const real q = one_statement([&] { return etad::squared_norm(p, n); });
  CHECK(q.value() == 2.25 + 4.0 + 0.0625 + 16.0);
  CHECK(gradient_all(t, q, x) == std::vector<double>{3.0, -4.0, 0.5, 8.0});
  const real pr = one_statement([&] { return etad::prod(p, n); });
  CHECK(pr.value() == 1.5 * -2.0 * 0.25 * 4.0);
  CHECK(gradient_all(t, pr, x) == std::vector<double>{-2.0 * 0.25 * 4.0, 1.5 * 0.25 * 4.0,
                                                      1.5 * -2.0 * 4.0, 1.5 * -2.0 * 0.25});
  const real l = one_statement([&] { return etad::log_sum_exp(p, n); });
  double z = 0;
  for (const double e : v) z += std::exp(e);
  CHECK(l.value() == Approx(std::log(z)).epsilon(1e-15));
  const std::vector<double> gl = gradient_all(t, l, x);
  for (std::size_t i = 0; i < n; ++i) CHECK(gl[i] == Approx(std::exp(v[i]) / z).epsilon(1e-15));
  // dot: reals with numbers (either order), and reals with reals.
  const std::array<double, 4> a{0.5, -1.0, 2.0, 3.0};
  const std::vector<real> y = variables(t, {2.0, 0.5, -1.0, 1.0});
  const real xa = one_statement([&] { return etad::dot(p, a.data(), n); });
  CHECK(xa.value() == 0.75 + 2.0 + 0.5 + 12.0);
  CHECK(gradient_all(t, xa, x) == std::vector<double>{0.5, -1.0, 2.0, 3.0});
  const std::array<float, 4> af{0.5f, -1.0f, 2.0f, 3.0f};  // numbers of another type
  const real ax = one_statement([&] { return etad::dot(af.data(), p, n); });
  CHECK(ax.value() == xa.value());
  CHECK(gradient_all(t, ax, x) == std::vector<double>{0.5, -1.0, 2.0, 3.0});
  const real xy = one_statement([&] { return etad::dot(p, y.data(), n); });
  CHECK(xy.value() == 3.0 - 1.0 - 0.25 + 4.0);
  CHECK(gradient_all(t, xy, x) == std::vector<double>{2.0, 0.5, -1.0, 1.0});  // y
  CHECK(gradient_all(t, xy, y) == v);                                         // x
  // Part of a range, and a C array behind a pointer.
  const real tail = etad::sum(p + 1, 2);
  CHECK(tail.value() == -1.75);
  CHECK(gradient_all(t, tail, x) == std::vector<double>{0.0, 1.0, 1.0, 0.0});
  const real arr[] = {x[3], x[0]};
  const real* ap = arr;
  const real d = etad::prod(ap, 2);
  CHECK(d.value() == 6.0);
  CHECK(gradient_all(t, d, x) == std::vector<double>{4.0, 0.0, 0.0, 1.5});
}

TEST_CASE("tape reduce: a null pointer with a length of 0 is an empty range", "[tape][reduce]") {
  etad::tape t;
  const real* none = nullptr;
  const std::span<const real> empty;
  const std::size_t statements = t.statements();
  // The same results as the empty range: constants 0, 0, 1, -inf, 0.
  CHECK(etad::sum(none, 0).value() == etad::sum(empty).value());
  CHECK(etad::sum(none, 0).is_constant());
  CHECK(etad::squared_norm(none, 0).value() == 0.0);
  CHECK(etad::squared_norm(none, 0).is_constant());
  CHECK(etad::prod(none, 0).value() == 1.0);
  CHECK(etad::prod(none, 0).is_constant());
  CHECK(etad::log_sum_exp(none, 0).value() == -std::numeric_limits<double>::infinity());
  const double* no_numbers = nullptr;
  CHECK(etad::dot(none, no_numbers, 0).value() == 0.0);
  CHECK(etad::dot(no_numbers, none, 0).value() == 0.0);
  CHECK(etad::dot(none, none, 0).is_constant());
  // mean of no element is the empty range's error.
  CHECK_THROWS_WITH(etad::mean(none, 0),
                    "etad: mean() of an empty range; give at least one element");
  CHECK(t.statements() == statements);
}

TEST_CASE("tape reduce: constants in a range of reals take no partials", "[tape][reduce]") {
  // One partial per active element: a constant real among the reals (index 0) is left out of
  // the statement. Values and gradients as if the constants were numbers.
  etad::tape t{etad::persistent};
  SECTION("one active real among 100") {
    const real a = t.variable(0.5);
    std::vector<real> x(100, real(1.0));
    x[37] = a;
    const auto adds = [&](const char* name, auto reduction, std::size_t partials, double dvalue) {
      INFO(name);
      const std::size_t s0 = t.statements(), p0 = t.partials();
      const real r = reduction();
      CHECK(t.statements() - s0 == 1);
      CHECK(t.partials() - p0 == partials);
      CHECK(t.gradient(r, a)[0] == Approx(dvalue).epsilon(1e-14));
    };
    std::vector<double> c(100, 2.0);
    c[37] = -3.0;
    adds("sum", [&] { return etad::sum(x); }, 1, 1.0);
    adds("mean", [&] { return etad::mean(x); }, 1, 0.01);
    adds("squared_norm", [&] { return etad::squared_norm(x); }, 1, 1.0);  // 2 a
    adds("prod", [&] { return etad::prod(x); }, 1, 1.0);                   // the others: 1
    // softmax_37 = e^0.5 / (e^0.5 + 99 e)
    adds("log_sum_exp", [&] { return etad::log_sum_exp(x); }, 1,
         std::exp(0.5) / (std::exp(0.5) + 99 * std::exp(1.0)));
    adds("dot(x, numbers)", [&] { return etad::dot(x, c); }, 1, -3.0);
    adds("dot(numbers, x)", [&] { return etad::dot(c, x); }, 1, -3.0);
    adds("dot(x, x)", [&] { return etad::dot(x, x); }, 2, 1.0);  // a twice: 2 a
    adds("sum(p, n)", [&] { return etad::sum(x.data(), x.size()); }, 1, 1.0);
    const std::vector<real> only_constants(10, real(2.0));
    CHECK(etad::sum(only_constants).is_constant());
  }
  SECTION("constants between consecutive ends, and scattered") {
    // (x0, 5, x2): its ends are consecutive variables, so the reductions that check the middle
    // in their own loop record a range statement first, then find the constant.
    const std::vector<real> x = variables(t, {1.5, -2.0, 0.5});
    const std::vector<real> gap{x[0], real(5.0), x[2]};
    const std::vector<real> scattered{x[2], real(5.0), x[0], real(-1.0)};
    for (const auto* r : {&gap, &scattered}) {
      const std::vector<real>& e = *r;
      INFO((r == &gap ? "consecutive ends" : "scattered"));
      const std::size_t k = e.size();
      std::vector<double> ev(k);
      for (std::size_t i = 0; i < k; ++i) ev[i] = e[i].value();
      std::vector<double> coefficients(k);
      for (std::size_t i = 0; i < k; ++i) coefficients[i] = 0.5 + static_cast<double>(i);
      // d/dx_j of a reduction over e: the sum of its element partials where e_i is x_j.
      const auto expect = [&](const std::vector<double>& element_partials) {
        std::vector<double> g(3, 0.0);
        for (std::size_t i = 0; i < k; ++i)
          for (std::size_t j = 0; j < 3; ++j)
            if (e[i].index() == x[j].index()) g[j] += element_partials[i];
        return g;
      };
      double total = 0, product = 1, z = 0;
      for (const double value : ev) {
        total += value;
        product *= value;
        z += std::exp(value);
      }
      std::vector<double> ones(k, 1.0), twice(k), others(k), softmax(k);
      for (std::size_t i = 0; i < k; ++i) {
        twice[i] = 2 * ev[i];
        others[i] = 1;
        for (std::size_t j = 0; j < k; ++j)
          if (j != i) others[i] *= ev[j];
        softmax[i] = std::exp(ev[i]) / z;
      }
      const auto check = [&](const char* name, const real& result, double value,
                             const std::vector<double>& element_partials) {
        INFO(name);
        CHECK(result.value() == Approx(value).epsilon(1e-15));
        const std::vector<double> want = expect(element_partials);
        const std::vector<double> g = gradient_all(t, result, x);
        for (std::size_t j = 0; j < 3; ++j) CHECK(g[j] == Approx(want[j]).epsilon(1e-15));
      };
      const std::size_t p0 = t.partials(), s0 = t.statements();
      check("sum", etad::sum(e), total, ones);
      check("squared_norm", etad::squared_norm(e), [&] {
        double q = 0;
        for (const double value : ev) q += value * value;
        return q;
      }(), twice);
      check("prod", etad::prod(e), product, others);
      check("log_sum_exp", etad::log_sum_exp(e), std::log(z), softmax);
      double dv = 0;
      for (std::size_t i = 0; i < k; ++i) dv += coefficients[i] * ev[i];
      check("dot", etad::dot(e, coefficients), dv, coefficients);
      // 5 statements of 2 active elements each.
      CHECK(t.statements() - s0 == 5);
      CHECK(t.partials() - p0 == 10);
    }
  }
}

TEST_CASE("tape reduce: dot, squared_norm and the rest on scattered, empty and std::array ranges",
          "[tape][reduce]") {
  etad::tape t{etad::persistent};
  const std::vector<real> x = variables(t, {1.0, 2.0, 3.0, -1.0});
  SECTION("dot with x not consecutive") {
    const std::vector<real> s{x[3], x[1], x[0]};  // -1, 2, 1
    const std::array<double, 3> a{0.5, -2.0, 4.0};
    const real d = etad::dot(s, a);
    CHECK(d.value() == -0.5 - 4.0 + 4.0);
    CHECK(gradient_all(t, d, x) == std::vector<double>{4.0, -2.0, 0.0, 0.5});
    const std::vector<real> r{x[2], x[0], x[1]};  // 3, 1, 2
    const real e = etad::dot(s, r);               // -3 + 2 + 2
    CHECK(e.value() == 1.0);
    // s . r = x3 x2 + x1 x0 + x0 x1: gradient (2 x1, 2 x0, x3, x2) = (4, 2, -1, 3).
    CHECK(gradient_all(t, e, x) == std::vector<double>{4.0, 2.0, -1.0, 3.0});
  }
  SECTION("empty ranges: squared_norm and dot are the constant 0") {
    const std::vector<real> none;
    const std::vector<double> no_numbers;
    const std::size_t statements = t.statements();
    for (const real& r : {etad::squared_norm(none), etad::dot(none, no_numbers),
                          etad::dot(no_numbers, none), etad::dot(none, none)}) {
      CHECK(r.value() == 0.0);
      CHECK(r.is_constant());
    }
    CHECK(t.statements() == statements);
  }
  SECTION("std::array of reals") {
    const std::array<real, 3> a{x[0], x[2], x[3]};  // 1, 3, -1
    const real m = etad::mean(a);
    CHECK(m.value() == 1.0);
    CHECK(gradient_all(t, m, x) == std::vector<double>{1.0 / 3, 0.0, 1.0 / 3, 1.0 / 3});
    const real q = etad::squared_norm(a);
    CHECK(q.value() == 11.0);
    CHECK(gradient_all(t, q, x) == std::vector<double>{2.0, 0.0, 6.0, -2.0});
  }
}

// log_sum_exp shifts by the maximum, found in interleaved lanes (8 for a range of reals, with
// the elements past the last whole 8 in lanes of their own; 4 scalar lanes for a variable block
// of up to 16): the maximum at every position of ranges and blocks of 1 to 20 elements, 800
// above the rest. A maximum missed would make e^(800 - m) overflow; found, the value is 800
// (the other terms, e^-800, underflow to 0) and the gradient is 1 there, 0 elsewhere.
TEST_CASE("tape reduce: log_sum_exp finds the maximum at every position", "[tape][reduce]") {
  etad::tape t{etad::persistent};
  for (std::size_t n = 1; n <= 20; ++n)
    for (std::size_t at = 0; at < n; ++at) {
      INFO("n = " << n << ", maximum at " << at);
      std::vector<double> v(n, -0.5);
      v[at] = 800.0;
      t.reset();
      const std::vector<real> x = variables(t, v);
      const real l = etad::log_sum_exp(x);
      CHECK(l.value() == 800.0);
      const auto g = gradient_all(t, l, x);
      for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == (i == at ? 1.0 : 0.0));
      // The same over a variable block, whose maximum of up to 16 values is found in scalar
      // lanes of its own.
      t.reset();
      const etad::variable_block<double> b = t.variable_block(v);
      const real lb = etad::log_sum_exp(b);
      CHECK(lb.value() == 800.0);
      const std::vector<double> gb = t.gradient(lb, b);
      for (std::size_t i = 0; i < n; ++i) CHECK(gb[i] == (i == at ? 1.0 : 0.0));
    }
}
