// bench/problems/recurrence.hpp — recurrence: a long scalar recurrence whose trip count depends
// on the data (the control flow a static expression cannot have):
//   c = 1e-3 sin(x);  z = z0;  while (z < 3.5) z = z y + c;      (about 1000 iterations)
// gradient of the final z with respect to x, y, z0 (at fixed trip count). Every implementation
// computes c once, outside the loop (as anyone would write it); the loop is 2 operations.
// etad_tape records one statement per iteration (the tape's cost per scalar statement);
// etad_tape_loop and etad_static write the loop as one etad::while_loop node (forward
// accumulation inside it), on the tape and without one.
#pragma once

#include "common.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <span>

namespace tape_bench {

class recurrence_problem {
public:
  static constexpr const char* name = "recurrence";

  explicit recurrence_problem(std::size_t k_iterations) {
    for (std::size_t k = 0; k < point_count; ++k)
      points_[k] = {0.5 + 0.01 * double(k), 1.001 + 2e-6 * double(k), 1.0 + 1e-3 * double(k)};
    const double c = 1e-3 * std::sin(points_[0][0]);
    double z = points_[0][2], previous = z;
    for (std::size_t i = 0; i < k_iterations; ++i) {
      previous = z;
      z = z * points_[0][1] + c;
    }
    threshold = 0.5 * (previous + z);  // halfway: rounding cannot change the trip count
  }
  std::size_t sources() const { return 3; }
  void next() { k_ = (k_ + 1) % point_count; }
  std::span<const double> inputs() const { return points_[k_]; }
  /// Iterations at the current point.
  std::size_t trip_count() const {
    const double x = points_[k_][0], y = points_[k_][1];
    const double c = 1e-3 * std::sin(x);
    std::size_t n = 0;
    for (double z = points_[k_][2]; z < threshold; z = z * y + c) ++n;
    return n;
  }
  double scalar_ops() const { return 2.0 * double(trip_count()) + 2; }

  double value() const {
    const double x = points_[k_][0], y = points_[k_][1];
    const double c = 1e-3 * std::sin(x);
    double z = points_[k_][2];
    while (z < threshold) z = z * y + c;
    return z;
  }
  // Forward mode, three tangents: dz/dc (then times dc/dx), dz/dy, dz/dz0.
  double handwritten(std::span<double> g) const {
    const double x = points_[k_][0], y = points_[k_][1];
    const double c = 1e-3 * std::sin(x);
    double z = points_[k_][2], zc = 0, zy = 0, z0 = 1;
    while (z < threshold) {
      zy = zy * y + z;
      zc = zc * y + 1;
      z0 = z0 * y;
      z = z * y + c;
    }
    g[0] = zc * 1e-3 * std::cos(x);
    g[1] = zy;
    g[2] = z0;
    return z;
  }
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    return tape_gradient(ws, points_[k_], g, [this](const auto& x, const auto& y, const auto& z0)
                                                 __attribute__((always_inline)) {
      const etad::real<double> c = 1e-3 * sin(x);
      etad::real<double> z = z0;
      while (z.value() < threshold) z = z * y + c;
      return z;
    });
  }

  // The loop as one node, etad::while_loop: s = z0; while s < threshold: s = s y + c. Its
  // partials (ds/dz0, ds/dy, ds/dc) are accumulated forwards with the value, as the hand-written
  // gradient does; its body's gradient is derived at compile time. The trip count follows the
  // values, and the derivative is that of the iterations that ran, as in every row here.
  static constexpr auto step = [](auto s, auto y, auto c) { return s * y + c; };
  auto below_threshold() const {
    return [th = threshold](double s, double, double) { return s < th; };
  }
  // etad::gradient (compile time, no tape) of c = 1e-3 sin x and the while_loop node.
  double etad_static(std::span<double> g) const {
    return static_gradient(
        [cond = below_threshold()](auto x, auto y, auto z0) {
          return etad::while_loop(cond, step, z0, y, 1e-3 * sin(x));
        },
        points_[k_], g);
  }
  // The same node assigned to a real on the tape: two statements in all (c, and the loop with
  // 3 partials), whatever the trip count, where etad_tape records one statement per iteration.
  double etad_tape_loop(etad_workspace& ws, std::span<double> g) const {
    return tape_gradient(ws, points_[k_], g, [this](const auto& x, const auto& y, const auto& z0)
                                                 __attribute__((always_inline)) {
      const etad::real<double> c = 1e-3 * sin(x);
      return etad::real<double>(etad::while_loop(below_threshold(), step, z0, y, c));
    });
  }

  template <class AD, class ValueOf>
  AD formula(std::span<const AD> in, ValueOf value_of) const {
    using std::sin;
    const AD c = 1e-3 * sin(in[0]);
    AD z = in[2];
    while (value_of(z) < threshold) z = z * in[1] + c;
    return z;
  }

private:
  double threshold;
  std::array<std::array<double, 3>, point_count> points_;
  std::size_t k_ = 0;
};

}  // namespace tape_bench
