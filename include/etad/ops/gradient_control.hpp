// etad/ops/gradient_control.hpp — stop_gradient and grad_pass_through: ops that change how the
// gradient flows without changing the value (TensorFlow's tf.stop_gradient, tf.grad_pass_through).
#pragma once

#include <etad/core/rule.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

namespace etad {

/// stop_gradient(e): the value of e, gradient zero (no sweep enters e).
struct stop_gradient_op {
  static constexpr std::string_view name = "stop_gradient";
  static constexpr std::size_t arity = 1;
  static constexpr bool differentiable = false;
  // The identity. On a nested tape the outer tape records stop_gradient itself (the sweep applies
  // every rule to the outer reals: static/detail/sweep.hpp, outer_value), so a second derivative
  // does not see through the stop either.
  static constexpr auto value(const auto& x) { return x; }
};
template <operand X> constexpr auto stop_gradient(const X& x) { return etad::apply(stop_gradient_op{}, x); }

/// The rule behind grad_pass_through: value f(x), partial 1 (the identity's gradient).
template <class F>
struct pass_through_op {
  static constexpr std::string_view name = "grad_pass_through";
  static constexpr std::size_t arity = 1;
  [[no_unique_address]] F f;
  // f(x), called with plain numbers only: on a nested tape the outer tape records the
  // pass-through itself, f of the outer number with partial 1 (the sweep applies every rule to
  // the outer reals: static/detail/sweep.hpp, outer_value), so a second derivative sees the
  // identity's slope, not f's (round: 0, std::negate: -1), as TensorFlow, which records the
  // pass-through on every tape.
  constexpr auto value(const auto& x) const { return f(x); }
  constexpr auto partials(const auto& x, const auto&) const {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{T(1)};
  }
};

/// grad_pass_through(f)(e): the value f(e), with the gradient of e passed through unchanged, as
/// if f were the identity (f need not be differentiable, e.g. a quantizer or an assignment).
/// grad_pass_through(assign)(z * z) at z = 3 has gradient 6.
template <class F>
constexpr auto grad_pass_through(F f) {
  return [f = std::move(f)]<operand X>(const X& x) { return etad::apply(pass_through_op<F>{f}, x); };
}

}  // namespace etad
