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
  // On numbers the identity. On reals (the scalar of a nested tape) the value itself must be cut
  // off from the outer tape too, or a second derivative would see through the stop.
  template <class X>
  static constexpr auto value(const X& x) {
    if constexpr (expression<X>)
      return etad::apply(stop_gradient_op{}, x);
    else
      return x;
  }
};
template <operand X> constexpr auto stop_gradient(const X& x) { return etad::apply(stop_gradient_op{}, x); }

/// The rule behind grad_pass_through: value f(x), partial 1 (the identity's gradient).
template <class F>
struct pass_through_op {
  static constexpr std::string_view name = "grad_pass_through";
  static constexpr std::size_t arity = 1;
  [[no_unique_address]] F f;
  // On numbers f(x). On reals (the scalar of a nested tape) the value is itself a pass-through
  // of the outer tape, f of the outer number with partial 1, as stop_gradient's value is a stop:
  // computed as f(x) on the reals, the outer tape differentiated f itself, and a second
  // derivative saw f's slope (round: 0, std::negate: -1) instead of the identity's, where
  // TensorFlow records the pass-through on every tape.
  template <class X>
  constexpr auto value(const X& x) const {
    if constexpr (expression<X>)
      return etad::apply(*this, x);
    else
      return f(x);
  }
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
