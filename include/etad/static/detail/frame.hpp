// etad/static/detail/frame.hpp — what the static sweeps store per node: a value and the
// children's frames (a frame mirrors the tree), and the partials a node keeps from its forward
// sweep (a fused rule's, and those taken early).
#pragma once

#include <etad/core/detail/expand.hpp>
#include <etad/core/detail/flat_tuple.hpp>
#include <etad/core/expression.hpp>
#include <etad/core/rule.hpp>

#include <array>
#include <cstddef>

namespace etad::detail {

/// The type of an expression's value when the inputs are S: bool for comparisons and for bool
/// constants (a condition written as true or as `x < 1 && flag`), else S.
template <class E, class S>
struct value_type_of {
  using type = S;
};
template <class S>
struct value_type_of<constant<bool>, S> {
  using type = bool;
};
template <class Op, class... C, class S>
  requires is_predicate_v<Op>
struct value_type_of<node<Op, C...>, S> {
  using type = bool;
};
template <class E, class S>
using value_t = typename value_type_of<E, S>::type;

/// What a sweep stores for one occurrence of E: nothing for leaves and shared nodes (their
/// values live in the inputs, the expression, or a slot), the value and the children's frames for
/// other nodes.
template <class E, class S>
struct frame;

/// The frames of a node's children, side by side.
template <class E, class S>
struct kids_of;
template <class Op, class... C, class S>
struct kids_of<node<Op, C...>, S> {
  using type = flat_tuple<frame<C, S>...>;
};

/// What a sweep stores for one occurrence of E: nothing for leaves and shared nodes (their
/// values live in the inputs, the expression, or a slot), the value and the children's frames for
/// other nodes.
template <class E, class S>
struct frame {};

/// The most arguments a rule may have for its partials to be taken early (early_partials_v).
inline constexpr std::size_t early_partials_max_arity = 4;

/// Whether a node of rule Op with Arity children takes its partials early: the forward sweep of
/// a static front door computes them right after the node's value (just before it, for a rule
/// whose partials do not read the value: partials_need_value_v) and keeps them for the reverse
/// or tangent sweep, as a hand-written gradient computes `1 / (1 + x*x)` where it has the
/// operands rather than after everything else. The numbers are the same; what changes is where
/// the work stands: a division or a transcendental partial taken before the next call (exp,
/// log, sincos) runs while that call runs instead of waiting at the end of the gradient, and the
/// compilers do not move arithmetic across calls themselves (docs/performance.md, "Partials
/// taken early"). Not for: product rules (their partials are their operands, and a tree of them
/// is swept by product_plan); gated rules; rules without a gradient; fused rules (which keep
/// their partials anyway); nodes of more than early_partials_max_arity children (a wide sum's
/// partials are constants: an array of them per node would only cost compile time); nested
/// tapes (there a partial is an outer statement, recorded only where an adjoint arrives). Where:
/// in the static front doors (Key::early_partials), not in tape statements (roots_key), whose
/// reverse sweep follows the forward sweep at once and only when a tape records; not below a
/// gate or a rule without a gradient (sweep::forward); in shared slots only with clang and in
/// programs without such rules (early_slot_partials).
template <class Op, std::size_t Arity, class S>
inline constexpr bool early_partials_v =
    !is_fused_v<Op> && !is_gated_v<Op> && !is_product_v<Op> && is_differentiable_v<Op> &&
    Arity <= early_partials_max_arity && !expression<S>;

/// Whether shared slots may take their partials early too. The slots are all computed first,
/// ahead of the tree, so their partials taken early are held across every later call: with
/// clang that paid (it calls sin and cos apart, and cos(x y), the partial of a slot sin(x y),
/// was otherwise the gradient's last call); g++ calls sincos for the pair anyway, and lost time
/// holding the slots' divisions across the calls (docs/performance.md, "Partials taken early").
#if defined(__clang__)
inline constexpr bool early_slot_partials = true;
#else
inline constexpr bool early_slot_partials = false;
#endif

/// Whether every edge of E passes its adjoint on unconditionally: no gated rule and no rule
/// without a gradient in E. A slot of a program where this does not hold may be reached by no
/// adjoint, and takes no partials early (the slots are computed whatever the path).
template <class E>
inline constexpr bool all_edges_open_v = true;
template <class Op, class... C>
inline constexpr bool all_edges_open_v<node<Op, C...>> =
    !is_gated_v<Op> && is_differentiable_v<Op> && all_v<all_edges_open_v<C>...>;

/// The partials a node keeps from its forward sweep: a fused rule's (computed with its value)
/// and those taken early (early_partials_v); nothing for other rules. (A tape statement's
/// frames have the room too, unused: a frame's type does not know its sweep.)
template <class Op, std::size_t Arity, class S>
struct kept_partials {};
template <class Op, std::size_t Arity, class S>
  requires(is_fused_v<Op> || early_partials_v<Op, Arity, S>)
struct kept_partials<Op, Arity, S> {
  std::array<S, Arity> p{};
};
/// What a slot keeps when it takes no partials early.
struct no_partials {};

template <class Op, class... C, class S>
  requires(!node<Op, C...>::input_only)
struct frame<node<Op, C...>, S> {
  value_t<node<Op, C...>, S> v{};
  typename kids_of<node<Op, C...>, S>::type kids{};
  [[no_unique_address]] kept_partials<Op, sizeof...(C), S> kept{};
};

/// An active leaf's frame accumulates the adjoint of that one occurrence. It starts at -0.0, the
/// identity of +, so the first contribution compiles to a move.
template <class L, class S>
  requires is_active_leaf_v<L>
struct frame<L, S> {
  mutable S adjoint = -S(0);
};

template <class F>
inline constexpr F empty_frame{};

// Below a shared (input-only) node every frame is empty: this stands in for its children's.
template <class E, class S>
inline constexpr typename kids_of<E, S>::type empty_kids{};

}  // namespace etad::detail
