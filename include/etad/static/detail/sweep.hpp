// etad/static/detail/sweep.hpp — the compile-time sweeps over an expression type.
// Storage is laid out by the type: shared (input-only) subexpressions get slots, computed once
// in post-order; every other node keeps its value in a frame mirroring the tree. Forward, reverse
// and tangent sweeps are unrolled by the compiler: no tape, no heap, no virtual call.
#pragma once

#include <etad/core/expression.hpp>
#include <etad/core/rule.hpp>
#include <etad/static/detail/shared.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace etad::detail {

/// The type of an expression's value when the inputs are S: bool for comparisons, else S.
template <class E, class S>
struct value_type_of {
  using type = S;
};
template <class Op, class... C, class S>
  requires is_predicate_v<Op>
struct value_type_of<node<Op, C...>, S> {
  using type = bool;
};
template <class E, class S>
using value_t = typename value_type_of<E, S>::type;

template <class E, std::size_t I>
using child_t = child_t_of<E, I>;  // core/expression.hpp's, under the sweep's shorter name

/// What a sweep stores for one occurrence of E: nothing for leaves and shared nodes (their
/// values live in the inputs, the expression, or a slot), the value and the children's frames for
/// other nodes.
template <class E, class S>
struct frame {};

template <class Op, class... C, class S>
  requires(!node<Op, C...>::input_only)
struct frame<node<Op, C...>, S> {
  value_t<node<Op, C...>, S> v{};
  flat_tuple<frame<C, S>...> kids{};
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

template <class S, std::size_t N, class Shared>
struct sweep;

/// A sweep at one point: inputs x, input adjoints grad, input tangents dx, and per shared slot a
/// value, an adjoint, a reached flag and a tangent.
template <class S, std::size_t N, class... Sh>
struct sweep<S, N, boost::mp11::mp_list<Sh...>> {
  static constexpr std::size_t slots = sizeof...(Sh);
  using slot_list = boost::mp11::mp_list<Sh...>;
  template <class E>
  static constexpr std::size_t slot = slot_of<E, slot_list>::value;

  std::array<S, N> x{};
  std::array<S, N> grad{};
  std::array<S, N> dx{};
  flat_tuple<value_t<Sh, S>...> slot_value{};
  // Adjoints start at -0.0, the identity of +: the first contribution then compiles to a move.
  std::array<S, slots> slot_adjoint = filled(-S(0));
  // A slot below a gated edge (select, min, ...) may get no contribution: it must then push
  // nothing, not 0 * partial, which is NaN when the partial is infinite. For ungated expressions
  // every flag is a compile-time true after inlining and the test disappears.
  std::array<bool, slots> reached{};
  std::array<S, slots> slot_tangent{};

  static constexpr std::array<S, slots> filled(S v) {
    std::array<S, slots> a{};
    for (auto& e : a) e = v;
    return a;
  }

  // --- frames of children -------------------------------------------------------------------
  template <std::size_t I, class E>
  static constexpr const auto& kid(const frame<E, S>& fr) {
    if constexpr (E::input_only)
      return empty_frame<frame<child_t<E, I>, S>>;
    else
      return get<I>(fr.kids);
  }

  // --- values -------------------------------------------------------------------------------
  /// The value of e once its forward sweep has run.
  template <class E>
  constexpr value_t<E, S> value(const E& e, const frame<E, S>& fr) const {
    if constexpr (is_arg_v<E>)
      return x[E::index];
    else if constexpr (is_active_leaf_v<E>)
      return e.value();
    else if constexpr (!is_node_v<E>)
      return static_cast<S>(e.value);
    else if constexpr (E::input_only)
      return get<slot<E>>(slot_value);
    else
      return fr.v;
  }

  constexpr void forward_slots() {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((get<K>(slot_value) = node_value(Sh{}, empty_frame<frame<Sh, S>>)), ...);
    }(std::make_index_sequence<slots>{});
  }

  template <class E>
  constexpr value_t<E, S> node_value(const E& e, const frame<E, S>& fr) const {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return static_cast<value_t<E, S>>(e.op().value(value(get<I>(e.children), kid<I>(fr))...));
    }(std::make_index_sequence<E::arity>{});
  }

  /// Forward sweep of a tree: slots must have been computed (forward_slots) first.
  template <class E>
  constexpr value_t<E, S> forward(const E& e, frame<E, S>& fr) {
    if constexpr (is_node_v<E> && !E::input_only) {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (forward(get<I>(e.children), get<I>(fr.kids)), ...);
      }(std::make_index_sequence<E::arity>{});
      fr.v = node_value(e, fr);
    }
    return value(e, fr);
  }

  // --- reverse ------------------------------------------------------------------------------
  template <class E, class F>
  constexpr void for_each_partial(const E& e, const frame<E, S>& fr, F&& f) const {
    using Op = typename E::op_type;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      constexpr bool has_partials = requires {
        e.op().partials(value(get<I>(e.children), kid<I>(fr))..., value(e, fr));
      };
      static_assert(has_partials,
                    "etad: a differentiable rule has no partials() callable with its argument "
                    "values and its value f; define partials(args..., f) returning one partial "
                    "per argument, or declare `static constexpr bool differentiable = false;`");
      if constexpr (!has_partials) return;  // the assertion said it all; avoid follow-on errors
      else {
      const auto p = e.op().partials(value(get<I>(e.children), kid<I>(fr))..., value(e, fr));
      check_partials<Op, E::arity, decltype(p)>();
      if constexpr (is_gated_v<Op>) {
        const auto g = e.op().gate(value(get<I>(e.children), kid<I>(fr))..., value(e, fr));
        check_gate<Op, E::arity, decltype(g)>();
        ((g[I] ? f(get<I>(e.children), kid<I>(fr), static_cast<S>(std::get<I>(p))) : void()), ...);
      } else {
        (f(get<I>(e.children), kid<I>(fr), static_cast<S>(std::get<I>(p))), ...);
      }
      }
    }(std::make_index_sequence<E::arity>{});
  }

  /// Adds adj * d(e)/d(inputs) into grad (or into the slots that e reaches).
  template <class E>
  constexpr void backward(const E& e, const frame<E, S>& fr, const S& adj) {
    if constexpr (is_arg_v<E>) {
      grad[E::index] += adj;
    } else if constexpr (is_active_leaf_v<E>) {
      fr.adjoint += adj;
    } else if constexpr (!is_node_v<E>) {
      // constants: no gradient
    } else if constexpr (!is_differentiable_v<typename E::op_type>) {
      // predicates, rounding, stop_gradient: nothing flows in
    } else if constexpr (E::input_only) {
      slot_adjoint[slot<E>] += adj;
      reached[slot<E>] = true;
    } else {
      for_each_partial(e, fr, [&](const auto& c, const auto& cf, const S& p) { backward(c, cf, adj * p); });
    }
  }

  /// After the tree's backward sweep: push the slots' adjoints to their children, last first.
  constexpr void backward_slots() {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (backward_slot<slots - 1 - K>(), ...);
    }(std::make_index_sequence<slots>{});
  }

  template <std::size_t K>
  constexpr void backward_slot() {
    using E = boost::mp11::mp_at_c<slot_list, K>;
    if constexpr (is_differentiable_v<typename E::op_type>) {
      if (!reached[K]) return;
      const S a = slot_adjoint[K];
      for_each_partial(E{}, empty_frame<frame<E, S>>,
                       [&](const auto& c, const auto& cf, const S& p) { backward(c, cf, a * p); });
    }
  }

  // --- tangents (forward mode) -----------------------------------------------------------------
  template <class E>
  constexpr S tangent(const E& e, const frame<E, S>& fr) const {
    if constexpr (is_arg_v<E>)
      return dx[E::index];
    else if constexpr (!is_node_v<E>)
      return S(0);
    else if constexpr (!is_differentiable_v<typename E::op_type>)
      return S(0);
    else if constexpr (E::input_only)
      return slot_tangent[slot<E>];
    else
      return node_tangent(e, fr);
  }

  template <class E>
  constexpr S node_tangent(const E& e, const frame<E, S>& fr) const {
    S t = -S(0);  // identity of +, folded away by the compiler
    // A zero tangent contributes nothing, not p * 0 (NaN at an infinite partial): a jvp in a unit
    // direction is then exactly that component of the gradient.
    for_each_partial(e, fr, [&](const auto& c, const auto& cf, const S& p) {
      const S tc = tangent(c, cf);
      if (tc != S(0)) t += p * tc;
    });
    return t;
  }

  template <class E>
  constexpr S slot_own_tangent() const {
    if constexpr (is_differentiable_v<typename E::op_type>)
      return node_tangent(E{}, empty_frame<frame<E, S>>);
    else
      return S(0);
  }

  constexpr void tangent_slots() {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((slot_tangent[K] = slot_own_tangent<Sh>()), ...);
    }(std::make_index_sequence<slots>{});
  }
};

template <class S, std::size_t N, class... Roots>
using sweep_for = sweep<S, N, shared_t<Roots...>>;

}  // namespace etad::detail
