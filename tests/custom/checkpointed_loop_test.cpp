// tests/custom/checkpointed_loop_test.cpp — etad::checkpointed_loop: the fully taped loop's value
// and gradient for many (n, s), the binomial optimum of recomputed steps (computed here from its
// closed form), memory independent of n, states of several reals, captured parameters, errors.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>

namespace {
using etad::real;
using Catch::Matchers::Contains;

// Griewank's optimum for n steps and s stored states (the initial one included), from its
// closed form: r n - C(s + r, s + 1) with r the least integer such that C(s + r, s) >= n
// (C computed in long double: the cases here are small).
std::size_t optimum(std::size_t n, std::size_t s) {
  auto choose = [](std::size_t a, std::size_t b) {
    long double c = 1;
    for (std::size_t k = 1; k <= b; ++k) c = c * static_cast<long double>(a - b + k) / k;
    return static_cast<std::size_t>(std::llround(c));
  };
  if (n <= 1) return 0;
  std::size_t r = 0;
  while (choose(s + r, s) < n) ++r;
  return r * n - choose(s + r, s + 1);
}

constexpr auto body = [](auto t, auto x, auto y) { return sin(t) * y + x / (1 + t * t); };
}  // namespace

TEST_CASE("checkpointed_loop: the fully taped loop's gradient for every (n, s)",
          "[custom][checkpoint]") {
  for (std::size_t n : {0, 1, 2, 3, 10, 57, 300}) {
    for (std::size_t s : {1, 2, 3, 5, 10, 1000}) {
      etad::tape full;
      real fx = full.variable(0.5), fy = full.variable(0.8);
      real f = fx;
      for (std::size_t i = 0; i < n; ++i) f = etad::call(body, f, fx, fy);
      const auto fg = full.gradient(f, fx, fy);

      etad::tape t{etad::persistent};
      real x = t.variable(0.5), y = t.variable(0.8);
      etad::checkpoint_stats st;
      real r = etad::checkpointed_loop(
          n, [&](const real<>& v) { return etad::call(body, v, x, y); }, x,
          {.snapshots = s, .stats = &st});
      const auto g = t.gradient(r, x, y);
      INFO("n = " << n << ", s = " << s);
      CHECK(r.value() == f.value());
      CHECK(g[0] == fg[0]);  // the same statements swept in the same order: bitwise
      CHECK(g[1] == fg[1]);
      if (n > 0) {
        // The first sweep continues the schedule the recording began: the recording ran its
        // forward sweep of n - 1 steps.
        CHECK(st.continued);
        CHECK(st.recomputed_steps == optimum(n, s) - (n - 1));
        CHECK(st.optimal_recomputations == optimum(n, s) - (n - 1));
        CHECK(st.taped_steps == n);
        CHECK(st.snapshots_used <= std::min(n, s));
        // A second gradient of the persistent tape starts afresh: the whole optimum, and the
        // same gradient.
        const auto g2 = t.gradient(r, x, y);
        CHECK(g2[0] == fg[0]);
        CHECK(g2[1] == fg[1]);
        CHECK_FALSE(st.continued);
        CHECK(st.recomputed_steps == optimum(n, s));
        CHECK(st.optimal_recomputations == optimum(n, s));
        CHECK(st.taped_steps == n);
      }
    }
  }
  // The closed form's corners: s >= n gives n - 1; s = 1 gives n (n - 1) / 2.
  CHECK(optimum(300, 1000) == 299);
  CHECK(optimum(300, 1) == 300 * 299 / 2);
}

TEST_CASE("checkpointed_loop: memory is O(s) whatever n", "[custom][checkpoint][memory]") {
  auto peak = [](std::size_t n, std::size_t s) {
    etad::tape t;
    real x = t.variable(0.5), y = t.variable(0.8);
    real r = etad::checkpointed_loop(
        n, [&](const real<>& v) { return etad::call(body, v, x, y); }, x, {.snapshots = s});
    (void)t.gradient(r, x, y);
    return t.peak_memory();
  };
  CHECK(peak(1000, 10) == peak(8000, 10));
  // Linear in s: each slot holds a state (and room for the schedule's stack), the same bytes
  // for every slot.
  CHECK(peak(1000, 10) < peak(1000, 20));
  CHECK(peak(1000, 20) - peak(1000, 10) == peak(1000, 30) - peak(1000, 20));
}

TEST_CASE("checkpointed_loop: a state of two reals, parameters captured", "[custom][checkpoint]") {
  // A damped rotation (u, v) -> (c u - s v, s u + c v) * a, with angle w and damping a captured:
  // after n steps (u, v) = a^n R(n w) (u0, v0). Checked against the fully taped loop, and
  // d u_n / d a against the closed form n a^(n-1) (cos(n w) u0 - sin(n w) v0).
  const std::size_t n = 40;
  const double u0 = 1.0, v0 = 0.5, w0 = 0.1, a0 = 0.97;
  etad::tape t;
  real u = t.variable(u0), v = t.variable(v0), w = t.variable(w0), a = t.variable(a0);
  auto rotate = [&](const real<>& p, const real<>& q) {
    return std::tuple{a * (cos(w) * p - sin(w) * q), a * (sin(w) * p + cos(w) * q)};
  };
  etad::checkpoint_stats st;
  auto [un, vn] = etad::checkpointed_loop(n, rotate, u, v, {.snapshots = 4, .stats = &st});
  const double an = std::pow(a0, double(n));
  CHECK(un.value() == Approx(an * (std::cos(n * w0) * u0 - std::sin(n * w0) * v0)));
  CHECK(vn.value() == Approx(an * (std::sin(n * w0) * u0 + std::cos(n * w0) * v0)));
  const auto g = t.gradient(un, u, v, w, a);
  CHECK(g[0] == Approx(an * std::cos(n * w0)));
  CHECK(g[1] == Approx(-an * std::sin(n * w0)));
  CHECK(g[2] == Approx(an * n * (-std::sin(n * w0) * u0 - std::cos(n * w0) * v0)));
  CHECK(g[3] == Approx(n * an / a0 * (std::cos(n * w0) * u0 - std::sin(n * w0) * v0)));
  CHECK(st.recomputed_steps == optimum(n, 4) - (n - 1));
}

TEST_CASE("checkpointed_loop: errors", "[custom][checkpoint][errors]") {
  etad::tape t;
  real x = t.variable(0.5), y = t.variable(0.8);
  auto step = [&](const real<>& v) { return etad::call(body, v, x, y); };
  CHECK_THROWS_WITH(etad::checkpointed_loop(10, step, x, {.snapshots = 0}),
                    Contains("at least one snapshot"));
  real r = etad::checkpointed_loop(10, step, x, {.snapshots = 3});
  y = y * 2;  // the step now reads another real than it read when recorded
  CHECK_THROWS_WITH(t.gradient(r, x), Contains("which it did not read in its first step"));
  // No recording: values only.
  etad::stop_recording<> pause;
  real c = etad::checkpointed_loop(3, [](const real<>& v) { return real(v * 2); }, x);
  CHECK(c.is_constant());
  CHECK(c.value() == 4.0);
}
