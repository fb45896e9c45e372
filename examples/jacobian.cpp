// examples/jacobian.cpp — a function with two outputs: its Jacobian, and a Jacobian-vector
// product (jvp), which gives J v in one forward sweep without forming J.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <tuple>

TEST_CASE("example: jacobian and jvp") {
  // Polar to Cartesian coordinates, (r, t) -> (r cos t, r sin t). By hand:
  //   J = [ cos t   -r sin t ]
  //       [ sin t    r cos t ]
  auto polar = [](auto r, auto t) { return std::tuple{r * cos(t), r * sin(t)}; };

  auto result = etad::jacobian(polar, 2.0, 0.5);

  // At (2, 0.5): value = (2 cos 0.5, 2 sin 0.5) ~ (1.7552, 0.9589),
  //              J ~ [ 0.8776  -0.9589 ]
  //                  [ 0.4794   1.7552 ]
  CHECK(result.value[0] == Approx(2 * std::cos(0.5)));
  CHECK(result.value[1] == Approx(2 * std::sin(0.5)));
  CHECK(result.jacobian[0][0] == Approx(std::cos(0.5)));
  CHECK(result.jacobian[0][1] == Approx(-2 * std::sin(0.5)));
  CHECK(result.jacobian[1][0] == Approx(std::sin(0.5)));
  CHECK(result.jacobian[1][1] == Approx(2 * std::cos(0.5)));

  // J v for v = (0, 1), the second column: the velocity of the point as t turns,
  // (-r sin t, r cos t) ~ (-0.9589, 1.7552).
  auto [value, tangent] = etad::jvp(polar, std::array{2.0, 0.5}, std::array{0.0, 1.0});
  CHECK(value[0] == Approx(2 * std::cos(0.5)));
  CHECK(tangent[0] == Approx(-2 * std::sin(0.5)));
  CHECK(tangent[1] == Approx(2 * std::cos(0.5)));
}
