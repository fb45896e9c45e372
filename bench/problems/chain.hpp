// bench/problems/chain.hpp — chain/K: K iterations, starting from t = x, of
//   tt = t * t
//   t  = sin(t) cos(y t) + exp(-z tt) / (1 + x tt) + 0.5 sqrt(y z + tt)
// (17 scalar operations per iteration); gradient with respect to x, y, z. etad_tape records one
// statement of 4 partials per iteration (etad::call of the body as a static function of t, x,
// y, z); etad_tape_scalar, as the peers' source reads, two statements per iteration, of 1 and 5
// partials: repeated inputs are merged (t * t is one partial 2t; the long statement's 10 leaf
// occurrences are 5 reals).
#pragma once

#include "common.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <span>

namespace tape_bench {

class chain_problem {
public:
  static constexpr const char* name = "chain";

  explicit chain_problem(std::size_t k) : k_(k) {
    for (std::size_t j = 0; j < point_count; ++j)
      points_[j] = {0.6 + 0.01 * double(j), 0.7 + 0.015 * double(j), 0.9 - 0.01 * double(j)};
  }
  std::size_t sources() const { return 3; }
  void next() { p_ = (p_ + 1) % point_count; }
  std::span<const double> inputs() const { return points_[p_]; }
  double scalar_ops() const { return 17.0 * double(k_); }

  double value() const {
    const double x = points_[p_][0], y = points_[p_][1], z = points_[p_][2];
    double t = x;
    for (std::size_t i = 0; i < k_; ++i) {
      const double tt = t * t;
      t = std::sin(t) * std::cos(y * t) + std::exp(-z * tt) / (1 + x * tt) + 0.5 * std::sqrt(y * z + tt);
    }
    return t;
  }

  // Forward mode with three tangents (the cheapest exact scheme for 3 inputs): each iteration
  // takes the local partials of the body with respect to t, x, y, z, then
  // T' = (df/dt) T + df/d(input) for each input.
  double handwritten(std::span<double> g) const {
    const double x = points_[p_][0], y = points_[p_][1], z = points_[p_][2];
    double t = x, tx = 1, ty = 0, tz = 0;
    for (std::size_t i = 0; i < k_; ++i) {
      const double tt = t * t;
      const double s = std::sin(t), c = std::cos(t);
      const double u = y * t;
      const double su = std::sin(u), cu = std::cos(u);
      const double e = std::exp(-z * tt);
      const double id = 1 / (1 + x * tt);
      const double q = std::sqrt(y * z + tt);
      const double iq4 = 0.25 / q;
      const double ed = e * id;
      const double ssu = s * su;
      const double f_tt = -ed * (z + x * id) + iq4;  // d/dtt of exp(-z tt)/(1 + x tt) + 0.5 q
      const double f_t = c * cu - ssu * y + 2 * t * f_tt;
      const double f_x = -ed * tt * id;
      const double f_y = -ssu * t + z * iq4;
      const double f_z = -tt * ed + y * iq4;
      t = s * cu + ed + 0.5 * q;
      tx = f_t * tx + f_x;
      ty = f_t * ty + f_y;
      tz = f_t * tz + f_z;
    }
    g[0] = tx;
    g[1] = ty;
    g[2] = tz;
    return t;
  }

  // The body as a generic function of (t, x, y, z), for etad::loop and etad::call.
  static constexpr auto step = [](auto t, auto x, auto y, auto z) {
    const auto tt = t * t;
    return sin(t) * cos(y * t) + exp(-z * tt) / (1 + x * tt) + 0.5 * sqrt(y * z + tt);
  };

  // etad::gradient (compile time, no tape) of etad::loop: the body's gradient is derived at
  // compile time, and the loop accumulates the partials of t with respect to its initial value
  // and parameters forwards, as the hand-written gradient does. (The whole chain is not one
  // static expression: its tree would grow like 8^K.)
  double etad_static(std::span<double> g) const {
    return static_gradient(
        [k = k_](auto x, auto y, auto z) { return etad::loop(k, step, x, x, y, z); },
        points_[p_], g);
  }

  // One statement per iteration: etad::call records the body as one statement whose 4 partials
  // (t, x, y, z) are its gradient, derived at compile time.
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    const auto iterate = [this](const auto& x, const auto& y, const auto& z)
                             __attribute__((always_inline)) {
      etad::real<double> t = x;
      for (std::size_t i = 0; i < k_; ++i) t = etad::call(step, t, x, y, z);
      return t;
    };
    return tape_gradient(ws, points_[p_], g, iterate);
  }
  // Two statements per iteration: each assignment of an expression to a real (tt = t * t, one
  // partial; t = ..., 5 partials once repeated inputs are merged), as the peers' source reads.
  double etad_tape_scalar(etad_workspace& ws, std::span<double> g) const {
    const auto iterate = [this](const auto& x, const auto& y, const auto& z)
                             __attribute__((always_inline)) {
      return body<etad::real<double>>(x, y, z);
    };
    return tape_gradient(ws, points_[p_], g, iterate);
  }

  template <class AD, class ValueOf>
  AD formula(std::span<const AD> in, ValueOf) const {
    return body<AD>(in[0], in[1], in[2]);
  }

private:
  // The same source for etad::real and the scalar AD peers: with etad::real each assignment is
  // one statement; with the peers each operator is recorded.
  template <class AD>
  AD body(const AD& x, const AD& y, const AD& z) const {
    using std::sin, std::cos, std::exp, std::sqrt;
    AD t = x;
    for (std::size_t i = 0; i < k_; ++i) {
      AD tt = t * t;
      t = sin(t) * cos(y * t) + exp(-z * tt) / (1.0 + x * tt) + 0.5 * sqrt(y * z + tt);
    }
    return t;
  }

  std::size_t k_;
  std::array<std::array<double, 3>, point_count> points_;
  std::size_t p_ = 0;
};

}  // namespace tape_bench
