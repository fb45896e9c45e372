// examples/hessian.cpp — a Hessian by nested tapes: the inner tape's gradient is recorded on a
// persistent outer tape, which then answers one gradient per row.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>

TEST_CASE("example: Hessian with nested tapes") {
  // f(x, y) = x^2 y + x sin y. By hand: f_xx = 2 y, f_xy = 2 x + cos y, f_yy = -x sin y.
  etad::tape outer{etad::persistent};               // one gradient call per Hessian row
  etad::real x = outer.variable(1.0), y = outer.variable(2.0);

  etad::real<double> gx, gy;                        // the gradient, as values on the outer tape
  {
    etad::basic_tape<etad::real<double>> inner;     // its values are reals of the outer tape
    auto xi = inner.variable(x), yi = inner.variable(y);
    etad::real f = xi * xi * yi + xi * sin(yi);
    auto g = inner.gradient(f, xi, yi);
    gx = g[0];
    gy = g[1];
  }
  auto [hxx, hxy] = outer.gradient(gx, x, y);       // row 1: d(f_x)/d(x, y)
  auto [hyx, hyy] = outer.gradient(gy, x, y);       // row 2: d(f_y)/d(x, y)

  CHECK(hxx == Approx(2 * 2.0));
  CHECK(hxy == Approx(2 * 1.0 + std::cos(2.0)));
  CHECK(hyx == Approx(hxy));
  CHECK(hyy == Approx(-1.0 * std::sin(2.0)));
}
