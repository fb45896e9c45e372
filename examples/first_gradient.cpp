// examples/first_gradient.cpp — the README's first example: the value and gradient of a formula
// in three variables, checked against the derivatives worked out by hand.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>

TEST_CASE("example: first gradient") {
  // f(x, y, z) = x y + x sin z. By hand:
  //   df/dx = y + sin z,   df/dy = x,   df/dz = x cos z.
  // (f is generic: etad calls it with placeholders, and sin is found as etad::sin.)
  auto f = [](auto x, auto y, auto z) { return x * y + x * sin(z); };

  auto [value, grad] = etad::gradient(f, 2.0, 3.0, 0.5);

  // At (2, 3, 0.5): f = 6 + 2 sin 0.5 ~ 6.9589, gradient ~ (3.4794, 2, 1.7552).
  CHECK(value == Approx(2 * 3 + 2 * std::sin(0.5)));
  CHECK(grad[0] == Approx(3 + std::sin(0.5)));
  CHECK(grad[1] == Approx(2));
  CHECK(grad[2] == Approx(2 * std::cos(0.5)));
}
