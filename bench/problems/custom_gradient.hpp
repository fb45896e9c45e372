// bench/problems/custom_gradient.hpp — custom_gradient/N: sum_i log1pexp(x_i) over N inputs in
// [-5, 5), gradient with respect to all N, log1pexp written as a compile-time rule (etad_rule: an
// op struct through etad::op_fn, one statement per element) or as a run-time custom gradient
// (etad_runtime: etad::custom_gradient, one callback entry per element, owning its closure).
#pragma once

#include "common.hpp"
#include "reductions.hpp"

#include <etad/custom/custom_gradient.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

namespace tape_bench {

/// log(1 + e^x), as examples/custom_gradient.cpp writes it: the value without overflow, and
/// d/dx = 1 - 1/(1 + e^x) (1, not inf/inf, once e^x overflows).
struct log1pexp_op {
  static constexpr std::string_view name = "log1pexp";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) {
    using std::exp, std::log1p;
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
  }
  static constexpr auto partials(const auto& x, const auto& /*f*/) {
    using std::exp;
    return std::array{1 - 1 / (1 + exp(x))};
  }
};
inline constexpr etad::op_fn<log1pexp_op> log1pexp{};

/// The same function as a run-time custom gradient, as TensorFlow writes it: the value by the
/// rule's formula, and a gradient function that keeps e^x.
inline const auto log1pexp_runtime = etad::custom_gradient([](const etad::real<>& x) {
  const double e = std::exp(x.value());
  const double y = log1pexp_op::value(x.value());
  return std::pair{y, [e](double dy) { return dy * (1 - 1 / (1 + e)); }};
});

class custom_gradient_problem : public vector_input {
public:
  static constexpr const char* name = "custom_gradient";

  explicit custom_gradient_problem(std::size_t n) : vector_input(n, 0x10C1E, -5.0, 5.0) {}

  /// A plain loop: the value by the rule's formula, the derivative 1 - 1/(1 + e^x).
  double handwritten(std::span<double> g) const {
    const std::span<const double> x = inputs();
    double s = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      s += log1pexp_op::value(x[i]);
      g[i] = 1 - 1 / (1 + std::exp(x[i]));
    }
    return s;
  }

  /// One rule statement per element (ws.b[i] = log1pexp(x_i)), then one sum statement.
  double etad_rule(etad_workspace& ws, std::span<double> g) const {
    const std::span<const etad::real<>> x = record_variables(ws, inputs());
    ws.b.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) ws.b[i] = log1pexp(x[i]);
    return gradient_of(ws, etad::sum(ws.b), g);
  }

  /// One custom_gradient entry per element, then one sum statement.
  double etad_runtime(etad_workspace& ws, std::span<double> g) const {
    const std::span<const etad::real<>> x = record_variables(ws, inputs());
    ws.b.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) ws.b[i] = log1pexp_runtime(x[i]);
    return gradient_of(ws, etad::sum(ws.b), g);
  }
};

}  // namespace tape_bench
