// examples/second_derivative.cpp — gradients of gradients: a tape of reals nested inside a tape
// of doubles records its own backward sweep on the outer tape.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

TEST_CASE("example: second derivative with nested tapes") {
  etad::tape outer;
  etad::real x = outer.variable(3.0);

  etad::real<double> dy_dx;
  {
    etad::basic_tape<etad::real<double>> inner;    // its values are reals of the outer tape
    auto xi = inner.variable(x);
    etad::real y = xi * xi * xi;                   // y = x^3
    dy_dx = inner.gradient(y, xi)[0];              // 3 x^2, itself recorded on the outer tape
  }
  auto [d2y_dx2] = outer.gradient(dy_dx, x);       // 6 x

  CHECK(dy_dx.value() == 27.0);
  CHECK(d2y_dx2 == 18.0);
}
