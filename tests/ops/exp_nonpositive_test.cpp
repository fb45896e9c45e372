// tests/ops/exp_nonpositive_test.cpp — detail::exp_nonpositive, the vectorizable e^x for x <= 0
// that log_sum_exp uses: its error in ulps against long double expl on seeded points over
// [-746, 0] (uniform, dense near 0, through the subnormal range), exactly 0 below the cut-off
// -1075 ln 2, and the special values 0, -0, -inf, NaN. Evaluated in a loop over an array, the
// form in which log_sum_exp calls it (and in which compilers vectorize it).
#include <etad/ops/detail/exp_nonpositive.hpp>

#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

// The reference needs more precision than double: x87's 64-bit long double (Linux on x86).
constexpr bool precise_reference = std::numeric_limits<long double>::digits >= 64;

std::vector<double> kernel(const std::vector<double>& x) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = etad::detail::exp_nonpositive(x[i]);
  return y;
}

/// |y - e| in units of the spacing of doubles at e: 2^(exponent(e) - 52) for e >= DBL_MIN, the
/// subnormal spacing 2^-1074 below it.
double ulps(double y, long double e) {
  long double spacing = std::ldexp(1.0L, -1074);
  if (e >= static_cast<long double>(DBL_MIN)) {
    int exponent = 0;
    (void)std::frexp(e, &exponent);  // e = f 2^exponent, 0.5 <= f < 1
    spacing = std::ldexp(1.0L, exponent - 53);
  }
  return static_cast<double>(std::fabs(static_cast<long double>(y) - e) / spacing);
}

struct worst {
  double normal = 0, subnormal = 0;
  double normal_at = 0, subnormal_at = 0;
};

worst measure(const std::vector<double>& x) {
  const std::vector<double> y = kernel(x);
  worst w;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double e = std::exp(static_cast<long double>(x[i]));
    const double u = ulps(y[i], e);
    if (e >= static_cast<long double>(DBL_MIN)) {
      if (u > w.normal) w = {u, w.subnormal, x[i], w.subnormal_at};
    } else if (u > w.subnormal) {
      w = {w.normal, u, w.normal_at, x[i]};
    }
  }
  return w;
}

}  // namespace

TEST_CASE("exp_nonpositive: within 0.7 ulp of expl over [-746, 0]", "[ops][exp_nonpositive]") {
  if constexpr (!precise_reference) {
    WARN("long double is not wider than double here: no reference for the ulp check");
    return;
  }
  std::mt19937_64 rng(20261124);
  std::vector<double> x;
  const auto uniform = [&](double lo, double hi, int count) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (int i = 0; i < count; ++i) x.push_back(d(rng));
  };
  uniform(-746, 0, 400000);
  uniform(-1, 0, 200000);                  // k = 0 and k = -1: the results of size 1/2 .. 1
  uniform(-0.35, -0.34, 50000);            // around -ln2 / 2, where k changes
  uniform(-708.5, -708.3, 50000);          // results around DBL_MIN
  uniform(-745.2, -708.39, 300000);        // subnormal results
  std::uniform_real_distribution<double> mantissa(1, 2);
  for (int e = 1; e <= 1074; ++e)          // dense near 0: -m 2^-e, down to the subnormal x
    for (int i = 0; i < 100; ++i) x.push_back(-std::ldexp(mantissa(rng), -e));
  const worst w = measure(x);
  INFO("worst normal result: " << w.normal << " ulp at x = " << w.normal_at);
  INFO("worst subnormal result: " << w.subnormal << " ulp of 2^-1074 at x = " << w.subnormal_at);
  CHECK(w.normal < 0.7);
  CHECK(w.subnormal < 1.0);
  // The checks above are not vacuous: subnormal results were met, and they are not flushed.
  CHECK(w.subnormal_at < -708.4);
}

TEST_CASE("exp_nonpositive: subnormal results are not flushed, and 0 below -1075 ln 2", "[ops][exp_nonpositive]") {
  // e^x = 2^-1075 (half the smallest subnormal) at x = -1075 ln 2 = -745.13321910194120762...
  const double cut = -745.1332191019412;
  const std::vector<double> x{cut + 1e-9, cut - 1e-9, -745.0, -740.0, -720.0, -708.5, -746.0,
                              -750.0, -1000.0, -1e300, -std::numeric_limits<double>::max()};
  const std::vector<double> y = kernel(x);
  CHECK(y[0] == std::numeric_limits<double>::denorm_min());  // e^x just above 2^-1075
  CHECK(y[1] == 0.0);
  // -745: 4.94e-324 * e^0.133 = 5.6e-324 -> 1 * 2^-1074; the others: by the long double value.
  CHECK(y[2] == std::numeric_limits<double>::denorm_min());
  for (std::size_t i = 3; i < 6; ++i) {
    INFO("x = " << x[i]);
    const double want = static_cast<double>(std::exp(static_cast<long double>(x[i])));
    CHECK(y[i] > 0.0);
    CHECK(y[i] < DBL_MIN);
    CHECK(std::fabs(y[i] - want) <= std::numeric_limits<double>::denorm_min());
  }
  for (std::size_t i = 6; i < x.size(); ++i) {
    INFO("x = " << x[i]);
    CHECK(y[i] == 0.0);
    CHECK_FALSE(std::signbit(y[i]));
  }
}

TEST_CASE("exp_nonpositive: special values", "[ops][exp_nonpositive]") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x{0.0,
                              -0.0,
                              -inf,
                              std::numeric_limits<double>::quiet_NaN(),
                              -std::numeric_limits<double>::quiet_NaN(),
                              -std::numeric_limits<double>::denorm_min(),
                              -1e-20,
                              -0x1p-53,
                              -0x1p-54};
  const std::vector<double> y = kernel(x);
  CHECK(y[0] == 1.0);
  CHECK(y[1] == 1.0);
  CHECK(y[2] == 0.0);
  CHECK_FALSE(std::signbit(y[2]));
  CHECK(std::isnan(y[3]));
  CHECK(std::isnan(y[4]));
  CHECK(y[5] == 1.0);
  CHECK(y[6] == 1.0);
  // e^(-2^-53) = 1 - 2^-53 + 2^-107: the double just below 1. e^(-2^-54) = 1 - 2^-54 + ...: a
  // tie broken upwards by the 2^-109 term, so 1.
  CHECK(y[7] == 1.0 - 0x1p-53);
  CHECK(y[8] == 1.0);
  // A NaN among ordinary values stays where it is (the loop is not thrown off by it).
  const std::vector<double> mixed = kernel({-1.0, std::numeric_limits<double>::quiet_NaN(), -2.0,
                                            -inf, 0.0, -3.0, -4.0, -5.0, -6.0});
  CHECK(mixed[0] == Approx(std::exp(-1.0)).epsilon(1e-15));
  CHECK(std::isnan(mixed[1]));
  CHECK(mixed[2] == Approx(std::exp(-2.0)).epsilon(1e-15));
  CHECK(mixed[3] == 0.0);
  CHECK(mixed[4] == 1.0);
  CHECK(mixed[8] == Approx(std::exp(-6.0)).epsilon(1e-15));
}

TEST_CASE("exp_nonpositive: usable in constant expressions", "[ops][exp_nonpositive]") {
  static_assert(etad::detail::exp_nonpositive(0.0) == 1.0);
  static_assert(etad::detail::exp_nonpositive(-std::numeric_limits<double>::infinity()) == 0.0);
  constexpr double e1 = etad::detail::exp_nonpositive(-1.0);
  CHECK(e1 == Approx(0.36787944117144233).epsilon(1e-15));
}
