// tests/custom/runtime_custom_gradient_test.cpp — etad::custom_gradient, the run-time custom
// gradient (tf.custom_gradient): one tape entry owning a closure, several inputs and outputs,
// captured variables, nested tapes (TensorFlow's two patterns), counts of closures and memory.
// Every expected value is derived by hand in a comment, or by the plain tape on the same function.
#include <catch2/catch.hpp>
#include <etad/custom/custom_gradient.hpp>
#include <etad/etad.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using etad::real;
using Catch::Matchers::Contains;

/// TensorFlow's log1pexp: log(1 + e^x) with the gradient 1 - 1/(1 + e^x), finite where e^x
/// overflows (the plain formula's gradient is then inf/inf = NaN).
const auto log1pexp = etad::custom_gradient([](const real<>& x) {
  const double e = std::exp(x.value());
  real<> y;
  if (x.value() > 0)
    y = x + log1p(exp(-x));
  else
    y = log1p(exp(x));
  auto grad = [e](double dy) { return dy * (1 - 1 / (1 + e)); };
  return std::pair{y, grad};
});

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

}  // namespace

TEST_CASE("custom_gradient: log1pexp, one entry, the declared gradient", "[custom][runtime]") {
  for (double x0 : {-30.0, -1.0, 0.0, 0.5, 3.0, 100.0, 1000.0}) {
    etad::tape t;
    real x = t.variable(x0);
    const std::size_t before = t.statements();
    real y = log1pexp(x);
    // One entry: one new index (its output), and no partial of the forward pass kept.
    CHECK(t.statements() - before == 1);
    CHECK(t.partials() == 0);
    real z = 3 * y;
    auto [g] = t.gradient(z, x);
    // d/dx 3 log(1 + e^x) = 3 sigmoid(x); at x = 1000 e^x is inf and 1 - 1/inf = 1. (The
    // declared 1 - 1/(1 + e) cancels for x << 0: absolute, not relative, agreement there.)
    CHECK(g == Approx(3 * sigmoid(x0)).epsilon(1e-14).margin(1e-15));
    CHECK(std::isfinite(g));
    CHECK(y.value() == Approx(x0 > 30 ? x0 : std::log1p(std::exp(x0))));
  }
}

TEST_CASE("custom_gradient: the gradient function sees the upstream gradient (clipping)",
          "[custom][runtime]") {
  // TF's clip_gradient_by_norm pattern: the identity, with the upstream gradient clipped to
  // [-1, 1] on its way back. z = 10 * clip(x) + clip(x): upstream 11 -> 1; z = 0.5 clip(x): 0.5.
  auto clip = etad::custom_gradient([](const real<>& x) {
    auto grad = [](double dy) { return std::clamp(dy, -1.0, 1.0); };
    return std::pair{x, grad};
  });
  etad::tape t{etad::persistent};
  real x = t.variable(2.0);
  real c = clip(x);
  CHECK(c.value() == 2.0);
  CHECK(c.index() != x.index());  // a new output, not x passed through
  real z1 = 10 * c + c;
  real z2 = 0.5 * c;
  real z3 = -7 * c;
  CHECK(t.gradient(z1, x)[0] == 1.0);
  CHECK(t.gradient(z2, x)[0] == 0.5);
  CHECK(t.gradient(z3, x)[0] == -1.0);
  // Not linear in the upstream gradient: a square. z = 3 sq(x): upstream 3 -> 9.
  auto squared_upstream = etad::custom_gradient([](const real<>& v) {
    return std::pair{v, [](double dy) { return dy * dy; }};
  });
  real s = squared_upstream(x);
  real z4 = 3 * s;
  CHECK(t.gradient(z4, x)[0] == 9.0);
}

TEST_CASE("custom_gradient: several inputs and outputs, one gradient function",
          "[custom][runtime]") {
  // f(x, y) = (x y, x + y, x - 2y), J = [[y, x], [1, 1], [1, -2]]; the gradient function is
  // J' (d1, d2, d3) = (y d1 + d2 + d3, x d1 + d2 - 2 d3).
  int calls = 0;
  auto f = etad::custom_gradient([&calls](const real<>& x, const real<>& y) {
    const double xv = x.value(), yv = y.value();
    auto grad = [&calls, xv, yv](double d1, double d2, double d3) {
      ++calls;
      return std::array{yv * d1 + d2 + d3, xv * d1 + d2 - 2 * d3};
    };
    return std::pair{std::tuple{x * y, x + y, x - 2 * y}, grad};
  });
  etad::tape t{etad::persistent};
  real x = t.variable(1.5), y = t.variable(-2.0);
  const std::size_t before = t.statements();
  auto [a, b, c] = f(x, y);
  CHECK(t.statements() - before == 3);  // three outputs, one entry
  CHECK(a.value() == -3.0);
  CHECK(b.value() == -0.5);
  CHECK(c.value() == 5.5);
  // z = a + 3b + 5c: (d1, d2, d3) = (1, 3, 5): dz/dx = y + 3 + 5 = 6, dz/dy = x + 3 - 10 = -5.5.
  real z = a + 3 * b + 5 * c;
  auto [gx, gy] = t.gradient(z, x, y);
  CHECK(gx == 6.0);
  CHECK(gy == -5.5);
  CHECK(calls == 1);
  // A target that is one of the outputs: (d1, d2, d3) = (0, 1, 0): d b / d(x, y) = (1, 1).
  auto [bx, by] = t.gradient(b, x, y);
  CHECK(bx == 1.0);
  CHECK(by == 1.0);
  // The outputs as sources: dz/da = 1, dz/dc = 5 (the entry need not run for them).
  auto [za, zc] = t.gradient(z, a, c);
  CHECK(za == 1.0);
  CHECK(zc == 5.0);
}

TEST_CASE("custom_gradient: ranges of reals in and out", "[custom][runtime]") {
  // softmax-free example: out_i = x_i^2 (a vector), gradient 2 x_i d_i; the argument is a range.
  auto square_all = etad::custom_gradient([](std::span<const real<>> x) {
    std::vector<real<>> out;
    std::vector<double> v;
    for (const auto& xi : x) {
      out.push_back(xi * xi);
      v.push_back(xi.value());
    }
    auto grad = [v](std::span<const double> d) {
      std::vector<double> g(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) g[i] = 2 * v[i] * d[i];
      return g;
    };
    return std::pair{out, grad};
  });
  etad::tape t;
  const std::vector<double> x0{1.0, -2.0, 0.5};
  std::vector<real<>> x = t.variables(x0);
  std::vector<real<>> y = square_all(x);
  REQUIRE(y.size() == 3);
  // s = y0 + 2 y1 + 3 y2: ds/dx_i = (i + 1) 2 x_i = 2, -8, 3.
  real s = y[0] + 2 * y[1] + 3 * y[2];
  std::vector<double> g(3);
  t.gradient(s, x, g);
  CHECK(g == std::vector<double>{2.0, -8.0, 3.0});
}

TEST_CASE("custom_gradient: TensorFlow's linear_poly with captured variables",
          "[custom][runtime][variables]") {
  // weights = [1, 1], x = [1, 2, 3], poly = weights[1] x + weights[0] = [2, 3, 4]. The gradient
  // function declares d/dx = dpoly weights[1] = [1, 1, 1] and d/dweights = [sum(dpoly x),
  // sum(dpoly)] = [6, 3], in that order (TensorFlow's example; the true derivative would be
  // [3, 6]: a custom gradient is what it declares).
  etad::tape t{etad::persistent};
  const std::vector<real<>> weights = t.variables(std::vector{1.0, 1.0});
  const std::vector<real<>> x = t.variables(std::vector{1.0, 2.0, 3.0});
  std::vector<etad::captured<>> seen;
  auto linear_poly = etad::custom_gradient([&](std::span<const real<>> xs) {
    std::vector<real<>> poly;
    std::vector<double> xv;
    for (const auto& xi : xs) {
      poly.push_back(weights[1] * xi + weights[0]);
      xv.push_back(xi.value());
    }
    auto grad = [&, xv](std::span<const double> dpoly,
                        std::span<const etad::captured<>> variables) {
      seen.assign(variables.begin(), variables.end());
      std::vector<double> dx;
      double sx = 0, s1 = 0;
      for (std::size_t k = 0; k < dpoly.size(); ++k) {
        dx.push_back(dpoly[k] * weights[1].value());
        sx += dpoly[k] * xv[k];
        s1 += dpoly[k];
      }
      return std::pair{dx, std::vector{sx, s1}};
    };
    return std::pair{poly, grad};
  });
  const std::vector<real<>> poly = linear_poly(x);
  CHECK(poly[0].value() == 2.0);
  CHECK(poly[1].value() == 3.0);
  CHECK(poly[2].value() == 4.0);
  const auto gx = t.gradients(poly, x);
  for (const auto& g : gx) CHECK(g == 1.0);
  const auto gw = t.gradients(poly, weights);
  CHECK(gw[0] == 6.0);
  CHECK(gw[1] == 3.0);
  // The variables in the order they were recorded: weights[0], then weights[1].
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == weights[0]);
  CHECK(seen[1] == weights[1]);
}

TEST_CASE("custom_gradient: a captured real its gradient function does not answer for",
          "[custom][runtime][variables][errors]") {
  etad::tape t;
  real w = t.variable(2.0), x = t.variable(3.0);
  const std::size_t statements = t.statements();
  auto scaled = etad::custom_gradient([&w](const real<>& v) {
    real y = w * v;
    return std::pair{y, [](double dy) { return dy; }};
  });
  // The message names the real by its index (w is index 1) and says what to do.
  REQUIRE_THROWS_AS(scaled(x), etad::error);
  REQUIRE_THROWS_WITH(scaled(x), Contains("read 1 real of the tape that is not an argument") &&
                                     Contains("index 1") && Contains("variables"));
  CHECK(t.statements() == statements);  // the forward pass's statement was taken back

  // Answering for the wrong number of variables: an error in the sweep naming both counts.
  auto wrong = etad::custom_gradient([&w](const real<>& v) {
    real y = w * v;
    auto grad = [](double dy, std::span<const etad::captured<>>) {
      return std::pair{dy, std::vector<double>{}};
    };
    return std::pair{y, grad};
  });
  real y = wrong(x);
  REQUIRE_THROWS_WITH(t.gradient(y, x),
                      Contains("0 variable gradients for 1 captured variable"));
}

TEST_CASE("custom_gradient: wrong counts at run time name both counts",
          "[custom][runtime][errors]") {
  auto short_gradient = etad::custom_gradient([](std::span<const real<>> x) {
    real s = x[0] + x[1] + x[2];
    return std::pair{s, [](double dy) { return std::vector<double>{dy, dy}; }};
  });
  etad::tape t;
  std::vector<real<>> x = t.variables(std::vector{1.0, 2.0, 3.0});
  real s = short_gradient(x);
  REQUIRE_THROWS_AS(t.gradient(s, x[0]), etad::error);
  etad::tape t2;
  std::vector<real<>> x2 = t2.variables(std::vector{1.0, 2.0, 3.0});
  real s2 = short_gradient(x2);
  REQUIRE_THROWS_WITH(t2.gradient(s2, x2[0]),
                      Contains("2 gradients for argument 1, a range of 3 reals"));
}

TEST_CASE("custom_gradient: the same real in two argument positions", "[custom][runtime]") {
  // f(a, b) = a b, gradient (b, a); f(x, x) = x^2: each position's gradient goes to x: 2x.
  auto mul = etad::custom_gradient([](const real<>& a, const real<>& b) {
    const double av = a.value(), bv = b.value();
    return std::pair{a * b, [av, bv](double d) { return std::pair{d * bv, d * av}; }};
  });
  etad::tape t;
  real x = t.variable(-1.25);
  real y = mul(x, x);
  CHECK(y.value() == 1.5625);
  CHECK(t.gradient(y, x)[0] == -2.5);
}

TEST_CASE("custom_gradient: numbers and constants among the arguments", "[custom][runtime]") {
  // f(x, c) = c x with gradient (c dy, ignored): a number's gradient is dropped.
  auto scale = etad::custom_gradient([](const real<>& x, double c) {
    return std::pair{c * x, [c](double dy) { return std::array{c * dy, 1e300}; }};
  });
  etad::tape t;
  real x = t.variable(2.0);
  real y = scale(x, 4.0);
  CHECK(y.value() == 8.0);
  CHECK(t.gradient(y, x)[0] == 4.0);
  // Constants in, a constant out: no entry.
  etad::tape t2;
  const std::size_t s0 = t2.statements();
  real k = scale(real<>(3.0), 2.0);
  CHECK(k.is_constant());
  CHECK(k.value() == 6.0);
  CHECK(t2.statements() == s0);
}

TEST_CASE("custom_gradient: without a tape, paused, and when the forward pass throws",
          "[custom][runtime][errors]") {
  // Numbers and constants with no tape: values only.
  CHECK(log1pexp(real<>(0.0)).value() == Approx(std::log(2.0)));
  {
    etad::tape t;
    real x = t.variable(1.0);
    {
      etad::stop_recording<> pause;
      real y = log1pexp(x);  // paused: a constant, nothing recorded
      CHECK(y.is_constant());
    }
    // A forward pass that throws leaves the tape as it was.
    const std::size_t statements = t.statements(), partials = t.partials();
    auto throwing = etad::custom_gradient([](const real<>& v) {
      real a = v * v;
      real b = a * v;
      if (b.value() > 0) throw std::runtime_error("forward failed");
      return std::pair{b, [](double d) { return d; }};
    });
    CHECK_THROWS_AS(throwing(x), std::runtime_error);
    CHECK(t.statements() == statements);
    CHECK(t.partials() == partials);
    real z = x * 2;
    CHECK(t.gradient(z, x)[0] == 2.0);
  }
  // A real with no active tape (its tape is gone): an error, as for an expression.
  real stale;
  {
    etad::tape t;
    stale = t.variable(1.0);
  }
  CHECK_THROWS_WITH(log1pexp(stale), Contains("no active tape"));
}

TEST_CASE("custom_gradient: gradients() options through an entry", "[custom][runtime]") {
  // y = g(x) with g's gradient 5 dy; z = y + x. stop_gradients on y: dz/dx = 1 (nothing through
  // y); unconnected: w, read by nothing, is None, x is connected through the entry.
  auto g = etad::custom_gradient([](const real<>& v) {
    return std::pair{2 * v, [](double dy) { return 5 * dy; }};
  });
  etad::tape t{etad::persistent};
  real x = t.variable(1.0), w = t.variable(0.0);
  real y = g(x);
  real z = y + x;
  const real<> targets[] = {z};
  const real<> sources[] = {x, w};
  auto plain = t.gradients(targets, sources);
  CHECK(plain[0] == 6.0);
  CHECK_FALSE(plain[1].has_value());
  const real<> stops[] = {y};
  auto stopped = t.gradients(targets, sources, {.stop_gradients = stops});
  CHECK(stopped[0] == 1.0);
  const double seed[] = {-2.0};
  auto seeded = t.gradients(targets, sources, {.output_gradients = seed});
  CHECK(seeded[0] == -12.0);
}

namespace {
// Counts the closures etad keeps: every copy or move made is one more alive, every destructor
// one fewer; `low` is the least count seen (a double destruction would take it below zero).
struct counted {
  static inline long alive = 0, made = 0, low = 0;
  counted() { ++alive, ++made; }
  counted(const counted&) { ++alive, ++made; }
  counted(counted&&) noexcept { ++alive, ++made; }
  counted& operator=(const counted&) = default;
  ~counted() {
    --alive;
    low = std::min(low, alive);
  }
};
}  // namespace

TEST_CASE("custom_gradient: 10^5 calls in a loop, closures destroyed once, memory bounded",
          "[custom][runtime][memory]") {
  constexpr int n = 100000;
  auto f = etad::custom_gradient([](const real<>& x) {
    const double c = std::cos(x.value());
    return std::pair{sin(x), [c, tag = counted{}](double dy) { return dy * c; }};
  });
  counted::alive = counted::made = counted::low = 0;
  {
    etad::tape t;
    std::size_t reserved_first = 0;
    for (int round = 0; round < 3; ++round) {
      real x = t.variable(0.3);
      real s = x;
      for (int i = 0; i < n; ++i) s = f(s);
      // Exactly one closure per entry is kept (the temporaries made on the way are gone).
      CHECK(counted::alive == n);
      // Memory: the entries' share grows with their count, by the same bytes for each.
      const etad::memory_use m = t.memory();
      CHECK(m.callbacks > 0);
      CHECK(m.callbacks % n == 0);
      CHECK(m.partials == 0);  // nothing of the forward passes stays
      // d s_n / d x = prod cos(s_k): compared with the same product taken here.
      double expected = 1, v = 0.3;
      for (int i = 0; i < n; ++i) {
        expected *= std::cos(v);
        v = std::sin(v);
      }
      CHECK(s.value() == v);
      CHECK(t.gradient(s, x)[0] == Approx(expected).epsilon(1e-12));
      if (round == 0) reserved_first = t.reserved_bytes();
      CHECK(t.reserved_bytes() == reserved_first);  // later rounds reuse the memory
      t.reset();
      CHECK(counted::alive == 0);  // reset() destroyed every closure
    }
    real x = t.variable(1.0);
    real y = f(x);
    CHECK(y.index() != 0);
    CHECK(counted::alive == 1);
  }
  CHECK(counted::alive == 0);  // the tape's destructor destroyed the last one
  CHECK(counted::low == 0);    // and nothing was destroyed twice
}

TEST_CASE("custom_gradient: the true gradient agrees with the plain tape and the static layer",
          "[custom][runtime][agreement]") {
  // g(x, y) = sin(x) y + exp(x y) with its true gradient declared; compared with the same
  // function recorded as statements and with etad::gradient.
  auto g = etad::custom_gradient([](const real<>& x, const real<>& y) {
    const double xv = x.value(), yv = y.value(), e = std::exp(xv * yv);
    auto grad = [=](double d) {
      return std::array{d * (std::cos(xv) * yv + yv * e), d * (std::sin(xv) + xv * e)};
    };
    return std::pair{sin(x) * y + exp(x * y), grad};
  });
  auto plain = [](auto x, auto y) { return sin(x) * y + exp(x * y); };
  for (auto [x0, y0] : {std::pair{0.0, 0.0}, std::pair{1.0, -2.0}, std::pair{-0.3, 0.7}}) {
    etad::tape t;
    real x = t.variable(x0), y = t.variable(y0);
    real z = g(x, y) * 2;
    auto [gx, gy] = t.gradient(z, x, y);
    auto [value, grad] = etad::gradient(plain, x0, y0);
    CHECK(z.value() == Approx(2 * value).epsilon(1e-15));
    CHECK(gx == Approx(2 * grad[0]).epsilon(1e-14));
    CHECK(gy == Approx(2 * grad[1]).epsilon(1e-14));
  }
}

TEST_CASE("custom_gradient: nested, pattern (a): the gradient function calls a custom "
          "gradient that supplies the second-order term",
          "[custom][runtime][nested]") {
  // TF's pattern (a): y = x^3 with the gradient dy * first_order(x), where first_order(x) = 3x^2
  // is itself a custom gradient declaring its derivative as `second` * x. With second = 6 that is
  // the true second derivative 6x; with second = 7 the outer gradient is 7x: what was declared.
  for (double second : {6.0, 7.0}) {
    auto first_order = etad::custom_gradient([second](const real<double>& x) {
      const double xv = x.value();
      return std::pair{3 * x * x, [second, xv](double ddy) { return ddy * second * xv; }};
    });
    using inner_real = real<real<double>>;
    auto cube = etad::custom_gradient([&first_order](const inner_real& x) {
      const real<double> xo = x.value();  // x's value: a real of the outer tape
      auto grad = [&first_order, xo](const real<double>& dy) { return dy * first_order(xo); };
      return std::pair{x * x * x, grad};
    });
    etad::tape outer{etad::persistent};
    real<double> x = outer.variable(2.0);
    real<double> gx;
    {
      etad::basic_tape<real<double>> inner;
      inner_real xi = inner.variable(x);
      inner_real y = cube(xi);
      CHECK(y.value().value() == 8.0);
      gx = inner.gradient(y, xi)[0];
    }
    CHECK(gx.value() == 12.0);                           // 3 x^2
    CHECK(outer.gradient(gx, x)[0] == second * 2.0);     // the declared second * x
  }
}

TEST_CASE("custom_gradient: nested, pattern (b): a gradient function that is a custom gradient "
          "of dy differentiates with respect to dy, not x",
          "[custom][runtime][nested]") {
  // y = x^2 with the gradient h(dy), h a custom gradient of dy: h(d) = 2 x d (x's value, a
  // number), declaring dh/dd = 2 x. The outer tape then sees the inner gradient as a function of
  // the seed dy: d(gx)/d(dy) = 2x = 3 at x = 1.5, and NOT of x: d(gx)/dx is unconnected (0), where
  // the second derivative d^2y/dx^2 is 2.
  using inner_real = real<real<double>>;
  auto square = etad::custom_gradient([](const inner_real& x) {
    const double xv = x.value().value();
    auto grad = [xv](const real<double>& dy) {
      auto h = etad::custom_gradient([xv](const real<double>& d) {
        return std::pair{2 * xv * d, [xv](double dd) { return 2 * xv * dd; }};
      });
      return h(dy);
    };
    return std::pair{x * x, grad};
  });
  etad::tape outer{etad::persistent};
  real<double> x = outer.variable(1.5);
  real<double> seed = outer.variable(1.0);
  real<double> gx;
  {
    etad::basic_tape<real<double>> inner;
    inner_real xi = inner.variable(x);
    inner_real y = square(xi);
    const inner_real targets[] = {y};
    const inner_real sources[] = {xi};
    const real<double> seeds[] = {seed};
    gx = *inner.gradients(targets, sources, {.output_gradients = seeds})[0];
  }
  CHECK(gx.value() == 3.0);
  const real<double> targets[] = {gx};
  const real<double> sources[] = {seed, x};
  auto d = outer.gradients(targets, sources, {.unconnected_gradients = etad::unconnected::zero});
  CHECK(d[0] == 3.0);  // with respect to dy: what h declares
  CHECK(d[1] == 0.0);  // with respect to x: nothing (not the second derivative, 2)
}

TEST_CASE("custom_gradient: nested, the true gradient gives the true second derivative",
          "[custom][runtime][nested]") {
  // f(x) = sin(x) with the gradient dy cos(x) computed on the outer tape's reals: the outer
  // tape differentiates it again, -sin(x) (pattern (a) without a second custom gradient).
  using inner_real = real<real<double>>;
  auto my_sin = etad::custom_gradient([](const inner_real& x) {
    const real<double> xo = x.value();
    return std::pair{sin(x), [xo](const real<double>& dy) { return dy * cos(xo); }};
  });
  for (double x0 : {0.0, 0.4, 2.0}) {
    etad::tape outer;
    real<double> x = outer.variable(x0);
    real<double> gx;
    {
      etad::basic_tape<real<double>> inner;
      inner_real xi = inner.variable(x);
      inner_real y = my_sin(xi) * 3;
      gx = inner.gradient(y, xi)[0];
    }
    CHECK(gx.value() == Approx(3 * std::cos(x0)).epsilon(1e-15));
    CHECK(outer.gradient(gx, x)[0] == Approx(-3 * std::sin(x0)).epsilon(1e-15).margin(1e-300));
  }
}
