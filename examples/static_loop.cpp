// examples/static_loop.cpp — the README's static loop: a loop with a run-time trip count inside a
// compile-time gradient, checked against a closed form and finite differences of a plain loop.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>

TEST_CASE("example: a loop with a run-time trip count, no tape") {
  int k = 1000;  // a run-time trip count
  // t <- sin(t) y + z, k times from t = x. The body takes the state and then every value it
  // uses; its gradient is derived at compile time, and the loop's partials are accumulated
  // with its value, in memory that does not depend on k.
  auto f = [k](auto x, auto y, auto z) {
    auto body = [](auto t, auto y, auto z) { return sin(t) * y + z; };
    return etad::loop(k, body, x, y, z);
  };
  auto [value, grad] = etad::gradient(f, 0.5, 0.8, 0.1);

  // The same loop on doubles, and central differences of it.
  auto plain = [k](double x, double y, double z) {
    double t = x;
    for (int i = 0; i < k; ++i) t = std::sin(t) * y + z;
    return t;
  };
  const double h = 1e-6;
  CHECK(value == Approx(plain(0.5, 0.8, 0.1)).epsilon(1e-14));
  // d/dx is the product of the k steps' slopes y cos(t_i), about 1e-100 here: far below what a
  // difference can resolve, so it is compared with that product, taken along the plain loop.
  double t = 0.5, dx = 1;
  for (int i = 0; i < k; ++i) {
    dx *= 0.8 * std::cos(t);
    t = std::sin(t) * 0.8 + 0.1;
  }
  CHECK(grad[0] == Approx(dx).epsilon(1e-12));
  CHECK(grad[1] == Approx((plain(0.5, 0.8 + h, 0.1) - plain(0.5, 0.8 - h, 0.1)) / (2 * h)).epsilon(1e-6));
  CHECK(grad[2] == Approx((plain(0.5, 0.8, 0.1 + h) - plain(0.5, 0.8, 0.1 - h)) / (2 * h)).epsilon(1e-6));

  // while_loop: the condition takes values; the trip count has no derivative (tf.while_loop).
  auto grow = [](auto x, auto y) {
    return etad::while_loop([](double s, double) { return s < 100; },
                            [](auto s, auto y) { return s * y; }, x, y);
  };
  auto [v, g] = etad::gradient(grow, 2.0, 3.0);  // 2 -> 6 -> 18 -> 54 -> 162: x y^4
  CHECK(v == 162.0);
  CHECK(g[0] == 81.0);   // y^4
  CHECK(g[1] == 216.0);  // 4 x y^3
}
