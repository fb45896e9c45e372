// examples/tape_call.cpp — the README's etad::call example: a fixed formula inside a
// data-dependent loop, recorded as one statement per step with one partial per argument,
// checked against central differences of the same loop on doubles.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>

TEST_CASE("example: a fixed formula as one tape statement (etad::call)") {
  auto step = [](auto t, auto x, auto y) {
    auto tt = t * t;                               // computed once, used three times
    return sin(t) * cos(y * t) + exp(-tt) / (1 + x * tt) + 0.5 * sqrt(y + tt);
  };
  etad::tape tp;
  etad::real x = tp.variable(0.6), y = tp.variable(0.7);
  etad::real t = x, before = x;
  do {                                             // until a step moves t by less than 1e-3
    before = t;
    t = etad::call(step, t, x, y);                 // one statement of 3 partials per step
  } while (abs(t - before) > 1e-3);
  auto [dx, dy] = tp.gradient(t, x, y);

  // The same loop on doubles, and central differences of it (7 steps, the last two moving t by
  // 1.6e-3 and 4.6e-4: the same within +-h of the point).
  auto f = [](double x, double y) {
    double t = x, before;
    do {
      before = t;
      const double tt = t * t;
      t = std::sin(t) * std::cos(y * t) + std::exp(-tt) / (1 + x * tt) + 0.5 * std::sqrt(y + tt);
    } while (std::abs(t - before) > 1e-3);
    return t;
  };
  const double h = 1e-6;
  CHECK(tp.statements() == 2 + 7);                 // the variables x and y, then one per step
  CHECK(t.value() == Approx(f(0.6, 0.7)).epsilon(1e-14));
  CHECK(dx == Approx((f(0.6 + h, 0.7) - f(0.6 - h, 0.7)) / (2 * h)).epsilon(1e-6));
  CHECK(dy == Approx((f(0.6, 0.7 + h) - f(0.6, 0.7 - h)) / (2 * h)).epsilon(1e-6));
}
