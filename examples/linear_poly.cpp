// examples/linear_poly.cpp — TensorFlow's custom-gradient example with captured variables
// (tf.custom_gradient's linear_poly), written with etad::custom_gradient: the forward pass reads
// two reals of the tape that are not its arguments, and the gradient function answers for them.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cstddef>
#include <ostream>
#include <span>
#include <sstream>
#include <utility>
#include <vector>

namespace {

void print(std::ostream& out, const char* what, const std::vector<double>& v) {
  out << what << " =";
  for (double x : v) out << ' ' << x;
  out << '\n';
}

void linear_poly_example(std::ostream& out) {
  etad::tape t{etad::persistent};
  const std::vector<etad::real<>> weights = t.variables(std::vector{1.0, 1.0});
  const std::vector<etad::real<>> x = t.variables(std::vector{1.0, 2.0, 3.0});

  auto linear_poly = etad::custom_gradient([&weights](std::span<const etad::real<>> xs) {
    std::vector<etad::real<>> poly;                // weights[1] * x + weights[0]
    std::vector<double> xv;
    for (const auto& xi : xs) {
      poly.push_back(weights[1] * xi + weights[0]);  // reads weights: captured variables
      xv.push_back(xi.value());
    }
    auto grad_fn = [&weights, xv](std::span<const double> dpoly,
                                  std::span<const etad::captured<>> variables) {
      // variables lists weights[0], weights[1] (the order they were recorded in).
      std::vector<double> grad_xs;                 // dy/dx = weights[1], times dpoly
      double sum_dpoly_x = 0, sum_dpoly = 0;
      for (std::size_t k = 0; k < dpoly.size(); ++k) {
        grad_xs.push_back(dpoly[k] * weights[1].value());
        sum_dpoly_x += dpoly[k] * xv[k];
        sum_dpoly += dpoly[k];
      }
      (void)variables;
      // TensorFlow's example declares [sum(dpoly x), sum(dpoly)] for the weights, in that
      // order; a custom gradient is what it declares (the true one here is [sum(dpoly),
      // sum(dpoly x)]).
      return std::pair{grad_xs, std::vector{sum_dpoly_x, sum_dpoly}};
    };
    return std::pair{poly, grad_fn};
  });

  const std::vector<etad::real<>> poly = linear_poly(x);  // one tape entry, three outputs
  std::vector<double> values;
  for (const auto& p : poly) values.push_back(p.value());
  print(out, "poly", values);

  std::vector<double> dx, dw;                       // tape.gradient(poly, x), (poly, weights)
  for (const auto& g : t.gradients(poly, x)) dx.push_back(*g);
  for (const auto& g : t.gradients(poly, weights)) dw.push_back(*g);
  print(out, "dpoly/dx", dx);
  print(out, "dpoly/dweights", dw);
}

}  // namespace

TEST_CASE("example: TensorFlow's linear_poly, a custom gradient with captured variables") {
  std::ostringstream out;
  linear_poly_example(out);
  CHECK(out.str() ==
        "poly = 2 3 4\n"
        "dpoly/dx = 1 1 1\n"
        "dpoly/dweights = 6 3\n");
}
