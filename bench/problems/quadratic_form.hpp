// bench/problems/quadratic_form.hpp — quadratic_form/N: f(x) = x^T A x for a fixed N x N
// matrix A (not symmetric); gradient (A + A^T) x. etad_tape: etad::quadratic_form(A, x) over a
// variable block, one statement; etad_tape_reals: the same over a vector of reals;
// etad_tape_scalar: v = A x by one dot(row, x) statement per row, then f = dot(x, v).
#pragma once

#include "common.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace tape_bench {

class quadratic_form_problem {
public:
  static constexpr const char* name = "quadratic_form";

  explicit quadratic_form_problem(std::size_t n) : n_(n), a_(n * n), points_(point_count * n) {
    random_stream r(31);
    for (double& v : a_) v = r.uniform(-1.0, 1.0);
    for (std::size_t i = 0; i < n; ++i) points_[i] = r.uniform(-1.0, 1.0);
    for (std::size_t k = 1; k < point_count; ++k)
      for (std::size_t i = 0; i < n; ++i) points_[k * n + i] = points_[(i + k) % n];
  }
  std::size_t sources() const { return n_; }
  void next() { k_ = (k_ + 1) % point_count; }
  std::span<const double> inputs() const { return {points_.data() + k_ * n_, n_}; }
  std::span<const double> row(std::size_t i) const { return {a_.data() + i * n_, n_}; }
  // A x: N^2 *, N (N - 1) +; x . v: N *, N - 1 +.
  double scalar_ops() const { return 2.0 * double(n_) * double(n_) + double(n_) - 1; }

  double value() const {
    const double* x = inputs().data();
    double f = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const double* a = a_.data() + i * n_;
      double v = 0;
      for (std::size_t j = 0; j < n_; ++j) v += a[j] * x[j];
      f += x[i] * v;
    }
    return f;
  }
  // One pass over A: row i gives (A x)_i and adds x_i A_i. to A^T x.
  double handwritten(std::span<double> g) const {
    const double* x = inputs().data();
    double* gp = g.data();
    for (std::size_t j = 0; j < n_; ++j) gp[j] = 0;
    double f = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const double* a = a_.data() + i * n_;
      const double xi = x[i];
      double v = 0;
      for (std::size_t j = 0; j < n_; ++j) {
        v += a[j] * x[j];
        gp[j] += a[j] * xi;
      }
      gp[i] += v;
      f += xi * v;
    }
    return f;
  }
  double etad_tape_scalar(etad_workspace& ws, std::span<double> g) const {
    auto& t = ws.tape;
    t.reset();  // the previous evaluation: forgotten, its memory kept
    ws.a.resize(inputs().size());
    t.variables(inputs(), ws.a);
    ws.b.clear();
    for (std::size_t i = 0; i < n_; ++i) ws.b.push_back(etad::dot(ws.a, row(i)));
    const etad::real<double> f = etad::dot(ws.a, ws.b);
    t.gradient(f, ws.a, g);
    return f.value();
  }
  // etad::quadratic_form: one statement of N partials ((A + A^T) x, from contiguous loops), over
  // a variable block (etad_tape) or a vector of reals (etad_tape_reals).
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    auto& t = ws.tape;
    t.reset();
    const auto x = t.variable_block(inputs());
    const etad::real<double> f = etad::quadratic_form(a_, x);
    t.gradient(f, x, g);
    return f.value();
  }
  double etad_tape_reals(etad_workspace& ws, std::span<double> g) const {
    auto& t = ws.tape;
    t.reset();
    ws.a.resize(inputs().size());
    t.variables(inputs(), ws.a);
    const etad::real<double> f = etad::quadratic_form(a_, ws.a);
    t.gradient(f, ws.a, g);
    return f.value();
  }
  template <class AD, class ValueOf>
  AD formula(std::span<const AD> x, ValueOf) const {
    AD f = 0.0;
    for (std::size_t i = 0; i < n_; ++i) {
      const double* a = a_.data() + i * n_;
      AD v = 0.0;
      for (std::size_t j = 0; j < n_; ++j) v += a[j] * x[j];
      f += x[i] * v;
    }
    return f;
  }

private:
  std::size_t n_;
  std::vector<double> a_;
  std::vector<double> points_;
  std::size_t k_ = 0;
};

}  // namespace tape_bench
