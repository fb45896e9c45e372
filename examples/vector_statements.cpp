// examples/vector_statements.cpp — whole-vector work as ONE tape statement: a reduction, and a
// map-reduce whose element function is differentiated at compile time; a variable block.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

TEST_CASE("example: vector statements") {
  const std::vector<double> data{1.0, 2.5, -0.5, 3.0};
  etad::tape t;
  etad::real mu = t.variable(0.7), sigma = t.variable(1.3);

  // sum_i ((y_i - mu) / sigma)^2: one statement with 2 partials, whatever the data length.
  etad::real ss = etad::map_sum(
      [](auto y, auto m, auto s) { return pow((y - m) / s, 2); }, data, mu, sigma);
  etad::real nll = 0.5 * ss + 4.0 * log(sigma);
  auto [dmu, dsigma] = t.gradient(nll, mu, sigma);

  // By hand: d/dmu = -sum(z_i) / sigma, d/dsigma = -sum(z_i^2) / sigma + 4 / sigma.
  double sz = 0, szz = 0;
  for (double y : data) {
    const double z = (y - 0.7) / 1.3;
    sz += z;
    szz += z * z;
  }
  CHECK(dmu == Approx(-sz / 1.3));
  CHECK(dsigma == Approx(-szz / 1.3 + 4 / 1.3));
  CHECK(t.statements() == 4);  // two variables, the map_sum, nll
}

TEST_CASE("example: a variable block") {
  const std::vector<double> x{0.5, -1.0, 2.0, 1.5};
  etad::tape t;
  // Four variables at once: the tape keeps their values, contiguous; no real per value.
  const etad::variable_block<double> b = t.variable_block(x);
  etad::real lse = etad::log_sum_exp(b);  // one statement over the block
  std::vector<double> g(x.size());
  t.gradient(lse, b, g);                  // d lse / d x_i, for every variable of the block

  // By hand: the gradient of log(sum exp x_i) is softmax(x).
  double z = 0;
  for (double v : x) z += std::exp(v);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(g[i] == Approx(std::exp(x[i]) / z));
  CHECK(lse.value() == Approx(std::log(z)));
  CHECK(b[2].value() == 2.0);  // b[i] is the i-th variable as a real, for any expression
}
