// etad/core/expression.hpp — what an expression is: leaves (placeholders and constants) and
// node<Op, Children...>. Types only; evaluating and differentiating them lives in static/.
#pragma once

#include <etad/core/detail/expand.hpp>
#include <etad/core/detail/flat_tuple.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace etad {

/// An expression type says so with a nested tag `etad_expression`, and tells whether its value
/// depends on the inputs alone (`input_only`): such subexpressions are identical whenever their
/// types are, so the static sweep computes each of them once (common subexpression sharing).
template <class T>
concept expression = requires {
  typename std::remove_cvref_t<T>::etad_expression;
  { std::remove_cvref_t<T>::input_only } -> std::convertible_to<bool>;
};

/// A plain number that may appear in an expression as a constant.
template <class T>
concept arithmetic = std::is_arithmetic_v<std::remove_cvref_t<T>> &&
                     !std::is_same_v<std::remove_cvref_t<T>, bool>;

/// Anything an op accepts: an expression, or a number (which becomes a constant).
template <class T>
concept operand = expression<T> || arithmetic<T>;

namespace detail {
/// Two operands of which at least one is an expression: what etad's operators accept.
template <class A, class B>
concept mixed_operands = operand<A> && operand<B> && (expression<A> || expression<B>);
}  // namespace detail

/// arg<I>: the I-th argument of a function being differentiated. An empty tag: its value comes
/// from the point at which the sweep is run.
template <std::size_t I>
struct arg {
  using etad_expression = void;
  static constexpr bool input_only = true;
  static constexpr std::size_t index = I;
};

/// constant<T>: a run-time number inside an expression; its gradient is zero. Held by value.
template <class T>
struct constant {
  using etad_expression = void;
  static constexpr bool input_only = false;  // two constants of one type may differ in value
  T value;
};

namespace detail {
/// Tag of node's constructor that builds a node from another node's children plus one more.
struct append_t {
  explicit append_t() = default;
};
inline constexpr append_t append{};
}  // namespace detail

/// node<Op, Children...>: Op applied to its children, held by value, so `auto e = x * y;` never
/// dangles. Op is a rule struct (see core/rule.hpp); stateless rules take no space.
template <class Op, class... Children>
struct [[nodiscard]] node : private detail::flat_leaf<0, Op> {
  using etad_expression = void;
  using op_type = Op;
  using children_types = boost::mp11::mp_list<Children...>;
  static constexpr std::size_t arity = sizeof...(Children);
  static constexpr bool input_only =
      std::is_empty_v<Op> && detail::all_v<std::remove_cvref_t<Children>::input_only...>;

  detail::flat_tuple<Children...> children;

  constexpr node() = default;
  constexpr node(const Op& o, const Children&... c) : detail::flat_leaf<0, Op>{o}, children{c...} {}
  /// The children of `prev` (a one-level tuple) and then `last`: how `+` extends a sum. The
  /// children are copied here, so that the only functions instantiated per `+` are the operator
  /// and this constructor (each names the whole sum so far, and g++ spends time cubic in a
  /// name's distinct parts over a chain: see docs/compile-time.md).
  template <std::size_t... J, class... Q, class Last>
  constexpr node(detail::append_t, const Op& o,
                 const detail::flat_tuple_impl<std::index_sequence<J...>, Q...>& prev,
                 const Last& last)
      : detail::flat_leaf<0, Op>{o},
        children{static_cast<const detail::flat_leaf<J, Q>&>(prev)..., last} {}
  // User-provided on purpose: a trivially copyable prvalue may be built in a temporary and
  // block-copied, which g++ did for sums of several terms (a store-forwarding stall per copy); a
  // non-trivial one is built in place. It also made clang compile a 100-term sum 4x faster.
  // An input-only node has no state (its rule is empty, its leaves are placeholders), so its copy
  // copies nothing and leaves its children default-built: copying every node below it, one call
  // each, made a chain of `+` of stateless terms (which copies the sum so far at every `+`)
  // quadratic for g++ to inline: 35 s to build a 500-term chain, 3.7 s this way.
  // (Tried: a defaulted copy of input-only nodes. It made the nodes with state above them 4x
  // slower to differentiate with either compiler and g++ twice as slow to compile them.)
  constexpr node(const node& o)
    requires(!input_only)
      : detail::flat_leaf<0, Op>{o.op()}, children(o.children) {}
  constexpr node(const node&) noexcept
    requires input_only
      : detail::flat_leaf<0, Op>{} {}
  constexpr node& operator=(const node&) = default;

  /// The rule (with its parameters, if it has any).
  constexpr const Op& op() const noexcept { return this->ref(); }

  /// A comparison whose leaves carry values (reals, numbers) converts to bool, so that
  /// `if (x < y)` and `while (z < 100)` work on reals. evaluate() is found by argument-dependent
  /// lookup when this is used (it lives in static/evaluate.hpp, included by etad.hpp).
  constexpr explicit operator bool() const
    requires requires { requires bool(Op::predicate); }
  {
    return evaluate(*this);
  }
};

namespace detail {
template <class E, std::size_t I>
using child_t_of = type_at_t<typename E::children_types, I>;
}  // namespace detail

template <class T>
inline constexpr bool is_node_v = false;
template <class Op, class... C>
inline constexpr bool is_node_v<node<Op, C...>> = true;

/// An active leaf carries a run-time value and takes part in differentiation through its own
/// identity (a tape handle, for instance): it says so with `static constexpr bool active_leaf`
/// and exposes `value()`. The static sweep keeps one adjoint per occurrence of such a leaf.
template <class T>
inline constexpr bool is_active_leaf_v = requires { requires bool(T::active_leaf); };

template <class T>
inline constexpr bool is_arg_v = false;
template <std::size_t I>
inline constexpr bool is_arg_v<arg<I>> = true;

/// as_expression(x): an expression unchanged, a number wrapped in constant<>.
template <operand T>
constexpr auto as_expression(const T& x) {
  if constexpr (expression<T>)
    return x;
  else
    return constant<std::remove_cvref_t<T>>{x};
}

template <class T>
using as_expression_t = decltype(as_expression(std::declval<const T&>()));

}  // namespace etad
