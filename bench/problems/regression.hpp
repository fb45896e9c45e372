// bench/problems/regression.hpp — regression/P: the log posterior (up to a constant) of a
// Gaussian linear regression on n = 1000 observations with P features,
//   f(w, b, sigma) = -1/2 sum_i ((y_i - x_i . w - b) / sigma)^2 - n log sigma
//                    - 1/2 sum_j w_j^2 - 1/2 b^2                 (N(0, 1) priors on w and b)
// gradient with respect to all P + 2 parameters (w, then b, then sigma). etad_tape: etad::map_sum
// with etad::rows_times(X, w) (the whole likelihood as one statement); etad_tape_scalar: one
// dot(x_i, w) statement and one statement for the residual per observation; etad_tape_matvec:
// etad::matvec for X w, then etad::map_sum for the likelihood.
#pragma once

#include "common.hpp"

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace tape_bench {

class regression_problem {
public:
  static constexpr const char* name = "regression";
  static constexpr std::size_t observations = 1000;

  explicit regression_problem(std::size_t p)
      : p_(p), x_(observations * p), y_(observations), points_(point_count * (p + 2)) {
    random_stream r(41);
    std::vector<double> w(p);
    for (double& v : w) v = 0.5 * r.normal();
    const double b = 0.3;
    for (std::size_t i = 0; i < observations; ++i) {
      double mu = b;
      for (std::size_t j = 0; j < p; ++j) {
        x_[i * p + j] = r.normal();
        mu += x_[i * p + j] * w[j];
      }
      y_[i] = mu + 0.8 * r.normal();
    }
    // The points: near the truth, but not at the optimum (where the gradient would be ~0).
    for (std::size_t k = 0; k < point_count; ++k) {
      double* q = points_.data() + k * (p + 2);
      for (std::size_t j = 0; j < p; ++j) q[j] = 0.9 * w[j] + 0.01 * double(k + j % 5);
      q[p] = 0.25 + 0.01 * double(k);
      q[p + 1] = 0.9 + 0.01 * double(k);
    }
  }
  std::size_t sources() const { return p_ + 2; }
  void next() { k_ = (k_ + 1) % point_count; }
  std::span<const double> inputs() const { return {points_.data() + k_ * (p_ + 2), p_ + 2}; }
  // Per observation: P *, P + (x.w, + b), -, /, square, +. Then log, n *, the priors
  // (P + 1 squares, P +, 1/2 *, -) and the final +.
  double scalar_ops() const {
    return double(observations) * (2.0 * double(p_) + 4) + 2 + 2.0 * double(p_) + 4;
  }

  double value() const {
    const double* q = inputs().data();
    const double b = q[p_], sigma = q[p_ + 1];
    double s = 0;
    for (std::size_t i = 0; i < observations; ++i) {
      const double* xi = x_.data() + i * p_;
      double mu = b;
      for (std::size_t j = 0; j < p_; ++j) mu += xi[j] * q[j];
      const double r = y_[i] - mu;
      s += r * r;
    }
    double prior = b * b;
    for (std::size_t j = 0; j < p_; ++j) prior += q[j] * q[j];
    return -0.5 * s / (sigma * sigma) - double(observations) * std::log(sigma) - 0.5 * prior;
  }
  // r_i = y_i - x_i . w - b: df/dw = X^T r / sigma^2 - w, df/db = sum r / sigma^2 - b,
  // df/dsigma = sum r^2 / sigma^3 - n / sigma.
  double handwritten(std::span<double> g) const {
    const double* q = inputs().data();
    const double b = q[p_], sigma = q[p_ + 1];
    double* gw = g.data();
    for (std::size_t j = 0; j < p_; ++j) gw[j] = 0;
    double s = 0, sr = 0;
    for (std::size_t i = 0; i < observations; ++i) {
      const double* xi = x_.data() + i * p_;
      double mu = b;
      for (std::size_t j = 0; j < p_; ++j) mu += xi[j] * q[j];
      const double r = y_[i] - mu;
      s += r * r;
      sr += r;
      for (std::size_t j = 0; j < p_; ++j) gw[j] += r * xi[j];
    }
    const double inv = 1 / sigma, inv2 = inv * inv, n = double(observations);
    double prior = b * b;
    for (std::size_t j = 0; j < p_; ++j) {
      prior += q[j] * q[j];
      gw[j] = gw[j] * inv2 - q[j];
    }
    g[p_] = sr * inv2 - b;
    g[p_ + 1] = s * inv2 * inv - n * inv;
    return -0.5 * s * inv2 - n * std::log(sigma) - 0.5 * prior;
  }
  /// Resets the tape (the previous evaluation: forgotten, its memory kept) and records w, b and
  /// sigma as consecutive variables in ws.a.
  struct parameters {
    std::span<const etad::real<double>> w;
    const etad::real<double>& b;
    const etad::real<double>& sigma;
  };
  parameters record_parameters(etad_workspace& ws) const {
    ws.tape.reset();
    ws.a.resize(inputs().size());
    ws.tape.variables(inputs(), ws.a);
    return {std::span<const etad::real<double>>(ws.a.data(), p_), ws.a[p_], ws.a[p_ + 1]};
  }
  double etad_tape_scalar(etad_workspace& ws, std::span<double> g) const {
    const auto [w, b, sigma] = record_parameters(ws);
    etad::real<double> lp = 0.0;
    for (std::size_t i = 0; i < observations; ++i) {
      const std::span<const double> xi(x_.data() + i * p_, p_);
      const auto r = (y_[i] - etad::dot(w, xi) - b) / sigma;  // dot: one statement
      lp = lp - 0.5 * r * r;                                  // one statement
    }
    lp = lp - double(observations) * log(sigma) - 0.5 * etad::squared_norm(w) - 0.5 * b * b;
    ws.tape.gradient(lp, ws.a, g);
    return lp.value();
  }
  // mu = X w by etad::matvec (one statement per observation), then the likelihood by
  // etad::map_sum (one statement of n + 2 partials).
  double etad_tape_matvec(etad_workspace& ws, std::span<double> g) const {
    const auto [w, b, sigma] = record_parameters(ws);
    const std::vector<etad::real<double>> mu = etad::matvec(x_, w);
    const etad::real<double> ll = etad::map_sum(
        [](auto y, auto m, auto b, auto s) {
          const auto r = (y - m - b) / s;
          return -0.5 * r * r;
        },
        y_, mu, b, sigma);
    const etad::real<double> lp =
        ll - double(observations) * log(sigma) - 0.5 * etad::squared_norm(w) - 0.5 * b * b;
    ws.tape.gradient(lp, ws.a, g);
    return lp.value();
  }
  // etad::map_sum with rows_times(X, w): the whole likelihood as one statement of P + 2
  // partials, X w and X^T r computed row by row inside map_sum's loop (X read once, as
  // handwritten() does).
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    const auto [w, b, sigma] = record_parameters(ws);
    const etad::real<double> inv = 1.0 / sigma;
    const etad::real<double> ss = etad::map_sum(
        [](auto y, auto m, auto b, auto i) {
          const auto r = (y - m - b) * i;
          return r * r;
        },
        y_, etad::rows_times(x_, w), b, inv);
    const etad::real<double> lp =
        -0.5 * ss - double(observations) * log(sigma) - 0.5 * etad::squared_norm(w) - 0.5 * b * b;
    ws.tape.gradient(lp, ws.a, g);
    return lp.value();
  }
  template <class AD, class ValueOf>
  AD formula(std::span<const AD> q, ValueOf) const {
    using std::log;
    const AD& b = q[p_];
    const AD& sigma = q[p_ + 1];
    AD lp = 0.0;
    for (std::size_t i = 0; i < observations; ++i) {
      const double* xi = x_.data() + i * p_;
      AD mu = b;
      for (std::size_t j = 0; j < p_; ++j) mu += xi[j] * q[j];
      AD r = (y_[i] - mu) / sigma;
      lp -= 0.5 * r * r;
    }
    lp -= double(observations) * log(sigma);
    for (std::size_t j = 0; j < p_; ++j) lp -= 0.5 * q[j] * q[j];
    lp -= 0.5 * b * b;
    return lp;
  }

private:
  std::size_t p_;
  std::vector<double> x_, y_;
  std::vector<double> points_;
  std::size_t k_ = 0;
};

}  // namespace tape_bench
