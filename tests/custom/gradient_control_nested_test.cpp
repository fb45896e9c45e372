// tests/custom/gradient_control_nested_test.cpp — grad_pass_through on nested tapes: its gradient
// is the identity's on every tape, as TensorFlow records tf.grad_pass_through's custom gradient on
// every active GradientTape, so a second derivative differentiates the identity again, not f.
// Every expected value is derived by hand in a comment.
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <functional>

TEST_CASE("grad_pass_through: second derivatives see the identity, not f", "[custom][gradient_control][higher_order]") {
  // f(x, y) = q(x y) x with q = grad_pass_through(negate): value -(x y) x, and q's derivative is
  // the identity's on every tape, so q_x = y, q_y = x. First order: f_x = q_x x + q = y x + q,
  // f_y = q_y x = x^2. Second order, q passing through again: f_xx = y + q_x = 2y,
  // f_xy = x + q_y = 2x, f_yx = 2x, f_yy = 0. At (0.7, 0.4): [[0.8, 1.4], [1.4, 0]].
  // (Before: the outer tape differentiated negate itself, q_x = -y there, and every entry but
  // f_yx was 0.)
  const auto h = etad_tape_test::nested_hessian(
      [](auto x, auto y) { return etad::grad_pass_through(std::negate<>{})(x * y) * x; }, std::array{0.7, 0.4});
  CHECK(h[0][0] == Approx(0.8));
  CHECK(h[0][1] == Approx(1.4));
  CHECK(h[1][0] == Approx(1.4));
  CHECK(h[1][1] == 0.0);
}

TEST_CASE("grad_pass_through: a quantizer of numbers on a nested tape", "[custom][gradient_control][higher_order]") {
  // f(x) = q(x) x, q = grad_pass_through(round): q(2.7) = 3, q' = 1 (passed through).
  // f' = q' x + q = 2.7 + 3 = 5.7; f'' = q' + q' = 2 (TensorFlow: 2). q takes a double: on a
  // nested tape it gets the plain number (before, it was called with the nested real, and the
  // outer tape saw round's slope 0: f'' = 1).
  const auto q = etad::grad_pass_through([](double v) { return std::round(v); });
  etad::tape outer{etad::persistent};
  const etad::real<double> x = outer.variable(2.7);
  etad::real<double> d1;
  {
    etad::basic_tape<etad::real<double>> inner;
    const auto xi = inner.variable(x);
    const etad::real<etad::real<double>> f = q(xi) * xi;
    CHECK(f.value().value() == Approx(3 * 2.7));
    d1 = inner.gradient(f, xi)[0];
  }
  CHECK(d1.value() == Approx(5.7));
  CHECK(outer.gradient(d1, x)[0] == 2.0);
}

TEST_CASE("grad_pass_through: the first derivative on a nested tape is the plain tape's", "[custom][gradient_control]") {
  // grad_pass_through(assign)(z * z) at z = 3: value 9, gradient 2z = 6 (TensorFlow's example),
  // on a tape of doubles and on a nested tape alike; d/dz (2z) = 2 on the outer tape.
  const auto assign = [](double v) { return v; };
  etad::tape plain;
  const etad::real<double> z = plain.variable(3.0);
  const etad::real<double> y = etad::grad_pass_through(assign)(z * z);
  CHECK(y.value() == 9.0);
  CHECK(plain.gradient(y, z)[0] == 6.0);

  const auto h = etad_tape_test::nested_hessian(
      [&](auto a) { return etad::grad_pass_through(assign)(a * a); }, std::array{3.0});
  CHECK(h[0][0] == 2.0);
}
