// tests/tape/control_flow_test.cpp — what the tape is for: programs whose shape depends on the
// data. A while loop that runs until a value crosses a bound, branches on values, recursion, and
// a loop of ten million statements swept backwards on a thread with a 256 KiB stack (the sweep is
// a loop over flat arrays; a recursive sweep would overflow). Expected values come from forward
// recurrences derived by hand, closed forms, and finite differences of the same program on numbers.
#include "support/finite_difference.hpp"
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <pthread.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace {

using real = etad::real<double>;

/// z = x; while (z < 100) z = z y + sin(x). Generic: runs on reals (recording) and on numbers.
constexpr auto grow = [](auto x, auto y) {
  auto z = x;
  while (z < 100) z = z * y + etad::sin(x);
  return z;
};

int grow_trips(double x, double y) {
  int n = 0;
  for (double z = x; z < 100; z = z * y + std::sin(x)) ++n;
  return n;
}

/// x^n by squaring: recursion depth log2 n, each level one statement.
template <class S>
S power(const S& x, int n) {
  if (n == 0) return S(1.0);
  if (n % 2 == 0) {
    const S h = power(x, n / 2);
    return h * h;
  }
  return x * power(x, n - 1);
}

/// Lambert's continued fraction for tan: tan x = x / (1 - x^2 / (3 - x^2 / (5 - ...))), the tail
/// evaluated by recursion: tail(k) = (2k - 1) - x^2 / tail(k + 1), cut at depth.
template <class S>
S lambert_tail(const S& x2, int k, int depth) {
  if (k == depth) return S(2.0 * k - 1);
  return (2.0 * k - 1) - x2 / lambert_tail(x2, k + 1, depth);
}
template <class S>
S lambert_tan(const S& x) {
  return x / lambert_tail(S(x * x), 1, 30);
}

/// a0 + x (a1 + x (a2 + ...)) by recursion over the coefficients.
template <class S>
S horner(std::span<const S> a, const S& x) {
  if (a.size() == 1) return a[0];
  return a[0] + x * horner(a.subspan(1), x);
}

}  // namespace

TEST_CASE("tape control flow: a data-dependent while loop", "[tape][control_flow]") {
  for (const auto& p : {std::array{0.5, 1.5}, std::array{2.0, 1.2}, std::array{0.3, 2.5}}) {
    const double xv = p[0], yv = p[1];
    const int trips = grow_trips(xv, yv);
    INFO("x = " << xv << ", y = " << yv << ", trips " << trips);
    REQUIRE(trips > 3);
    // The finite differences below are valid only where the trip count does not change nearby.
    REQUIRE(grow_trips(xv - 1e-4, yv) == trips);
    REQUIRE(grow_trips(xv + 1e-4, yv) == trips);
    REQUIRE(grow_trips(xv, yv - 1e-4) == trips);
    REQUIRE(grow_trips(xv, yv + 1e-4) == trips);

    const auto r = etad_tape_test::tape_gradient(grow, p);
    CHECK(r.statements == static_cast<std::size_t>(trips));  // one statement per iteration

    // Forward recurrence, by hand: z' = z y + sin x; dz'/dx = (dz/dx) y + cos x; dz'/dy = (dz/dy) y + z.
    double z = xv, dx = 1, dy = 0;
    for (int k = 0; k < trips; ++k) {
      dy = dy * yv + z;
      dx = dx * yv + std::cos(xv);
      z = z * yv + std::sin(xv);
    }
    CHECK(r.value == z);
    CHECK(r.gradient[0] == Approx(dx).epsilon(1e-13));
    CHECK(r.gradient[1] == Approx(dy).epsilon(1e-13));

    const auto d = etad_test::fd_gradient(grow, p);
    for (std::size_t i = 0; i < 2; ++i) {
      INFO("d/dx" << i << ": tape " << etad_test::fmt(r.gradient[i]) << ", finite difference "
                  << etad_test::fmt(d[i].value));
      CHECK(etad_test::close(r.gradient[i], d[i].value, 1e-7, d[i].error));
    }
  }
}

TEST_CASE("tape control flow: a branch on values records only the branch taken", "[tape][control_flow]") {
  const auto f = [](auto x, auto y) {
    auto r = x;  // a real on the tape, a number for numbers
    if (x > y)
      r = x * x * y;
    else
      r = etad::sin(x) + y;
    return r;
  };
  SECTION("x > y: x^2 y") {
    const auto r = etad_tape_test::tape_gradient(f, std::array{2.0, 0.5});
    CHECK(r.statements == 1);
    CHECK(r.value == 2.0);
    CHECK(r.gradient == std::array{2 * 2.0 * 0.5, 4.0});
  }
  SECTION("x <= y: sin(x) + y") {
    const auto r = etad_tape_test::tape_gradient(f, std::array{0.5, 2.0});
    CHECK(r.statements == 1);
    CHECK(r.value == std::sin(0.5) + 2.0);
    CHECK(r.gradient == std::array{std::cos(0.5), 1.0});
  }
  SECTION("comparisons of every kind, and with numbers") {
    etad::tape t;
    const real x = t.variable(1.0);
    const real y = t.variable(2.0);
    CHECK(bool(x < y));
    CHECK(bool(x <= y));
    CHECK_FALSE(bool(x > y));
    CHECK_FALSE(bool(x >= y));
    CHECK_FALSE(bool(x == y));
    CHECK(bool(x != y));
    CHECK(bool(x == 1.0));
    CHECK(bool(2 > x));
    CHECK(bool(x < y && y < 3.0));
    CHECK(bool(x > y || y > 1.5));
    CHECK(bool(!(x > y)));
    CHECK(bool(x * 2.0 == y));  // an expression, compared without being recorded
    CHECK(t.statements() == 2);
  }
}

TEST_CASE("tape control flow: a loop whose length depends on an input", "[tape][control_flow]") {
  // Halve z until it is below 1: n halvings, z = x / 2^n, dz/dx = 2^-n exactly.
  etad::tape t;
  const real x = t.variable(37.0);
  const std::size_t before = t.statements();
  real z = x;
  int n = 0;
  for (; z >= 1.0; ++n) z = z * 0.5;
  CHECK(n == 6);
  CHECK(t.statements() - before == 6);
  CHECK(z.value() == 37.0 / 64);
  CHECK(t.gradient(z, x)[0] == 1.0 / 64);
}

TEST_CASE("tape control flow: recursion", "[tape][control_flow]") {
  SECTION("x^n by recursive squaring") {
    const double xv = 1.1;
    for (const int n : {1, 2, 7, 13, 64}) {
      etad::tape t;
      const real x = t.variable(xv);
      const real z = power(x, n);
      INFO("n = " << n);
      CHECK(z.value() == Approx(std::pow(xv, n)).epsilon(1e-14));
      CHECK(t.gradient(z, x)[0] == Approx(n * std::pow(xv, n - 1)).epsilon(1e-14));
    }
  }
  SECTION("tan by Lambert's continued fraction: d/dx = 1 + tan^2 x") {
    for (const double xv : {-1.2, 0.3, 0.7, 1.4}) {
      etad::tape t;
      const real x = t.variable(xv);
      const real z = lambert_tan(x);
      INFO("x = " << xv);
      CHECK(z.value() == Approx(std::tan(xv)).epsilon(1e-14));
      CHECK(t.gradient(z, x)[0] == Approx(1 + std::tan(xv) * std::tan(xv)).epsilon(1e-13));
      // The same program on numbers, by finite differences.
      const auto d = etad_test::fd_gradient([](auto v) { return lambert_tan(v); }, std::array{xv});
      const etad::tape::value_type g = etad_tape_test::tape_gradient([](auto v) { return lambert_tan(v); },
                                                                     std::array{xv}).gradient[0];
      CHECK(etad_test::close(g, d[0].value, 1e-8, d[0].error));
    }
  }
  SECTION("Horner's rule with coefficients on the tape") {
    // p(x) = 2 - 3x + 0.5x^2 + 4x^3: dp/dx = -3 + x + 12x^2; dp/da_k = x^k.
    const double xv = -0.7;
    etad::tape t;
    const real x = t.variable(xv);
    const std::vector<real> a{t.variable(2.0), t.variable(-3.0), t.variable(0.5), t.variable(4.0)};
    const real p = horner(std::span<const real>(a), x);
    CHECK(p.value() == Approx(2 - 3 * xv + 0.5 * xv * xv + 4 * xv * xv * xv).epsilon(1e-15));
    const auto g = t.gradient(p, x, a[0], a[1], a[2], a[3]);
    CHECK(g[0] == Approx(-3 + xv + 12 * xv * xv).epsilon(1e-14));
    CHECK(g[1] == 1.0);
    CHECK(g[2] == xv);
    CHECK(g[3] == Approx(xv * xv).epsilon(1e-15));
    CHECK(g[4] == Approx(xv * xv * xv).epsilon(1e-15));
  }
}

namespace {

struct long_loop {
  static constexpr std::size_t n = 10'000'000;
  static constexpr double a0 = 1 + 1e-7;
  static constexpr double x0 = 1.5;
  double value = 0, dz_da = 0, dz_dx = 0, none_da = 0;
  std::size_t statements = 0, partials = 0;
  bool completed = false;
};

// z = x; n times z = z * a: z = x a^n, dz/da = n x a^(n-1), dz/dx = a^n. Runs on the small-stack
// thread: the tape, the recording and both sweeps (gradient and gradients) happen there.
void* run_long_loop(void* arg) {
  auto& r = *static_cast<long_loop*>(arg);
  try {
    etad::tape t{etad::persistent};
    const real a = t.variable(long_loop::a0);
    const real x = t.variable(long_loop::x0);
    real z = x;
    for (std::size_t k = 0; k < long_loop::n; ++k) z = z * a;
    r.statements = t.statements();
    r.partials = t.partials();
    r.value = z.value();
    const auto g = t.gradient(z, a, x);
    r.dz_da = g[0];
    r.dz_dx = g[1];
    const std::vector<real> targets{z}, sources{a};
    r.none_da = *t.gradients(targets, sources)[0];  // the other sweep loop (reachability flags)
    r.completed = true;
  } catch (...) {
  }
  return nullptr;
}

}  // namespace

TEST_CASE("tape control flow: ten million statements, swept on a 256 KiB stack", "[tape][control_flow]") {
  long_loop r;
  pthread_attr_t attr;
  REQUIRE(pthread_attr_init(&attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&attr, 256 * 1024) == 0);
  pthread_t thread;
  REQUIRE(pthread_create(&thread, &attr, run_long_loop, &r) == 0);
  REQUIRE(pthread_join(thread, nullptr) == 0);
  pthread_attr_destroy(&attr);
  REQUIRE(r.completed);

  const double n = static_cast<double>(long_loop::n);
  const double an = std::exp(n * std::log1p(1e-7));  // a^n, with a = 1 + 1e-7 (a0 is that double)
  const double an1 = an / long_loop::a0;
  CHECK(r.statements == long_loop::n + 2);
  CHECK(r.partials == 2 * long_loop::n);
  // Ten million roundings: allow 1e-8 relative (the expected error is about 1e-12).
  CHECK(r.value == Approx(long_loop::x0 * an).epsilon(1e-8));
  CHECK(r.dz_dx == Approx(an).epsilon(1e-8));
  CHECK(r.dz_da == Approx(n * long_loop::x0 * an1).epsilon(1e-8));
  CHECK(r.none_da == r.dz_da);
}
