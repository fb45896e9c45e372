// bench/problems/reductions.hpp — sum/N, prod/N, log_sum_exp/N: one reduction over N inputs,
// gradient with respect to all N. etad_tape uses etad's reduction over a variable block (one
// statement of N partials); etad_tape_reals the same reduction over a vector of N reals;
// etad_tape_scalar writes the loop element by element (N - 1 statements of 2 partials), as one
// would with a tape that has no reductions. etad_static<N> (sizes fixed at compile time, see
// static_sizes_of in all.hpp) is etad::gradient over a std::array: the reduction of a pack of N
// placeholders, differentiated at compile time, no tape.
#pragma once

#include "common.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace tape_bench {

/// The inputs of a reduction problem: N numbers in [lo, hi), and point_count rotations of them
/// (other inputs, the same statistics: a product of 10^4 of them does not drift away).
class vector_input {
public:
  vector_input(std::size_t n, std::uint64_t seed, double lo, double hi) : n_(n) {
    random_stream r(seed);
    points_.resize(point_count * n);
    for (std::size_t i = 0; i < n; ++i) points_[i] = r.uniform(lo, hi);
    for (std::size_t k = 1; k < point_count; ++k)
      for (std::size_t i = 0; i < n; ++i) points_[k * n + i] = points_[(i + k) % n];
  }
  std::size_t sources() const { return n_; }
  void next() { k_ = (k_ + 1) % point_count; }
  std::span<const double> inputs() const { return {points_.data() + k_ * n_, n_}; }
  /// Which of the point_count points inputs() is (the index that next() moves on).
  std::size_t point() const { return k_; }
  /// The point_count points as arrays of a size fixed at compile time, N == sources(): what
  /// etad_static<N> takes (etad::gradient over a std::array), indexed by point().
  template <std::size_t N>
  std::array<std::array<double, N>, point_count> fixed_points() const {
    std::array<std::array<double, N>, point_count> a;
    for (std::size_t k = 0; k < point_count; ++k)
      std::copy_n(points_.begin() + std::ptrdiff_t(k * n_), N, a[k].begin());
    return a;
  }

protected:
  std::size_t n_;
  std::size_t k_ = 0;
  std::vector<double> points_;
};

/// Resets the tape (forgetting the previous evaluation, keeping its memory), then records the
/// current point as variables into ws.a (refilled, not reallocated).
inline std::span<const etad::real<double>> record_variables(etad_workspace& ws,
                                                           std::span<const double> x) {
  ws.tape.reset();
  ws.a.resize(x.size());
  ws.tape.variables(x, ws.a);
  return ws.a;
}

/// Resets the tape, then records the current point as one variable block (the tape keeps the
/// values; no real is written per input).
inline etad::variable_block<double> record_block(etad_workspace& ws, std::span<const double> x) {
  ws.tape.reset();
  return ws.tape.variable_block(x);
}

/// Gradient of target with respect to every real of ws.a into g (etad's allocation-free
/// many-source gradient). Returns the value.
inline double gradient_of(etad_workspace& ws, const etad::real<double>& target,
                          std::span<double> g) {
  ws.tape.gradient(target, ws.a, g);
  return target.value();
}

/// The same through gradients(), which returns a freshly allocated vector<optional<double>>: what
/// the allocation-free gradient saves.
inline double gradients_of(etad_workspace& ws, const etad::real<double>& target,
                           std::span<double> g) {
  const etad::real<double> targets[] = {target};
  copy_gradients(ws.tape.gradients(targets, ws.a, {.unconnected_gradients = etad::unconnected::zero}), g);
  return target.value();
}

// --- sum ----------------------------------------------------------------------------------------
class sum_problem : public vector_input {
public:
  static constexpr const char* name = "sum";
  explicit sum_problem(std::size_t n) : vector_input(n, 11, -1.0, 1.0) {}
  double scalar_ops() const { return double(n_) - 1; }

  double value() const {
    const auto x = inputs();
    double s = 0;
    for (double v : x) s += v;
    return s;
  }
  double handwritten(std::span<double> g) const {
    std::fill(g.begin(), g.end(), 1.0);
    return value();
  }
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    const auto x = record_block(ws, inputs());
    etad::real<double> s = etad::sum(x);
    ws.tape.gradient(s, x, g);
    return s.value();
  }
  double etad_tape_reals(etad_workspace& ws, std::span<double> g) const {
    etad::real<double> s = etad::sum(record_variables(ws, inputs()));
    return gradient_of(ws, s, g);
  }
  double etad_tape_gradients(etad_workspace& ws, std::span<double> g) const {
    etad::real<double> s = etad::sum(record_variables(ws, inputs()));
    return gradients_of(ws, s, g);
  }
  template <std::size_t N>
  static auto etad_static(const std::array<double, N>& x) {
    return etad::gradient([](const auto& v) { return sum(v); }, x);
  }
  double etad_tape_scalar(etad_workspace& ws, std::span<double> g) const {
    const auto x = record_variables(ws, inputs());
    etad::real<double> s = x[0];
    for (std::size_t i = 1; i < x.size(); ++i) s = s + x[i];
    return gradient_of(ws, s, g);
  }
  template <class AD, class ValueOf>
  AD formula(std::span<const AD> x, ValueOf) const {
    AD s = x[0];
    for (std::size_t i = 1; i < x.size(); ++i) s += x[i];
    return s;
  }
};

// --- prod ---------------------------------------------------------------------------------------
// Inputs in [0.95, 1.05): the product of 10^4 of them stays far from overflow and underflow.
class prod_problem : public vector_input {
public:
  static constexpr const char* name = "prod";
  explicit prod_problem(std::size_t n) : vector_input(n, 12, 0.95, 1.05) {}
  double scalar_ops() const { return double(n_) - 1; }

  double value() const {
    const auto x = inputs();
    double p = 1;
    for (double v : x) p *= v;
    return p;
  }
  // Prefix products forwards, suffix products backwards: no division, exact at zeros.
  double handwritten(std::span<double> g) const {
    const auto x = inputs();
    double prefix = 1;
    for (std::size_t i = 0; i < x.size(); ++i) {
      g[i] = prefix;
      prefix *= x[i];
    }
    double suffix = 1;
    for (std::size_t i = x.size(); i-- > 0;) {
      g[i] *= suffix;
      suffix *= x[i];
    }
    return prefix;
  }
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    const auto x = record_block(ws, inputs());
    etad::real<double> p = etad::prod(x);
    ws.tape.gradient(p, x, g);
    return p.value();
  }
  double etad_tape_reals(etad_workspace& ws, std::span<double> g) const {
    etad::real<double> p = etad::prod(record_variables(ws, inputs()));
    return gradient_of(ws, p, g);
  }
  template <std::size_t N>
  static auto etad_static(const std::array<double, N>& x) {
    return etad::gradient([](const auto& v) { return prod(v); }, x);
  }
  double etad_tape_scalar(etad_workspace& ws, std::span<double> g) const {
    const auto x = record_variables(ws, inputs());
    etad::real<double> p = x[0];
    for (std::size_t i = 1; i < x.size(); ++i) p = p * x[i];
    return gradient_of(ws, p, g);
  }
  template <class AD, class ValueOf>
  AD formula(std::span<const AD> x, ValueOf) const {
    AD p = x[0];
    for (std::size_t i = 1; i < x.size(); ++i) p *= x[i];
    return p;
  }
};

// --- log_sum_exp --------------------------------------------------------------------------------
// log sum_i exp(x_i), computed around m = max x_i. The scalar formulations take m from the
// numbers (a constant shift: the function, hence its gradient, does not depend on it).
class log_sum_exp_problem : public vector_input {
public:
  static constexpr const char* name = "log_sum_exp";
  explicit log_sum_exp_problem(std::size_t n) : vector_input(n, 13, -2.0, 2.0) {}
  double scalar_ops() const { return 2.0 * double(n_); }  // n exp, n - 1 +, 1 log

  double max_input() const {
    const auto x = inputs();
    return *std::max_element(x.begin(), x.end());
  }
  double value() const {
    const auto x = inputs();
    const double m = max_input();
    double s = 0;
    for (double v : x) s += std::exp(v - m);
    return m + std::log(s);
  }
  // The gradient is softmax(x): each exp once, kept in g, then scaled.
  double handwritten(std::span<double> g) const {
    const auto x = inputs();
    const double m = max_input();
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      g[i] = std::exp(x[i] - m);
      s += g[i];
    }
    const double inv = 1 / s;
    for (double& gi : g) gi *= inv;
    return m + std::log(s);
  }
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    const auto x = record_block(ws, inputs());
    etad::real<double> r = etad::log_sum_exp(x);
    ws.tape.gradient(r, x, g);
    return r.value();
  }
  double etad_tape_reals(etad_workspace& ws, std::span<double> g) const {
    etad::real<double> r = etad::log_sum_exp(record_variables(ws, inputs()));
    return gradient_of(ws, r, g);
  }
  template <std::size_t N>
  static auto etad_static(const std::array<double, N>& x) {
    return etad::gradient([](const auto& v) { return log_sum_exp(v); }, x);
  }
  double etad_tape_scalar(etad_workspace& ws, std::span<double> g) const {
    const auto x = record_variables(ws, inputs());
    const double m = max_input();
    etad::real<double> s = exp(x[0] - m);
    for (std::size_t i = 1; i < x.size(); ++i) s = s + exp(x[i] - m);
    etad::real<double> r = m + log(s);
    return gradient_of(ws, r, g);
  }
  template <class AD, class ValueOf>
  AD formula(std::span<const AD> x, ValueOf) const {
    using std::exp, std::log;
    const double m = max_input();
    AD s = exp(x[0] - m);
    for (std::size_t i = 1; i < x.size(); ++i) s += exp(x[i] - m);
    return m + log(s);
  }
};

}  // namespace tape_bench
