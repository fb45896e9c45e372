// tests/tape/nonfinite_test.cpp — infinities and NaNs on the tape. Values and gradients follow IEEE
// along the paths that are taken (log(0): value -inf, gradient +inf; a NaN input makes NaN
// gradients on the paths whose partials it touches); a value computed but not used — or used only
// with an exactly zero adjoint — pushes nothing, so its infinite partial cannot turn a finite
// gradient into 0 * inf = NaN.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace {
using real = etad::real<double>;
using reals = std::vector<real>;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double quiet_nan = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("tape nonfinite: log(0) is -inf with gradient +inf", "[tape][nonfinite]") {
  etad::tape t;
  const real x = t.variable(0.0);
  const real z = etad::log(x);
  CHECK(z.value() == -inf);
  CHECK(t.gradient(z, x)[0] == inf);
  // The static front door agrees.
  const auto s = etad::gradient([](auto v) { return etad::log(v); }, 0.0);
  CHECK(s.value == -inf);
  CHECK(s.gradient[0] == inf);
}

TEST_CASE("tape nonfinite: infinities follow IEEE along the path", "[tape][nonfinite]") {
  etad::tape t{etad::persistent};
  const real zero = t.variable(0.0);
  const real big = t.variable(1000.0);
  const real pinf = t.variable(inf);
  const real r = 1.0 / zero;  // inf, d/dx = -1/x^2 = -inf
  CHECK(r.value() == inf);
  CHECK(t.gradient(r, zero)[0] == -inf);
  const real e = etad::exp(big);  // overflows: inf, gradient inf
  CHECK(e.value() == inf);
  CHECK(t.gradient(e, big)[0] == inf);
  const real a = etad::atan(pinf);  // pi/2, gradient 1/(1 + inf) = 0
  CHECK(a.value() == Approx(std::acos(-1.0) / 2));
  CHECK(t.gradient(a, pinf)[0] == 0.0);
  const real d = etad::exp(-pinf);  // 0, gradient -0
  CHECK(d.value() == 0.0);
  CHECK(t.gradient(d, pinf)[0] == 0.0);
}

TEST_CASE("tape nonfinite: a NaN input makes NaN gradients only through its partials", "[tape][nonfinite]") {
  etad::tape t{etad::persistent};
  const real x = t.variable(quiet_nan);
  const real y = t.variable(2.0);
  const real a = etad::sin(x);  // NaN, partial cos(NaN) = NaN
  const real z = a + 3.0 * y;   // partials 1 (to a) and 3 (to y): y's path never meets the NaN
  CHECK(std::isnan(z.value()));
  const auto g = t.gradient(z, x, y);
  CHECK(std::isnan(g[0]));
  CHECK(g[1] == 3.0);
  const real w = a * y;  // partial to y is a = NaN
  const auto h = t.gradient(w, x, y);
  CHECK(std::isnan(h[0]));
  CHECK(std::isnan(h[1]));
  const real u = y * y;  // does not depend on x at all
  CHECK(t.gradient(u, x, y) == std::array{0.0, 4.0});
  const reals tu{u}, sx{x};
  CHECK_FALSE(t.gradients(tu, sx)[0].has_value());
}

TEST_CASE("tape nonfinite: an unused value with an infinite partial does not poison the gradient",
          "[tape][nonfinite]") {
  etad::tape t{etad::persistent};
  const real x = t.variable(0.0);
  const real unused = etad::sqrt(x);  // value 0, partial 1/(2 * 0) = inf; never used below
  const real unused_log = etad::log(x) * 3.0;
  CHECK(unused.value() == 0.0);
  CHECK(std::isinf(unused_log.value()));
  const real z = 2.0 * x;
  CHECK(t.gradient(z, x)[0] == 2.0);
  const reals tz{z}, sx{x};
  CHECK(t.gradients(tz, sx)[0] == 2.0);  // reachability flags (unconnected::none)
  CHECK(t.gradients(tz, sx, {.unconnected_gradients = etad::unconnected::zero})[0] == 2.0);
  const real other = t.variable(1.0);
  const reals stops{other};
  CHECK(t.gradients(tz, sx, {.stop_gradients = stops})[0] == 2.0);  // the flagged sweep
  // Once used, the infinity arrives, as IEEE says: d/dx (2 x + sqrt(x)) at 0 = +inf.
  const real used = z + unused;
  CHECK(t.gradient(used, x)[0] == inf);
}

TEST_CASE("tape nonfinite: the untaken side of select, min and max gets nothing", "[tape][nonfinite]") {
  etad::tape t{etad::persistent};
  const real x = t.variable(0.0);
  const real y = t.variable(-1.0);
  // select(x > 0, sqrt(x), 0) at 0: the sqrt side (partial inf) is not taken: gradient 0, not NaN.
  const real s = etad::select(x > 0.0, etad::sqrt(x), 0.0);
  CHECK(s.value() == 0.0);
  const double gs = t.gradient(s, x)[0];
  CHECK(gs == 0.0);
  CHECK_FALSE(std::isnan(gs));
  // min(y, sqrt(x)) = y: the whole gradient to y, none (not 0 * inf) to x.
  const real m = etad::min(y, etad::sqrt(x));
  CHECK(t.gradient(m, x, y) == std::array{0.0, 1.0});
  const real n = etad::fmax(y, etad::log(x) * -1.0);  // log(0) * -1 = inf is the max: all to x
  CHECK(n.value() == inf);
  const auto gn = t.gradient(n, x, y);
  CHECK(gn[0] == -inf);  // d/dx (-log x) at 0
  CHECK(gn[1] == 0.0);
}

TEST_CASE("tape nonfinite: 0 * inf inside one statement is NaN, as in the static sweep", "[tape][nonfinite]") {
  // Within one statement the partials are products along the expression, so 0 * sqrt(x) at 0 has
  // partial 0 * inf = NaN — on the tape exactly as in the static gradient.
  const auto f = [](auto v) { return 0.0 * etad::sqrt(v) + v; };
  const auto s = etad::gradient(f, 0.0);
  etad::tape t;
  const real x = t.variable(0.0);
  const real z = f(x);
  const double g = t.gradient(z, x)[0];
  CHECK(std::isnan(s.gradient[0]));
  CHECK(std::isnan(g));
}

TEST_CASE("tape nonfinite: an exactly zero adjoint pushes nothing across statements", "[tape][nonfinite]") {
  // tape.hpp's policy: a statement whose adjoint is exactly 0 pushes nothing, so 0 * inf never
  // happens between statements. (Written as one expression, the same function is NaN: see above.)
  etad::tape t{etad::persistent};
  const real x = t.variable(0.0);
  const real r = etad::sqrt(x);  // partial inf
  const real z = 0.0 * r + x;    // adjoint of r: exactly 0
  CHECK(t.gradient(z, x)[0] == 1.0);
  // A zero seed for a target behind an infinite partial: the same.
  const real y = 2.0 * x;
  const reals targets{r, y}, sources{x};
  const std::array<double, 2> seeds{0.0, 1.0};
  CHECK(t.gradients(targets, sources, {.output_gradients = seeds})[0] == 2.0);
}

TEST_CASE("tape nonfinite: log_sum_exp's -inf, +inf and NaN elements, in short and long ranges",
          "[tape][nonfinite]") {
  // As documented: a -inf element weighs 0 (NaN partials when all are -inf); a +inf maximum gives +inf (NaN partials for the
  // infinite elements); a NaN element anywhere makes the value and every partial NaN. Lengths 3
  // and 37 (the vectorized exponentials' main loop and its remainder).
  etad::tape t{etad::persistent};
  const auto variables = [&](const std::vector<double>& v) {
    reals r;
    for (const double e : v) r.push_back(t.variable(e));
    return r;
  };
  for (const std::size_t n : {3, 37}) {
    INFO("n = " << n);
    std::vector<double> base(n);
    for (std::size_t i = 0; i < n; ++i) base[i] = 0.25 * static_cast<double>(i % 7) - 1.0;
    {
      std::vector<double> v = base;
      v[1] = -inf;
      v[n - 1] = -inf;
      const reals x = variables(v);
      const real l = etad::log_sum_exp(x);
      double z = 0;
      for (const double e : v) z += std::exp(e);
      CHECK(l.value() == Approx(std::log(z)).epsilon(1e-15));
      std::vector<double> g(n);
      t.gradient(l, x, g);
      CHECK(g[1] == 0.0);
      CHECK(g[n - 1] == 0.0);
      CHECK(g[0] == Approx(std::exp(v[0]) / z).epsilon(1e-15));
    }
    {
      // Only -inf: the value is -inf and the partials 0 / 0 (softmax has no limit there).
      const reals x = variables(std::vector<double>(n, -inf));
      const real l = etad::log_sum_exp(x);
      CHECK(l.value() == -inf);
      std::vector<double> g(n);
      t.gradient(l, x, g);
      for (const double e : g) CHECK(std::isnan(e));
    }
    {
      std::vector<double> v = base;
      v[n / 2] = inf;
      const reals x = variables(v);
      const real l = etad::log_sum_exp(x);
      CHECK(l.value() == inf);
      std::vector<double> g(n);
      t.gradient(l, x, g);
      CHECK(std::isnan(g[n / 2]));
      CHECK(g[0] == 0.0);  // e^(x_0 - inf)
    }
    for (const std::size_t at : {std::size_t(0), std::size_t(1), n - 1}) {
      INFO("NaN at " << at);
      std::vector<double> v = base;
      v[at] = quiet_nan;
      const reals x = variables(v);
      const real l = etad::log_sum_exp(x);
      CHECK(std::isnan(l.value()));
      std::vector<double> g(n);
      t.gradient(l, x, g);
      for (std::size_t i = 0; i < n; ++i) {
        INFO("i = " << i);
        CHECK(std::isnan(g[i]));
      }
    }
  }
}
