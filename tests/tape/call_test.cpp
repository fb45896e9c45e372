// tests/tape/call_test.cpp — etad::call(f, args...): a static function of reals and numbers
// recorded as one statement with one partial per active real argument. Checked against closed
// forms, against the same formula recorded as expressions, and against finite differences.
#include "support/finite_difference.hpp"
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace {
using real = etad::real<double>;

// The chain benchmark's body: tt = t^2;
// sin(t) cos(y t) + exp(-z tt) / (1 + x tt) + sqrt(y z + tt) / 2.
const auto body = [](auto t, auto x, auto y, auto z) {
  const auto tt = t * t;
  return sin(t) * cos(y * t) + exp(-z * tt) / (1 + x * tt) + 0.5 * sqrt(y * z + tt);
};

// Its value and partials (t, x, y, z), written out by hand.
struct body_derivatives {
  double value;
  std::array<double, 4> partial;
};
body_derivatives body_by_hand(double t, double x, double y, double z) {
  const double tt = t * t, e = std::exp(-z * tt), d = 1 + x * tt, q = std::sqrt(y * z + tt);
  const double value = std::sin(t) * std::cos(y * t) + e / d + 0.5 * q;
  // d/dtt of e / d + q / 2: -z e / d - x e / d^2 + 1 / (4 q).
  const double dtt = -z * e / d - x * e / (d * d) + 0.25 / q;
  return {value,
          {std::cos(t) * std::cos(y * t) - y * std::sin(t) * std::sin(y * t) + 2 * t * dtt,
           -e * tt / (d * d), -t * std::sin(t) * std::sin(y * t) + 0.25 * z / q,
           -tt * e / d + 0.25 * y / q}};
}
}  // namespace

TEST_CASE("tape call: one statement with one partial per argument, at the closed form", "[tape][call]") {
  const double tv = 0.8, xv = 0.6, yv = 0.7, zv = 0.9;
  etad::tape tp;
  const real t = tp.variable(tv), x = tp.variable(xv), y = tp.variable(yv), z = tp.variable(zv);
  const std::size_t s0 = tp.statements(), p0 = tp.partials();
  const real r = etad::call(body, t, x, y, z);
  // t occurs 8 times in the formula (tt 3 times), y and z twice each: still 4 partials.
  CHECK(tp.statements() - s0 == 1);
  CHECK(tp.partials() - p0 == 4);
  const body_derivatives want = body_by_hand(tv, xv, yv, zv);
  CHECK(r.value() == Approx(want.value).epsilon(1e-15));
  const auto g = tp.gradient(r, t, x, y, z);
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("partial " << i);
    CHECK(g[i] == Approx(want.partial[i]).epsilon(1e-14));
  }
}

TEST_CASE("tape call: a data-dependent loop agrees with expressions and finite differences", "[tape][call]") {
  // Iterate the body until a step moves t by less than 10^-3 (at most 40 steps): how many steps
  // depends on the inputs (7 at this point, whose last two steps move t by 2.2e-3, then 7e-4).
  const auto run = [](auto t, const auto& x, const auto& y, const auto& z, bool by_call) {
    for (int k = 0; k < 40; ++k) {
      const double before = t.value();
      if (by_call) {
        t = etad::call(body, t, x, y, z);
      } else {
        const decltype(t) tt = t * t;
        t = sin(t) * cos(y * t) + exp(-z * tt) / (1 + x * tt) + 0.5 * sqrt(y * z + tt);
      }
      if (std::fabs(t.value() - before) < 1e-3) break;
    }
    return t;
  };
  const std::array<double, 3> p{0.6, 0.7, 0.9};
  std::array<double, 3> g_call{}, g_expr{};
  double v_call = 0, v_expr = 0;
  std::size_t statements = 0;
  for (const bool by_call : {true, false}) {
    etad::tape tp;
    const real x = tp.variable(p[0]), y = tp.variable(p[1]), z = tp.variable(p[2]);
    const std::size_t s0 = tp.statements();
    const real r = run(x, x, y, z, by_call);
    (by_call ? v_call : v_expr) = r.value();
    (by_call ? g_call : g_expr) = tp.gradient(r, x, y, z);
    if (by_call) statements = tp.statements() - s0;
  }
  CHECK(statements == 7);  // one per step
  CHECK(v_call == Approx(v_expr).epsilon(1e-14));
  // The plain function in long double, for the finite differences (the same number of steps at
  // the points they use: the exit test is far from its threshold).
  const auto plain = [](auto x, auto y, auto z) {
    auto t = x;
    for (int k = 0; k < 40; ++k) {
      const auto before = t;
      const auto tt = t * t;
      t = etad::sin(t) * etad::cos(y * t) + etad::exp(-z * tt) / (1 + x * tt) +
          0.5 * etad::sqrt(y * z + tt);
      if (etad::abs(t - before) < 1e-3) break;
    }
    return t;
  };
  const auto fd = etad_test::fd_gradient(plain, p);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("input " << i);
    CHECK(g_call[i] == Approx(g_expr[i]).epsilon(1e-12));
    CHECK(g_call[i] == Approx(double(fd[i].value)).epsilon(1e-8));
  }
}

TEST_CASE("tape call: numbers, constant reals and a repeated real", "[tape][call]") {
  // f(a, b, c, d) = a^2 b + c d - a, called with a = x, b = 3 (a number), c = 2.5 (a constant
  // real), d = x again: 3 x^2 + 2.5 x - x, derivative 6 x + 1.5; y (unused here) stays 0.
  const auto f = [](auto a, auto b, auto c, auto d) { return a * a * b + c * d - a; };
  etad::tape tp{etad::persistent};
  const real x = tp.variable(1.25), y = tp.variable(-0.5);
  const std::size_t p0 = tp.partials();
  const real r = etad::call(f, x, 3, real(2.5), x);
  CHECK(tp.partials() - p0 == 2);  // x as a and as d; the number and the constant real: none
  CHECK(r.value() == Approx(3 * 1.25 * 1.25 + 2.5 * 1.25 - 1.25).epsilon(1e-15));
  const auto g = tp.gradient(r, x, y);
  CHECK(g[0] == Approx(6 * 1.25 + 1.5).epsilon(1e-15));
  CHECK(g[1] == 0.0);
  // float and long double tapes, and an int argument converted to the tape's type.
  etad::basic_tape<float> tf;
  const etad::real<float> xf = tf.variable(1.5f);
  const etad::real<float> rf = etad::call([](auto a, auto k) { return a * a * k; }, xf, 2);
  CHECK(rf.value() == 4.5f);
  CHECK(tf.gradient(rf, xf)[0] == 6.0f);
  etad::basic_tape<long double> tl;
  const etad::real<long double> xl = tl.variable(0.5L);
  const etad::real<long double> rl = etad::call([](auto a) { return exp(a) * a; }, xl);
  CHECK(double(tl.gradient(rl, xl)[0]) == Approx(double(std::exp(0.5L) * 1.5L)).epsilon(1e-15));
}

TEST_CASE("tape call: an argument used only under stop_gradient is not an input", "[tape][call]") {
  // f(a, b) = a * stop_gradient(b): b is not connected (TensorFlow gives None), a gets b.
  const auto f = [](auto a, auto b) { return a * etad::stop_gradient(b); };
  etad::tape tp{etad::persistent};
  const real a = tp.variable(2.0), b = tp.variable(3.0);
  const std::size_t p0 = tp.partials();
  const real r = etad::call(f, a, b);
  CHECK(tp.partials() - p0 == 1);
  const real sources[] = {a, b};
  const real targets[] = {r};
  const auto g = tp.gradients(targets, sources);
  REQUIRE(g[0].has_value());
  CHECK(*g[0] == 3.0);
  CHECK_FALSE(g[1].has_value());
  // With a a constant, the statement is still recorded (its value depends on b, a real on the
  // tape): no inputs, so b is unconnected and the result is a value on the tape, not a constant.
  const real r2 = etad::call(f, real(2.0), b);
  CHECK_FALSE(r2.is_constant());
  const real targets2[] = {r2};
  CHECK_FALSE(tp.gradients(targets2, sources)[1].has_value());
}

TEST_CASE("tape call: constants, paused recording, a missing tape and a stale real", "[tape][call]") {
  const auto f = [](auto a, auto b) { return a * b + 1; };
  // Only constants: a constant, with or without a tape.
  const real c = etad::call(f, real(2.0), 4.0);
  CHECK(c.is_constant());
  CHECK(c.value() == 9.0);
  {
    etad::tape tp;
    const real x = tp.variable(2.0);
    const real c2 = etad::call(f, real(2.0), 4.0);
    CHECK(c2.is_constant());
    CHECK(tp.statements() == 1);  // the variable only
    {
      const etad::stop_recording<double> pause;
      const real p = etad::call(f, x, 4.0);
      CHECK(p.is_constant());
      CHECK(p.value() == 9.0);
    }
    const real stale = x;
    tp.reset();
    const real fresh = tp.variable(1.0);
    const std::size_t statements = tp.statements(), partials = tp.partials();
    // A real from before reset(), and one of another live tape: caught (the tests build with
    // ETAD_CHECKED=1), and the tape is as it was.
    for (int k = 0; k < 2; ++k) {
      etad::tape other;  // (the active tape while it lives: the call records on it)
      const real foreign = k == 0 ? stale : fresh;
      try {
        (void)etad::call(f, foreign, 4.0);
        FAIL("no exception for a real of another tape or epoch");
      } catch (const etad::error& e) {
        // (k == 1: fresh's tape is alive but not active, and the message says so.)
        const std::string m = e.what();
        CHECK(m.find(k == 0 ? "call() was given a real recorded on another tape or before reset()"
                            : "call() was given a real of a tape that is not the active one") !=
              std::string::npos);
      }
      CHECK(other.statements() == 0);
    }
    CHECK(tp.statements() == statements);
    CHECK(tp.partials() == partials);
  }
  // A real whose tape is gone, with no tape active: etad::error, not a crash.
  real orphan;
  {
    etad::tape tp;
    orphan = tp.variable(1.0);
  }
  try {
    (void)etad::call(f, orphan, 4.0);
    FAIL("no exception without a tape");
  } catch (const etad::error& e) {
    const std::string m = e.what();
    CHECK(m.find("call() was given a real with no active tape") != std::string::npos);
  }
}

namespace user_code {
// A helper of the user's own named call, called unqualified with an etad::real argument: etad's
// call is a function object, which argument-dependent lookup does not find.
template <class F, class... A>
auto call(F f, A... a) {
  return f(a...);
}
double run_own_call() {
  etad::tape t;
  const real x = t.variable(2.0);
  return call([](const real& v) { return v.value() + 1; }, x);
}
}  // namespace user_code

TEST_CASE("tape call: a user's own unqualified call() is not hijacked", "[tape][call]") {
  CHECK(user_code::run_own_call() == 3.0);
}

TEST_CASE("tape call: second derivatives on nested tapes", "[tape][call][higher_order]") {
  // f(x, y) = sin(x y) x: f_xx = -y^2 x sin(xy) + 2 y cos(xy), f_xy = -x^2 y sin(xy) + 2 x cos(xy),
  // f_yy = -x^3 sin(xy).
  const double xv = 0.7, yv = 1.3;
  const auto h = etad_tape_test::nested_hessian(
      [](const auto& x, const auto& y) {
        return decltype(x)(etad::call([](auto a, auto b) { return sin(a * b) * a; }, x, y));
      },
      std::array{xv, yv});
  const double s = std::sin(xv * yv), co = std::cos(xv * yv);
  CHECK(h[0][0] == Approx(-yv * yv * xv * s + 2 * yv * co).epsilon(1e-13));
  CHECK(h[0][1] == Approx(-xv * xv * yv * s + 2 * xv * co).epsilon(1e-13));
  CHECK(h[1][0] == Approx(-xv * xv * yv * s + 2 * xv * co).epsilon(1e-13));
  CHECK(h[1][1] == Approx(-xv * xv * xv * s).epsilon(1e-13));
}
