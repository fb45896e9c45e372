// bench/problems/normal_log_density.hpp — normal_log_density/N:
//   f(mu, sigma) = -1/2 sum_i ((y_i - mu) / sigma)^2 - N log sigma
// over N fixed data y_i; gradient with respect to mu and sigma. etad_tape uses etad::map_sum (one
// statement, whatever N); etad_tape_scalar records one statement per element, written as with a
// tape that has no map-reduce.
#pragma once

#include "common.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace tape_bench {

class normal_log_density_problem {
public:
  static constexpr const char* name = "normal_log_density";

  explicit normal_log_density_problem(std::size_t n) : y_(n) {
    random_stream r(21);
    for (double& v : y_) v = 1.5 + 2.0 * r.normal();
    for (std::size_t k = 0; k < point_count; ++k)
      points_[k] = {1.2 + 0.01 * double(k), 1.8 + 0.02 * double(k)};
  }
  std::size_t sources() const { return 2; }
  void next() { k_ = (k_ + 1) % point_count; }
  std::span<const double> inputs() const { return points_[k_]; }
  // Per element y_i - mu, / sigma, square, +; then log, N *, -1/2 *, -.
  double scalar_ops() const { return 4.0 * double(y_.size()) + 4; }

  double value() const {
    const double mu = points_[k_][0], sigma = points_[k_][1];
    const double inv = 1 / sigma;
    double s = 0;
    for (double yi : y_) {
      const double z = (yi - mu) * inv;
      s += z * z;
    }
    return -0.5 * s - double(y_.size()) * std::log(sigma);
  }
  // With d_i = y_i - mu: df/dmu = sum d_i / sigma^2, df/dsigma = sum d_i^2 / sigma^3 - N / sigma.
  double handwritten(std::span<double> g) const {
    const double mu = points_[k_][0], sigma = points_[k_][1];
    double s1 = 0, s2 = 0;
    for (double yi : y_) {
      const double d = yi - mu;
      s1 += d;
      s2 += d * d;
    }
    const double inv = 1 / sigma, inv2 = inv * inv, n = double(y_.size());
    g[0] = s1 * inv2;
    g[1] = s2 * inv2 * inv - n * inv;
    return -0.5 * s2 * inv2 - n * std::log(sigma);
  }
  double etad_tape_scalar(etad_workspace& ws, std::span<double> g) const {
    auto& t = ws.tape;
    t.reset();  // the previous evaluation: forgotten, its memory kept
    const etad::real<double> mu = t.variable(points_[k_][0]), sigma = t.variable(points_[k_][1]);
    etad::real<double> lp = 0.0;
    for (double yi : y_) {
      const auto z = (yi - mu) / sigma;  // an expression, not a statement
      lp = lp - 0.5 * z * z;             // one statement per element
    }
    lp = lp - double(y_.size()) * log(sigma);
    const auto [dmu, dsigma] = t.gradient(lp, mu, sigma);
    g[0] = dmu;
    g[1] = dsigma;
    return lp.value();
  }
  // etad::map_sum: the whole sum as one statement of 2 partials (the element function is
  // differentiated at compile time). Like value() and handwritten(), it multiplies by 1 / sigma
  // (a recorded real) instead of dividing by sigma in every element: with `(y - m) / s` the loop
  // does two divisions per element (the value's, and div's partial -f / b) and takes ~4x longer.
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    auto& t = ws.tape;
    t.reset();
    const etad::real<double> mu = t.variable(points_[k_][0]), sigma = t.variable(points_[k_][1]);
    const etad::real<double> inv = 1.0 / sigma;
    const etad::real<double> ss = etad::map_sum(
        [](auto y, auto m, auto i) {
          const auto z = (y - m) * i;
          return z * z;
        },
        y_, mu, inv);
    const etad::real<double> lp = -0.5 * ss - double(y_.size()) * log(sigma);
    const auto [dmu, dsigma] = t.gradient(lp, mu, sigma);
    g[0] = dmu;
    g[1] = dsigma;
    return lp.value();
  }
  template <class AD, class ValueOf>
  AD formula(std::span<const AD> in, ValueOf) const {
    using std::log;
    const AD& mu = in[0];
    const AD& sigma = in[1];
    // 1 / sigma once, as value(), handwritten() and etad_tape do.
    const AD inv = 1.0 / sigma;
    AD lp = 0.0;
    for (double yi : y_) {
      AD z = (yi - mu) * inv;
      lp -= 0.5 * z * z;
    }
    lp -= double(y_.size()) * log(sigma);
    return lp;
  }

private:
  std::vector<double> y_;
  std::array<std::array<double, 2>, point_count> points_;
  std::size_t k_ = 0;
};

}  // namespace tape_bench
