// examples/tape_loop.cpp — the README's taped example: a loop whose trip count depends on the
// data, differentiated on a tape, checked against finite differences of the same loop.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>

TEST_CASE("example: a data-dependent loop on the tape") {
  etad::tape t;                                    // the thread's active tape while in scope
  etad::real x = t.variable(2.0), y = t.variable(3.0);
  etad::real z = x;
  while (z < 100) z = z * y + sin(x);              // ordinary C++ control flow; one statement each
  auto [dx, dy] = t.gradient(z, x, y);

  // The same loop on doubles, and central differences of it (the trip count, 4, does not change
  // within +-h of the point).
  auto f = [](double x, double y) {
    double z = x;
    while (z < 100) z = z * y + std::sin(x);
    return z;
  };
  const double h = 1e-6;
  CHECK(z.value() == Approx(f(2.0, 3.0)));
  CHECK(dx == Approx((f(2 + h, 3) - f(2 - h, 3)) / (2 * h)).epsilon(1e-6));
  CHECK(dy == Approx((f(2, 3 + h) - f(2, 3 - h)) / (2 * h)).epsilon(1e-6));
}
