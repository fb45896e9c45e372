// tests/custom/recompute_grad_test.cpp — etad::recompute_grad (tf.recompute_grad): the entry keeps
// only the inputs, the function runs again in the backward sweep, and the gradient is the plain
// tape's (bitwise where the operations are the same), also for several outputs, ranges, captured
// reals, nesting, gradients() options, paused recording and second derivatives.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>
#include <cstddef>
#include <span>
#include <tuple>
#include <vector>

namespace {
using etad::real;
using Catch::Matchers::Contains;

// Compares bitwise where both sweeps fuse (or do not fuse) multiply-adds alike: the tape's own
// sweep fuses where the target has FMA, and a recomputation's sweep begins its sums afresh, so
// with FMA the last bits may differ (see recompute_grad's comment).
void check_same(double a, double b) {
#if defined(__FMA__)
  CHECK(a == Approx(b).epsilon(1e-14));
#else
  CHECK(a == b);
#endif
}
}  // namespace

TEST_CASE("recompute_grad: the plain tape's gradient, with a captured real", "[custom][recompute]") {
  // f(a) = (sin(a) w)^2 + a, applied five times from x; w captured.
  auto run = [](bool recompute) {
    etad::tape t;
    real w = t.variable(1.3), x = t.variable(0.7);
    auto f = [&w](const real<>& a) {
      real b = sin(a) * w;
      return real(b * b + a);
    };
    auto g = etad::recompute_grad(f);
    real r = x;
    for (int i = 0; i < 5; ++i) r = recompute ? g(r) : f(r);
    const auto grad = t.gradient(r, x, w);
    return std::tuple{r.value(), grad[0], grad[1], t.statements()};
  };
  const auto [v0, gx0, gw0, s0] = run(false);
  const auto [v1, gx1, gw1, s1] = run(true);
  CHECK(v1 == v0);
  check_same(gx1, gx0);
  check_same(gw1, gw0);
  CHECK(s1 == 2 + 5);       // the variables and one index per call: f's statements are not kept
  CHECK(s0 == 2 + 5 * 2);
}

TEST_CASE("recompute_grad: several outputs and a range argument", "[custom][recompute]") {
  // f(v) = (sum v_i^2, prod v_i) over a range; z = 2 out0 + out1.
  // dz/dv_i = 4 v_i + prod / v_i: at (1, 2, 3): 4 + 6, 8 + 3, 12 + 2 = 10, 11, 14.
  int runs = 0;
  auto f = etad::recompute_grad([&runs](std::span<const real<>> v) {
    ++runs;
    real s = 0.0, p = 1.0;
    for (const auto& vi : v) {
      s = s + vi * vi;
      p = p * vi;
    }
    return std::tuple{s, p};
  });
  etad::tape t;
  std::vector<real<>> v = t.variables(std::vector{1.0, 2.0, 3.0});
  auto [a, b] = f(v);
  CHECK(a.value() == 14.0);
  CHECK(b.value() == 6.0);
  real z = 2 * a + b;
  std::vector<double> g(3);
  t.gradient(z, v, g);
  CHECK(g == std::vector<double>{10.0, 11.0, 14.0});
  CHECK(runs == 2);
}

TEST_CASE("recompute_grad: nested inside itself and around a custom gradient",
          "[custom][recompute]") {
  // inner(a) = a^3 (recomputed); outer(a) = inner(a) * c(a) with c a custom gradient of
  // exp declaring its true gradient: h(x) = x^3 e^x, h' = (3x^2 + x^3) e^x.
  auto cexp = etad::custom_gradient([](const real<>& a) {
    const double e = std::exp(a.value());
    return std::pair{exp(a), [e](double d) { return d * e; }};
  });
  auto inner = etad::recompute_grad([](const real<>& a) { return real(a * a * a); });
  auto outer = etad::recompute_grad([&](const real<>& a) { return real(inner(a) * cexp(a)); });
  for (double x0 : {-1.0, 0.5, 2.0}) {
    etad::tape t;
    real x = t.variable(x0);
    real h = outer(x);
    CHECK(h.value() == Approx(x0 * x0 * x0 * std::exp(x0)));
    CHECK(t.gradient(h, x)[0] ==
          Approx((3 * x0 * x0 + x0 * x0 * x0) * std::exp(x0)).epsilon(1e-14));
  }
}

TEST_CASE("recompute_grad: a captured real rebound before the gradient is an error",
          "[custom][recompute][errors]") {
  etad::tape t;
  real w = t.variable(2.0), x = t.variable(3.0);
  auto f = etad::recompute_grad([&w](const real<>& a) { return real(a * w); });
  real y = f(x);
  w = w * 2;  // w now names a newer real, which the recomputation would read instead
  REQUIRE_THROWS_WITH(t.gradient(y, x), Contains("did not read when first called"));
}

TEST_CASE("recompute_grad: gradients() options, paused recording and a newer tape",
          "[custom][recompute]") {
  // y = f(x) = x^2 (recomputed), z = y + 3x. dz/dx = 2x + 3 = 7 at x = 2; with y stopped, 3.
  auto f = etad::recompute_grad([](const real<>& a) { return real(a * a); });
  etad::tape t{etad::persistent};
  real x = t.variable(2.0), u = t.variable(5.0);
  real y = f(x);
  real z = y + 3 * x;
  const real<> targets[] = {z};
  const real<> sources[] = {x, u};
  auto plain = t.gradients(targets, sources);
  CHECK(plain[0] == 7.0);
  CHECK_FALSE(plain[1].has_value());
  const real<> stops[] = {y};
  CHECK(t.gradients(targets, sources, {.stop_gradients = stops})[0] == 3.0);
  {
    // The recomputation records on t even while recording is paused, or while a newer tape is
    // the thread's active one.
    etad::stop_recording<> pause;
    CHECK(t.gradient(z, x)[0] == 7.0);
  }
  {
    etad::tape newer;
    CHECK(t.gradient(z, x)[0] == 7.0);
    real q = newer.variable(1.0);
    real q2 = q * q;  // newer still records
    CHECK(newer.gradient(q2, q)[0] == 2.0);
  }
  // Without a tape: values.
  CHECK(f(real<>(3.0)).value() == 9.0);
}

TEST_CASE("recompute_grad: peak memory is what is kept plus one call", "[custom][recompute]") {
  // f records 200 statements; 50 calls keep 50 entries; the peak during the gradient holds one
  // recomputation more, far below the 10000 statements of the plain tape.
  auto f_plain = [](const real<>& a) {
    real b = a;
    for (int i = 0; i < 200; ++i) b = sin(b) + a;
    return b;
  };
  auto f = etad::recompute_grad(f_plain);
  double g_plain = 0;
  std::size_t peak_plain = 0;
  {
    etad::tape plain;
    real x = plain.variable(0.3);
    real r = x;
    for (int i = 0; i < 50; ++i) r = f_plain(r);
    g_plain = plain.gradient(r, x)[0];
    peak_plain = plain.peak_memory();
  }
  etad::tape kept;
  real x = kept.variable(0.3);
  real r = x;
  for (int i = 0; i < 50; ++i) r = f(r);
  // (Each call recorded f once, for a while, to find what it reads: the peak so far is that.)
  CHECK(kept.peak_memory() > kept.memory().total());
  kept.reset_peak_memory();
  const std::size_t before = kept.peak_memory();
  CHECK(kept.memory().total() == before);
  check_same(kept.gradient(r, x)[0], g_plain);
  CHECK(kept.peak_memory() > before);              // a recomputation was recorded for a while
  CHECK(kept.memory().total() == before);          // and taken back
  CHECK(kept.peak_memory() * 10 < peak_plain);
}

TEST_CASE("recompute_grad: second derivatives on nested tapes", "[custom][recompute][nested]") {
  // f(x) = sin(x) x recomputed on the inner tape: f' = cos(x) x + sin(x), f'' = 2cos(x) - x sin(x).
  using inner_real = real<real<double>>;
  auto f = etad::recompute_grad([](const inner_real& a) { return inner_real(sin(a) * a); });
  for (double x0 : {0.0, 0.7, -2.0}) {
    etad::tape outer;
    real<double> x = outer.variable(x0);
    real<double> gx;
    {
      etad::basic_tape<real<double>> inner;
      inner_real xi = inner.variable(x);
      inner_real y = f(xi);
      gx = inner.gradient(y, xi)[0];
    }
    CHECK(gx.value() == Approx(std::cos(x0) * x0 + std::sin(x0)).epsilon(1e-15).margin(1e-300));
    CHECK(outer.gradient(gx, x)[0] ==
          Approx(2 * std::cos(x0) - x0 * std::sin(x0)).epsilon(1e-14));
  }
}
