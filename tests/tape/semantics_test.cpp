// tests/tape/semantics_test.cpp — what a gradient call means, after TensorFlow's GradientTape and
// tf.gradients: persistent tapes, stop_gradients, unconnected sources, seeds (output_gradients),
// gradients with respect to intermediate values, stop_gradient and stop_recording, nesting of
// tapes. Expected values are the closed forms written next to each check.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <optional>
#include <vector>

namespace {
using real = etad::real<double>;
using reals = std::vector<real>;
}  // namespace

TEST_CASE("tape: a non-persistent tape answers exactly one gradient call", "[tape][semantics]") {
  // TensorFlow: x = 3; y = x * x; z = y * y; g.gradient(z, x) = 4 x^3 = 108; a second call on the
  // same (non-persistent) tape raises.
  etad::tape t;
  CHECK_FALSE(t.is_persistent());
  real x = t.variable(3.0);
  real y = x * x;
  real z = y * y;
  CHECK(t.gradient(z, x)[0] == 108.0);
  CHECK_THROWS_AS(t.gradient(y, x), etad::error);
  CHECK_THROWS_WITH(t.gradient(y, x), Catch::Contains("persistent"));
  const reals targets{y}, sources{x};
  CHECK_THROWS_WITH(t.gradients(targets, sources), Catch::Contains("persistent"));
  std::array<double, 1> out{};
  CHECK_THROWS_AS(t.gradient(y, sources, out), etad::error);

  // reset() starts a new recording that may again be differentiated once.
  t.reset();
  x = t.variable(3.0);
  y = x * x;
  CHECK(t.gradient(y, x)[0] == 6.0);
  CHECK_THROWS_AS(t.gradient(y, x), etad::error);
}

TEST_CASE("tape: a persistent tape answers every gradient call, with the same numbers", "[tape][semantics]") {
  // TensorFlow's persistent example: dz/dx = 4 x^3 = 108 and dy/dx = 2 x = 6 at x = 3.
  etad::tape t{etad::persistent};
  CHECK(t.is_persistent());
  const real x = t.variable(3.0);
  const real y = x * x;
  const real z = y * y;
  for (int round = 0; round < 3; ++round) {
    CHECK(t.gradient(z, x)[0] == 108.0);
    CHECK(t.gradient(y, x)[0] == 6.0);
    const reals targets{z}, sources{x, y};
    const auto g = t.gradients(targets, sources);
    REQUIRE(g.size() == 2);
    CHECK(g[0] == 108.0);
    CHECK(g[1] == 18.0);  // dz/dy = 2 y
  }
  // Recording may continue between gradient calls.
  const real w = z * x;
  CHECK(t.gradient(w, x)[0] == 5 * 81.0);  // d x^5 / dx = 5 x^4
}

TEST_CASE("tape: after a long recording, a short one starts from zero adjoints", "[tape][semantics]") {
  // The adjoints' buffer keeps its size across reset(); each sweep zeroes the part it uses. A
  // long recording leaves nonzero adjoints everywhere; the short one must not see them: a source
  // that the target does not depend on reads 0, a connected one its derivative.
  etad::tape t{etad::persistent};
  for (int round = 0; round < 2; ++round) {
    const real x = t.variable(1.5), y = t.variable(-2.0);
    real z = x;
    for (int k = 0; k < 200; ++k) z = z * y + x;
    const auto long_grad = t.gradient(z, x, y);
    CHECK(long_grad[0] != 0.0);
    t.reset();
    const real a = t.variable(0.5), b = t.variable(4.0), c = t.variable(7.0);
    const real w = a * b;
    const auto g = t.gradient(w, a, b, c);
    CHECK(g[0] == 4.0);
    CHECK(g[1] == 0.5);
    CHECK(g[2] == 0.0);  // unconnected: exactly zero, not what the long recording left
    const reals targets{w}, sources{c};
    CHECK(t.gradients(targets, sources, {.unconnected_gradients = etad::unconnected::zero})[0] == 0.0);
    t.reset();
  }
}

TEST_CASE("tape: stop_gradients, TensorFlow's example", "[tape][semantics]") {
  // a = 0; b = 2 a; tf.gradients(a + b, [a, b]) = [3, 1]; with stop_gradients = [a, b]: [1, 1],
  // the same as tf.gradients(stop_gradient(a) + stop_gradient(b), [a, b]).
  etad::tape t{etad::persistent};
  const real a = t.variable(0.0);
  const real b = 2.0 * a;
  const real s = a + b;
  const reals targets{s}, sources{a, b};
  const auto plain = t.gradients(targets, sources);
  REQUIRE(plain.size() == 2);
  CHECK(plain[0] == 3.0);
  CHECK(plain[1] == 1.0);
  const reals stops{a, b};
  const auto stopped = t.gradients(targets, sources, {.stop_gradients = stops});
  CHECK(stopped[0] == 1.0);
  CHECK(stopped[1] == 1.0);
  // Only b stopped: a still gets 1 directly and nothing through b.
  const reals only_b{b};
  CHECK(t.gradients(targets, sources, {.stop_gradients = only_b})[0] == 1.0);
  // Stopping a (a variable) changes nothing: no gradient flows out of a variable anyway.
  const reals only_a{a};
  CHECK(t.gradients(targets, sources, {.stop_gradients = only_a})[0] == 3.0);
}

TEST_CASE("tape: a source reachable only through a stopped value is unconnected", "[tape][semantics]") {
  etad::tape t{etad::persistent};
  const real x = t.variable(0.5);
  const real y = x * x;
  const real z = etad::sin(y);
  const reals targets{z}, sources{x, y}, stops{y};
  const auto none = t.gradients(targets, sources, {.stop_gradients = stops});
  CHECK_FALSE(none[0].has_value());
  CHECK(none[1] == std::cos(0.25));
  const auto zero =
      t.gradients(targets, sources, {.stop_gradients = stops, .unconnected_gradients = etad::unconnected::zero});
  CHECK(zero[0] == 0.0);
  CHECK(zero[1] == std::cos(0.25));
}

TEST_CASE("tape: unconnected sources give no value, or zero when asked", "[tape][semantics]") {
  etad::tape t{etad::persistent};
  const real x = t.variable(2.0);
  const real y = t.variable(5.0);
  const real z = x * x;
  const real later = t.variable(1.0);  // recorded after the target
  const real constant = 7.0;           // on no tape
  const reals targets{z}, sources{x, y, later, constant};

  const auto none = t.gradients(targets, sources);  // default: unconnected::none
  REQUIRE(none.size() == 4);
  CHECK(none[0] == 4.0);
  CHECK_FALSE(none[1].has_value());
  CHECK_FALSE(none[2].has_value());
  CHECK_FALSE(none[3].has_value());

  const auto zero = t.gradients(targets, sources, {.unconnected_gradients = etad::unconnected::zero});
  CHECK(zero[0] == 4.0);
  for (std::size_t k = 1; k < 4; ++k) {
    REQUIRE(zero[k].has_value());
    CHECK(*zero[k] == 0.0);
  }
  // gradient() is the zero flavour.
  const auto g = t.gradient(z, x, y, later, constant);
  CHECK(g == std::array{4.0, 0.0, 0.0, 0.0});
}

TEST_CASE("tape: a computed zero is connected, not unconnected", "[tape][semantics]") {
  // TensorFlow reports 0 (not None) for a source the target depends on with derivative zero.
  etad::tape t{etad::persistent};
  const real x = t.variable(3.0);
  const real y = t.variable(4.0);
  const real w = x * x;
  const real z = 0.0 * w + y;  // w is an input of z with partial 0: x is connected
  const real d = y - y;        // d/dy = 1 - 1 = 0
  const reals tz{z}, td{d}, sx{x}, sy{y};
  const auto gz = t.gradients(tz, sx);
  REQUIRE(gz[0].has_value());
  CHECK(*gz[0] == 0.0);
  const auto gd = t.gradients(td, sy);
  REQUIRE(gd[0].has_value());
  CHECK(*gd[0] == 0.0);
}

TEST_CASE("tape: seeds weight several targets (output_gradients)", "[tape][semantics]") {
  // sum_k w_k d t_k / d x: t1 = x y, t2 = sin x, w = (2, -3): d/dx = 2 y - 3 cos x, d/dy = 2 x.
  etad::tape t{etad::persistent};
  const double xv = 0.4, yv = -1.1;
  const real x = t.variable(xv);
  const real y = t.variable(yv);
  const real t1 = x * y;
  const real t2 = etad::sin(x);
  const reals targets{t1, t2}, sources{x, y};
  const std::array<double, 2> seeds{2.0, -3.0};
  const auto g = t.gradients(targets, sources, {.output_gradients = seeds});
  CHECK(*g[0] == Approx(2 * yv - 3 * std::cos(xv)).epsilon(1e-15));
  CHECK(*g[1] == 2 * xv);
  // No seeds: all ones.
  const auto ones = t.gradients(targets, sources);
  CHECK(*ones[0] == Approx(yv + std::cos(xv)).epsilon(1e-15));
  CHECK(*ones[1] == xv);
  // The same target twice is counted twice; a constant target contributes nothing.
  const reals twice{t1, t1, real(5.0)};
  const std::array<double, 3> w3{1.0, 0.5, 10.0};
  const auto g2 = t.gradients(twice, sources, {.output_gradients = w3});
  CHECK(*g2[0] == 1.5 * yv);
  CHECK(*g2[1] == 1.5 * xv);
  // A zero seed: the target is still connected, its gradient 0.
  const std::array<double, 2> zero_first{0.0, 1.0};
  const auto g3 = t.gradients(targets, sources, {.output_gradients = zero_first});
  CHECK(*g3[0] == std::cos(xv));
  REQUIRE(g3[1].has_value());
  CHECK(*g3[1] == 0.0);
}

TEST_CASE("tape: gradients with respect to intermediate values are total derivatives", "[tape][semantics]") {
  // y = x^2; z = sin(y): dz/dy = cos(y), dz/dx = 2 x cos(y), in one call.
  etad::tape t;
  const double xv = 0.9;
  const real x = t.variable(xv);
  const real y = x * x;
  const real z = etad::sin(y);
  const auto [dy, dx] = t.gradient(z, y, x);
  CHECK(dy == std::cos(xv * xv));
  CHECK(dx == Approx(2 * xv * std::cos(xv * xv)).epsilon(1e-15));
}

TEST_CASE("tape: an intermediate used on several paths collects them all", "[tape][semantics]") {
  // u = x y; z = u^2 + sin(u) + u x: dz/du = 2 u + cos u + x; dz/dx = dz/du * y + u.
  etad::tape t;
  const double xv = 0.3, yv = 1.7, uv = xv * yv;
  const real x = t.variable(xv);
  const real y = t.variable(yv);
  const real u = x * y;
  const real z = u * u + etad::sin(u) + u * x;
  const auto [du, dx, dy] = t.gradient(z, u, x, y);
  const double dzdu = 2 * uv + std::cos(uv) + xv;
  CHECK(du == Approx(dzdu).epsilon(1e-15));
  CHECK(dx == Approx(dzdu * yv + uv).epsilon(1e-15));
  CHECK(dy == Approx(dzdu * xv).epsilon(1e-15));
}

TEST_CASE("tape: a source that is the target has gradient one", "[tape][semantics]") {
  etad::tape t{etad::persistent};
  const real x = t.variable(2.0);
  const real z = x * 3.0;
  CHECK(t.gradient(z, z)[0] == 1.0);
  CHECK(t.gradient(x, x)[0] == 1.0);  // a variable as the target
  const reals tz{z}, sz{z, x};
  const auto g = t.gradients(tz, sz);
  CHECK(g[0] == 1.0);
  CHECK(g[1] == 3.0);
  // A later value is not upstream of the target: d z / d w is unconnected.
  const real w = z * z;
  const reals sw{w};
  CHECK_FALSE(t.gradients(tz, sw)[0].has_value());
}

TEST_CASE("tape: stop_gradient inside an expression", "[tape][semantics]") {
  etad::tape t{etad::persistent};
  const real x = t.variable(3.0);
  const real y = t.variable(-2.0);
  // x * stop_gradient(x): value 9, gradient 3 (not 6).
  const real z = x * etad::stop_gradient(x);
  CHECK(z.value() == 9.0);
  CHECK(t.gradient(z, x)[0] == 3.0);
  // A stopped subexpression: nothing reaches y through it, but y is a leaf of the statement.
  const real w = etad::stop_gradient(x * y) + y;
  CHECK(w.value() == -8.0);
  CHECK(t.gradient(w, x, y) == std::array{0.0, 1.0});
  // A statement made only of a stopped value: a recorded value, but x is not its input, so x is
  // unconnected (TensorFlow's None for tape.gradient(tf.stop_gradient(x * x), x)).
  const real s = etad::stop_gradient(x * x);
  CHECK(!s.is_constant());
  const reals ts{s}, sx{x};
  CHECK(!t.gradients(ts, sx)[0].has_value());
  CHECK(t.gradients(ts, sx, {.unconnected_gradients = etad::unconnected::zero})[0] == 0.0);
  // The stopped value itself is a source like any other: ds/ds = 1, d(s s)/ds = 2 s.
  const real ss = s * s;
  CHECK(t.gradient(ss, s)[0] == 18.0);
}

TEST_CASE("tape: a source used only where no gradient flows is unconnected", "[tape][semantics]") {
  // As in TensorFlow, which registers no gradient for comparisons (select's condition), floor,
  // and stop_gradient: c below appears in each statement, but not as an input.
  etad::tape t{etad::persistent};
  const real x = t.variable(0.5), c = t.variable(2.0);
  const reals sources{x, c};
  const auto check = [&](const char* what, const real& y, double dx) {
    INFO(what);
    const reals targets{y};
    const auto none = t.gradients(targets, sources);
    REQUIRE(none[0].has_value());
    CHECK(*none[0] == dx);
    CHECK(!none[1].has_value());
    const auto zero = t.gradients(targets, sources, {.unconnected_gradients = etad::unconnected::zero});
    CHECK(zero[1] == 0.0);
    CHECK(t.gradient(y, x, c) == std::array{dx, 0.0});
  };
  check("select's condition", etad::select(c > 1.0, x, x * 0.5 + 0.25), 1.0);
  // One input, x, per statement (c's occurrences are not inputs).
  const std::size_t before = t.partials();
  check("stop_gradient", x + etad::stop_gradient(c), 1.0);
  check("floor", x * 3.0 + etad::floor(c), 3.0);
  check("comparison in a product", x * etad::select(c < x, 2.0, -1.0), -1.0);
  CHECK(t.partials() == before + 3);
  // Connected: the untaken side of a select is an input with partial 0, as in TF's where().
  const real w = etad::select(x > 1.0, c, x);
  const reals tw{w};
  const auto g = t.gradients(tw, sources);
  REQUIRE(g[1].has_value());
  CHECK(*g[1] == 0.0);
}

TEST_CASE("tape: grad_pass_through passes the gradient of its argument", "[tape][semantics]") {
  // TensorFlow: y = grad_pass_through(x.assign)(z ** 2): dy/dz = 2 z = 6 at z = 3. Here the
  // wrapped function rounds down, which has no gradient of its own.
  etad::tape t;
  const real z = t.variable(3.0);
  const real y = etad::grad_pass_through([](auto v) { using std::floor; return floor(v / 2); })(z * z);
  CHECK(y.value() == 4.0);
  CHECK(t.gradient(y, z)[0] == 6.0);
}

TEST_CASE("tape: stop_recording computes constants and records nothing", "[tape][semantics]") {
  etad::tape t;
  const real x = t.variable(1.5);
  const reals xs{x, x};
  const std::size_t statements = t.statements();
  const std::size_t partials = t.partials();
  real y, s;
  {
    etad::stop_recording<> pause;
    y = x * x + etad::exp(x);
    s = etad::sum(xs);
    {
      etad::stop_recording<> nested;  // pauses nest
      const real n = x * 2.0;
      CHECK(n.is_constant());
    }
    const real still = x * 2.0;  // the outer pause still holds
    CHECK(still.is_constant());
  }
  CHECK(t.statements() == statements);
  CHECK(t.partials() == partials);
  CHECK(y.is_constant());
  CHECK(s.is_constant());
  CHECK(y.value() == 1.5 * 1.5 + std::exp(1.5));
  CHECK(s.value() == 3.0);
  // Recording resumes after the scope; the paused results enter as constants.
  const real z = x * y + s;
  CHECK(t.statements() == statements + 1);
  CHECK_FALSE(z.is_constant());
  const auto [dx, dy] = t.gradient(z, x, y);
  CHECK(dx == y.value());
  CHECK(dy == 0.0);
}

TEST_CASE("tape: a tape made or destroyed during a pause records only after the pause",
          "[tape][semantics]") {
  // Recording goes to one thread-local pointer that tapes and pauses keep up to date: a tape
  // constructed inside a stop_recording scope must not record until the scope ends, and the
  // outer tape must record again once an inner one made in the pause is gone.
  etad::tape outer;
  const real x = outer.variable(2.0);
  std::optional<etad::tape> inner;
  {
    etad::stop_recording<> pause;
    inner.emplace();
    const real a = inner->variable(3.0);
    const real paused = a * x;  // computed, not recorded on either tape
    CHECK(paused.is_constant());
    CHECK(paused.value() == 6.0);
    CHECK(inner->statements() == 1);  // only the variable
  }
  const real b = inner->variable(5.0);
  const real recorded = b * b;  // the pause is over: the inner tape, active, records
  CHECK_FALSE(recorded.is_constant());
  CHECK(inner->gradient(recorded, b)[0] == 10.0);
  {
    etad::stop_recording<> pause;
    inner.reset();  // destroyed during the pause: the outer tape is active, still paused
    const real q = x * x;
    CHECK(q.is_constant());
  }
  const real r = x * x * x;  // recorded on the outer tape
  CHECK_FALSE(r.is_constant());
  CHECK(outer.gradient(r, x)[0] == 12.0);
}

TEST_CASE("tape: constants in, constant out", "[tape][semantics]") {
  etad::tape t;
  const std::size_t statements = t.statements();
  const real a = 2.0;
  const real b = a * 3.0 + etad::sin(a);
  CHECK(b.is_constant());
  CHECK(b.value() == 6.0 + std::sin(2.0));
  const reals cs{a, b};
  CHECK(etad::sum(cs).is_constant());
  CHECK(t.statements() == statements);
  // A constant needs no tape at all.
  const real c = b * b;
  CHECK(c.is_constant());
}

TEST_CASE("tape: tapes nest, the newest is active", "[tape][semantics]") {
  CHECK(etad::tape::current() == nullptr);
  {
    etad::tape outer;
    CHECK(etad::tape::current() == &outer);
    const real x = outer.variable(2.0);
    {
      etad::tape inner;
      CHECK(etad::tape::current() == &inner);
      const real y = inner.variable(3.0);
      const real z = y * y;
      CHECK(inner.gradient(z, y)[0] == 6.0);
    }
    CHECK(etad::tape::current() == &outer);
    const real w = x * x * x;  // recorded on outer again
    CHECK(outer.gradient(w, x)[0] == 12.0);
  }
  CHECK(etad::tape::current() == nullptr);
  // A tape of another scalar type is independent: a tape of floats does not hide the doubles'.
  etad::tape d;
  etad::basic_tape<float> f;
  CHECK(etad::tape::current() == &d);
  CHECK(etad::basic_tape<float>::current() == &f);
  const etad::real<float> xf = f.variable(2.0f);
  const etad::real<float> zf = xf * xf;
  CHECK(f.gradient(zf, xf)[0] == 4.0f);
}

TEST_CASE("tape: alias-safe assignment uses the old value", "[tape][semantics]") {
  etad::tape t{etad::persistent};
  const double xv = 1.3;
  const real x = t.variable(xv);
  real z = x * x;  // x^2
  z = z * z;       // x^4, from the old z
  CHECK(z.value() == (xv * xv) * (xv * xv));
  CHECK(t.gradient(z, x)[0] == Approx(4 * xv * xv * xv).epsilon(1e-15));
  real w = x;
  w *= w;  // x^2
  w += w;  // 2 x^2
  w -= x;  // 2 x^2 - x
  w /= x;  // 2 x - 1
  CHECK(w.value() == Approx(2 * xv - 1).epsilon(1e-15));
  CHECK(t.gradient(w, x)[0] == Approx(2.0).epsilon(1e-15));
  real v = x;
  v = v - v;  // 0, connected, derivative 1 - 1
  CHECK(v.value() == 0.0);
  CHECK(t.gradient(v, x)[0] == 0.0);
  // Copying a real copies the handle: both name the same statement.
  const real copy = z;
  CHECK(copy.index() == z.index());
  CHECK(t.gradient(copy, x)[0] == t.gradient(z, x)[0]);
}

TEST_CASE("tape: a real is a 16-byte handle", "[tape][semantics]") {
  STATIC_REQUIRE(sizeof(etad::real<double>) == 16);
  etad::tape t;
  const real x = t.variable(4.0);
  CHECK(x.value() == 4.0);
  CHECK_FALSE(x.is_constant());
  CHECK(x.index() != 0);
  CHECK(x.epoch() == t.epoch());
  const real c = 4.0;
  CHECK(c.is_constant());
  CHECK(c.index() == 0);
  CHECK(c.epoch() == 0);
}
