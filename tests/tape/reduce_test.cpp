// tests/tape/reduce_test.cpp — what the tape records (one statement per assignment, one partial per
// real leaf occurrence; one statement per reduction, one partial per element) and the reductions'
// values and gradients against their closed forms: sum -> ones, mean -> 1/n, squared_norm -> 2x,
// prod -> products of the others (also with zeros), log_sum_exp -> softmax (also where a naive
// exp would overflow), dot -> the other factor.
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
