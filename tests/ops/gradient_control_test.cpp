// tests/ops/gradient_control_test.cpp — stop_gradient and grad_pass_through against independent
// references: stop_gradient(e) must behave like a constant frozen at e's value (checked by finite
// differences of the frozen function); grad_pass_through(q)(e) like the identity for gradients
// (checked against the same function with q removed).
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

using etad_test::close;
using etad_test::fmt;
using etad_test::interval;

namespace {

// f(x, y) contains stop_gradient; frozen(x, y, sx, sy) is the same function with every stopped
// subexpression written in terms of sx, sy. At a point p, the gradient of f must be that of
// frozen(., ., p) with sx, sy held at p — here by finite differences — in reverse and forward mode.
template <class T, class F, class Frozen>
void check_frozen(const char* name, F f, Frozen frozen, interval dx, interval dy, const etad_test::tol& t) {
  for (const auto& p : etad_test::points<T>(std::array{dx, dy}, 30, etad_test::seed_for(name))) {
    const long double sx = p[0], sy = p[1];
    const auto held = [&](auto x, auto y) { return frozen(x, y, sx, sy); };
    const auto g = etad::gradient(f, p[0], p[1]);
    const auto d = etad_test::fd_gradient(held, p);
    INFO(name << " at " << fmt(p));
    CHECK(close(g.value, etad_test::eval(held, p), t.rel, t.rel));
    for (std::size_t i = 0; i < 2; ++i) {
      std::array<T, 2> e{};
      e[i] = 1;
      const auto j = etad::jvp(f, p, e);
      INFO("d/dx" << i << ": gradient " << fmt(g.gradient[i]) << ", jvp " << fmt(j.tangent) << ", frozen finite difference "
                  << fmt(d[i].value));
      CHECK(close(g.gradient[i], d[i].value, t.rel, t.abs + d[i].error));
      CHECK(close(j.tangent, g.gradient[i], etad_test::mode_rel<T>));
    }
  }
}

template <class T>
etad_test::tol default_tol() {
  return etad_test::tolerance{}.of<T>();
}

}  // namespace

TEMPLATE_TEST_CASE("gradient_control: stop_gradient acts as a constant frozen at its value", "[ops][gradient_control]", float,
                   double, long double) {
  using T = TestType;
  const auto t = default_tol<T>();
  check_frozen<T>("x * stop(x y) + sin(stop(y)) * y",
                  [](auto x, auto y) { return x * etad::stop_gradient(x * y) + etad::sin(etad::stop_gradient(y)) * y; },
                  [](auto x, auto y, auto sx, auto sy) { return x * (sx * sy) + etad::sin(sy) * y; }, {-3, 3}, {-3, 3}, t);
  check_frozen<T>("exp(stop(x) - x) * y",
                  [](auto x, auto y) { return etad::exp(etad::stop_gradient(x) - x) * y; },
                  [](auto x, auto y, auto sx, auto) { return etad::exp(sx - x) * y; }, {-3, 3}, {-3, 3}, t);
  check_frozen<T>("x / stop(hypot(x, y)) shared",
                  [](auto x, auto y) {
                    const auto r = etad::stop_gradient(etad::hypot(x, y));  // used twice: one shared slot
                    return x / r + y * r;
                  },
                  [](auto x, auto y, auto sx, auto sy) { return x / etad::hypot(sx, sy) + y * etad::hypot(sx, sy); },
                  {0.5, 3}, {0.5, 3}, t);
  check_frozen<T>("stop(x * 2.5) * x - stop(stop(y) * y)",
                  [](auto x, auto y) { return etad::stop_gradient(x * 2.5) * x - etad::stop_gradient(etad::stop_gradient(y) * y); },
                  [](auto x, auto, auto sx, auto sy) { return (sx * 2.5) * x - sy * sy; }, {-3, 3}, {-3, 3}, t);
  check_frozen<T>("select(stop(x) > y, x y, stop(x) + y)",
                  [](auto x, auto y) { return etad::select(etad::stop_gradient(x) > y, x * y, etad::stop_gradient(x) + y); },
                  [](auto x, auto y, auto sx, auto) { return sx > y ? x * y : sx + y; }, {-3, 3}, {-3, 3}, t);
}

TEMPLATE_TEST_CASE("gradient_control: stop_gradient blocks everything below it", "[ops][gradient_control]", float, double,
                   long double) {
  using T = TestType;
  // The whole function stopped: its value, gradient 0 (and tangent 0).
  const auto all = [](auto x, auto y) { return etad::stop_gradient(etad::sin(x) * y); };
  const auto r = etad::gradient(all, T(1), T(2));
  CHECK(r.value == Approx(std::sin(1.0) * 2));
  CHECK(r.gradient == std::array<T, 2>{0, 0});
  CHECK(etad::jvp(all, std::array{T(1), T(2)}, std::array{T(1), T(1)}).tangent == 0);
  // No sweep enters: an infinite slope below the stop makes no NaN (0 * inf).
  const auto s = etad::gradient([](auto x) { return x * etad::stop_gradient(etad::sqrt(x)); }, T(0));
  CHECK(s.gradient[0] == 0);
  const auto n = etad::gradient([](auto x) { return etad::stop_gradient(etad::log(x)) + x; }, T(0));
  CHECK(n.value == -std::numeric_limits<T>::infinity());
  CHECK(n.gradient[0] == 1);
  // x * stop_gradient(x): gradient x (not 2x). stop_gradient of a placeholder is a shared slot.
  const auto sq = etad::gradient([](auto x) {
    const auto s = etad::stop_gradient(x);
    return s * x + etad::sin(s);
  }, T(3));
  CHECK(sq.gradient[0] == 3);
  // On numbers, stop_gradient is the identity, in the number's type.
  static_assert(std::is_same_v<decltype(etad::stop_gradient(T(2.5))), T>);
  CHECK(etad::stop_gradient(T(2.5)) == T(2.5));
}

TEMPLATE_TEST_CASE("gradient_control: grad_pass_through(q)(e) has q's value and the identity's gradient",
                   "[ops][gradient_control]", float, double, long double) {
  using T = TestType;
  const auto quarter = [](auto v) { return std::round(v * 4) / 4; };  // a quantizer: slope 0 a.e.
  const auto clamp = [](auto v) { return v < -1 ? decltype(v)(-1) : v > 1 ? decltype(v)(1) : v; };
  const auto with = [](auto q) {
    return [q](auto x, auto y) { return etad::sin(etad::grad_pass_through(q)(x * y)) + x * etad::grad_pass_through(q)(y); };
  };
  const auto identity = [](auto x, auto y) { return etad::sin(x * y) + x * y; };
  for (const auto& p : etad_test::points<T>(std::array{interval{-2, 2}, interval{-2, 2}}, 30, etad_test::seed_for("gpt"))) {
    const T x = p[0], y = p[1];
    INFO("at " << fmt(p));
    const auto id = etad::gradient(identity, x, y);
    // d/dx = cos(q(xy)) y + q(y), d/dy = cos(q(xy)) x + x: the identity's gradient, except that
    // the outer factors see q's values.
    const auto rq = etad::gradient(with(quarter), x, y);
    const T qxy = quarter(x * y), qy = quarter(y);
    CHECK(rq.value == Approx(std::sin(qxy) + x * qy));
    CHECK(rq.gradient[0] == Approx(std::cos(qxy) * y + qy));
    CHECK(rq.gradient[1] == Approx(std::cos(qxy) * x + x));
    // With q = identity the pass-through is invisible: etad's own gradient, up to the order in
    // which the reverse sweep adds the paths (a few ulps).
    const auto ri = etad::gradient(with([](auto v) { return v; }), x, y);
    CHECK(ri.value == id.value);
    CHECK(close(ri.gradient[0], id.gradient[0], etad_test::mode_rel<T>));
    CHECK(close(ri.gradient[1], id.gradient[1], etad_test::mode_rel<T>));
    const auto rc = etad::gradient(with(clamp), x, y);
    CHECK(rc.gradient[1] == Approx(std::cos(clamp(x * y)) * x + x));
  }
}

TEMPLATE_TEST_CASE("gradient_control: grad_pass_through with stateful and library callables", "[ops][gradient_control]", float,
                   double, long double) {
  using T = TestType;
  // A capturing q (a rule with state, so never shared): each keeps its own k.
  const auto scaled = [](T k) { return etad::grad_pass_through([k](auto v) { return v * k; }); };
  const auto r = etad::gradient([&](auto x) { return scaled(2)(x) * scaled(3)(x); }, T(2));
  CHECK(r.value == 24);                 // (2x)(3x) at 2
  CHECK(r.gradient[0] == 3 * 2 + 2 * 2);  // 1 * q3(x) + q2(x) * 1
  // A standard-library function object (found no std::apply by ADL).
  const auto neg = etad::gradient([](auto x) { return etad::grad_pass_through(std::negate<>{})(x * x); }, T(3));
  CHECK(neg.value == -9);
  CHECK(neg.gradient[0] == 6);
  // The argument's own infinite slope passes through unchanged.
  const auto inf = etad::gradient([](auto x) { return etad::grad_pass_through(std::negate<>{})(etad::sqrt(x)); }, T(0));
  CHECK(inf.gradient[0] == std::numeric_limits<T>::infinity());
  // Forward mode agrees.
  const auto j = etad::jvp([](auto x) { return etad::grad_pass_through(std::negate<>{})(x * x); }, std::array{T(3)},
                           std::array{T(1)});
  CHECK(j.value == -9);
  CHECK(j.tangent == 6);
  // On numbers: just q's value.
  CHECK(etad::grad_pass_through([](auto v) { return std::floor(v); })(T(2.7)) == 2);
}
