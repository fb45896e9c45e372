// examples/linear_regression.cpp — a least-squares loss over a data matrix as ONE tape statement:
// map_sum with rows_times(X, w) computes X w row by row inside its loop and accumulates the
// partials for w there, as a hand-written gradient would.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>
#include <vector>

TEST_CASE("example: a linear regression as one statement") {
  const std::vector<double> X{1.0, 0.5,   // 3 observations of 2 features, row-major
                              -0.5, 2.0,  //
                              1.5, -1.0};
  const std::vector<double> y{1.2, 0.3, 2.1};
  etad::tape t;
  std::vector<etad::real<double>> w = t.variables(std::vector<double>{0.4, -0.3});
  etad::real b = t.variable(0.1);

  // sum_i (y_i - x_i . w - b)^2: one statement with 3 partials (w and b), whatever the number
  // of observations.
  etad::real sse = etad::map_sum(
      [](auto yi, auto xw, auto c) { return pow(yi - xw - c, 2); }, y, etad::rows_times(X, w), b);
  std::vector<etad::real<double>> params{w[0], w[1], b};
  std::vector<double> g(3);
  t.gradient(sse, params, g);

  // By hand: r_i = y_i - x_i . w - b; d/dw_j = -2 sum r_i x_ij, d/db = -2 sum r_i.
  double dw0 = 0, dw1 = 0, db = 0;
  for (int i = 0; i < 3; ++i) {
    const double r = y[i] - X[2 * i] * 0.4 - X[2 * i + 1] * -0.3 - 0.1;
    dw0 += -2 * r * X[2 * i];
    dw1 += -2 * r * X[2 * i + 1];
    db += -2 * r;
  }
  CHECK(g[0] == Approx(dw0));
  CHECK(g[1] == Approx(dw1));
  CHECK(g[2] == Approx(db));
  CHECK(t.statements() == 4);  // three variables, the map_sum
}
