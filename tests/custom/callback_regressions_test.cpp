// tests/custom/callback_regressions_test.cpp — regression tests for the bugs a review of the
// tape's callback entries found (custom_gradient, recompute_grad, checkpointed_loop): each
// failed before its fix, with a wrong gradient, an out-of-bounds sweep or a wrong error.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

using etad::real;

TEST_CASE("regression: blocks a taken-back recording moved into are emptied",
          "[custom][regression]") {
  // A recomputation that records 40,000 statements runs into a second block; a later reduction
  // of 70,000 partials needs a block of its own size and skipped the second one, which kept
  // the recomputation's statements below the current block: the sweep read them (dw/dx was
  // 130236, and out of bounds under AddressSanitizer). w = z y + |b|^2 with z = x (through f),
  // y = 2x: dw/dx = 4x = 6 at 1.5.
  etad::tape t{etad::persistent};
  const std::vector<double> values(70000, 0.5);
  auto f = etad::recompute_grad([](const real<>& a, std::span<const real<>> v) {
    real s = a;
    for (int i = 0; i < 40000; ++i) s = s * 1.0;
    real q = etad::squared_norm(v);
    return real(s + 0.0 * q);
  });
  for (int round = 0; round < 2; ++round) {
    auto block = t.variable_block(values);
    const std::vector<real<>> reals = block.reals();
    real x = t.variable(1.5);
    real y = x * 2.0;
    real z = f(x, reals);
    CHECK(t.gradient(real(z * y), x)[0] == 6.0);
    real big = etad::squared_norm(block);
    real w = z * y + big;
    CHECK(t.gradient(w, x)[0] == 6.0);
    t.reset();
  }
}

TEST_CASE("regression: a checkpointed_loop step that throws in the sweep, then a retry",
          "[custom][regression]") {
  // The first sweep continued the recording's schedule in place; a step that threw left it half
  // used, and the retry continued from there (a wrong gradient, silently). s_n = x w^n... with
  // the step s -> s w + x: compared with the fully taped loop.
  const std::size_t n = 13;
  int calls = 0, fail_at = -1;
  auto step_plain = [](const real<>& s, const real<>& x, const real<>& w) {
    return real(s * w + x);
  };
  etad::tape full;
  real fx = full.variable(0.3), fw = full.variable(0.9);
  real fs = fx;
  for (std::size_t i = 0; i < n; ++i) fs = step_plain(fs, fx, fw);
  const auto expected = full.gradient(fs, fx, fw);

  etad::tape t{etad::persistent};
  real x = t.variable(0.3), w = t.variable(0.9);
  real s = etad::checkpointed_loop(
      n,
      [&](const real<>& v) {
        if (calls++ == fail_at) throw std::runtime_error("step failed");
        return step_plain(v, x, w);
      },
      x, {.snapshots = 3});
  fail_at = calls + 6;
  CHECK_THROWS_AS(t.gradient(s, x, w), std::runtime_error);
  const auto g = t.gradient(s, x, w);
  CHECK(g[0] == Approx(expected[0]).epsilon(1e-14));
  CHECK(g[1] == Approx(expected[1]).epsilon(1e-14));
}

TEST_CASE("regression: a stopped entry output leaves its inputs unconnected",
          "[custom][regression]") {
  // As for a statement: a source reached only through a stopped value is unconnected (none),
  // not 0 (the entry marked its inputs reached before it looked at the stop).
  auto square = etad::custom_gradient([](const real<>& a) {
    const double av = a.value();
    return std::pair{a * a, [av](double d) { return 2 * av * d; }};
  });
  auto square_again = etad::recompute_grad([](const real<>& a) { return real(a * a); });
  etad::tape t{etad::persistent};
  real x = t.variable(3.0);
  real y1 = square(x), y2 = square_again(x);
  for (const real<>& y : {y1, y2}) {
    const real<> targets[] = {y};
    const real<> sources[] = {x};
    const real<> stops[] = {y};
    CHECK_FALSE(t.gradients(targets, sources, {.stop_gradients = stops})[0].has_value());
    CHECK(t.gradients(targets, sources)[0] == 6.0);
  }
}

TEST_CASE("regression: a non-persistent tape answers after a callback's error",
          "[custom][regression]") {
  // A gradient function's wrong count throws from the sweep: the call did not happen, so the
  // tape's one gradient is still there (it said "already called").
  bool wrong = true;
  auto f = etad::custom_gradient([&wrong](std::span<const real<>> v) {
    real s = v[0] + v[1];
    return std::pair{s, [&wrong](double d) {
                       return wrong ? std::vector<double>{d} : std::vector<double>{d, d};
                     }};
  });
  etad::tape t;
  const std::vector<real<>> v = t.variables(std::vector{1.0, 2.0});
  real s = f(v);
  CHECK_THROWS_AS(t.gradient(s, v[0], v[1]), etad::error);
  wrong = false;
  const auto g = t.gradient(s, v[0], v[1]);
  CHECK(g[0] == 1.0);
  CHECK(g[1] == 1.0);
}

TEST_CASE("regression: a std::array of outputs is as many outputs, known at compile time",
          "[custom][regression]") {
  // It was taken for a range: the gradient function had to take a span, and the result was a
  // std::vector. (x + y, x - y), gradient (d1 + d2, d1 - d2).
  auto f = etad::custom_gradient([](const real<>& a, const real<>& b) {
    return std::pair{std::array{real<>(a + b), real<>(a - b)},
                     [](double d1, double d2) { return std::array{d1 + d2, d1 - d2}; }};
  });
  etad::tape t;
  real x = t.variable(2.0), y = t.variable(0.5);
  auto [p, m] = f(x, y);
  static_assert(std::is_same_v<decltype(f(x, y)), std::array<real<>, 2>>);
  real z = 3 * p + m;  // (d1, d2) = (3, 1): dz/dx = 4, dz/dy = 2
  const auto g = t.gradient(z, x, y);
  CHECK(g[0] == 4.0);
  CHECK(g[1] == 2.0);
}

TEST_CASE("regression: a stale real returned by a recomputed function or a loop's step",
          "[custom][regression][errors]") {
  // Returned as it was, it reached the sweep's seeding unchecked: an index past the recording
  // read and wrote outside the adjoints (AddressSanitizer: heap-buffer-overflow, in every
  // build), one below it was taken as a captured variable (a wrong gradient, no error).
  etad::tape t{etad::persistent};
  real old = t.variable(1.0);
  for (int i = 0; i < 5000; ++i) old = old * 1.0001;
  t.reset();
  real x = t.variable(2.0);
  auto f = etad::recompute_grad([&](const real<>& a) {
    (void)a;
    return old;
  });
  CHECK_THROWS_WITH(f(x), Catch::Contains("recompute_grad was given a real recorded on another "
                                          "tape or before reset()"));
  auto step = [&](const real<>& s) {
    (void)s;
    return old;
  };
  CHECK_THROWS_AS(etad::checkpointed_loop(4, step, x, {.snapshots = 2}), etad::error);
  const real y = x * 3.0;
  CHECK(t.gradient(y, x)[0] == 3.0);
}

TEST_CASE("regression: reset() or activate() inside a callback entry's function",
          "[custom][regression][errors]") {
  // reset() from a gradient function destroyed the entry whose function was running
  // (AddressSanitizer: heap-use-after-free); activate() inside a recomputation relinked the
  // thread's chain of tapes from the tape made active for it, and a tape could drop out.
  etad::tape t;
  real x = t.variable(2.0);
  const real z = x * x;
  auto f = etad::custom_gradient([&](const real<>& u) {
    return std::pair{real(u * 3.0), [&t](double up) {
                       t.reset();
                       return up * 3.0;
                     }};
  });
  const real y = f(z);
  CHECK_THROWS_WITH(t.gradient(y, x), Catch::Contains("reset() was called inside"));
  etad::tape other;
  t.activate();
  real a = t.variable(1.5);
  int calls = 0;
  auto g = etad::recompute_grad([&](const real<>& v) {
    if (++calls == 2) other.activate();  // in the recomputation, run by the backward sweep
    return real(v * 2.0);
  });
  const real b = g(a);
  CHECK_THROWS_WITH(t.gradient(b, a), Catch::Contains("activate() was called inside"));
  CHECK(etad::tape::current() == &t);
}
