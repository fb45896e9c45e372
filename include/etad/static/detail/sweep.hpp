// etad/static/detail/sweep.hpp — the compile-time sweeps over an expression type.
// Storage is laid out by the type: shared (input-only) subexpressions get slots, computed once
// in post-order; every other node keeps its value in a frame mirroring the tree. Forward, reverse
// and tangent sweeps are unrolled by the compiler: no tape, no heap, no virtual call.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/detail/expand.hpp>
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

template <class Op, class... C, class S>
  requires(!node<Op, C...>::input_only)
struct frame<node<Op, C...>, S> {
  value_t<node<Op, C...>, S> v{};
  typename kids_of<node<Op, C...>, S>::type kids{};
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

/// The key of a sweep over explicitly given roots (a tape statement, evaluate()). A sweep is
/// named by its key, and every function the sweep instantiates carries that name: the key must
/// stay short even when the roots are huge types, so the static front doors use the traced
/// function's type as key instead (static/gradient.hpp).
template <class... Roots>
struct roots_key {
  using slots = shared_t<Roots...>;
};

/// A sweep at one point: inputs x, input adjoints grad, input tangents dx, and per shared slot a
/// value, an adjoint, a reached flag and a tangent. Key::slots lists the shared nodes.
template <class S, std::size_t N, class Key>
struct sweep {
  using slot_list = typename Key::slots;
  static constexpr std::size_t slots = boost::mp11::mp_size<slot_list>::value;
  using slot_lookup = slot_map<slot_list>;
  template <class E>
  static constexpr std::size_t slot = slot_of_v<E, slot_lookup>;

  template <class... Sh>
  static flat_tuple<value_t<Sh, S>...> slot_values_type(boost::mp11::mp_list<Sh...>);

  std::array<S, N> x{};
  std::array<S, N> grad{};
  std::array<S, N> dx{};
  decltype(slot_values_type(slot_list{})) slot_value{};
  // Adjoints start at -0.0, the identity of +: the first contribution then compiles to a move.
  std::array<S, slots> slot_adjoint = filled(-S(0));
  // A slot below a gated edge (select, min, ...) may get no contribution: it must then push
  // nothing, not 0 * partial, which is NaN when the partial is infinite. For ungated expressions
  // every flag is a compile-time true after inlining and the test disappears.
  std::array<bool, slots> reached{};
  std::array<S, slots> slot_tangent{};

  static ETAD_SWEEP_INLINE constexpr std::array<S, slots> filled(S v) {
    std::array<S, slots> a{};
    for (auto& e : a) e = v;
    return a;
  }

  // --- frames of children -------------------------------------------------------------------
  // One function per node, not one per child: a node of a thousand children must not
  // instantiate a thousand functions whose names carry its type.
  template <class E>
  static ETAD_SWEEP_INLINE constexpr const auto& kids(const frame<E, S>& fr) {
    if constexpr (E::input_only)
      return empty_kids<E, S>;
    else
      return fr.kids;
  }

  // --- values -------------------------------------------------------------------------------
  /// The value of e once its forward sweep has run.
  template <class E>
  ETAD_SWEEP_INLINE constexpr value_t<E, S> value(const E& e, const frame<E, S>& fr) const {
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

  ETAD_SWEEP_INLINE constexpr void forward_slots() {
    [&]<class... Sh, std::size_t... K>(boost::mp11::mp_list<Sh...>, std::index_sequence<K...>) ETAD_SWEEP_INLINE_LAMBDA {
      in_order({(get<K>(slot_value) = node_value(Sh{}, empty_frame<frame<Sh, S>>), 0)...});
    }(slot_list{}, std::make_index_sequence<slots>{});
  }

  template <class E>
  ETAD_SWEEP_INLINE constexpr value_t<E, S> node_value(const E& e, const frame<E, S>& fr) const {
    const auto& k = kids(fr);
    return [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
      return static_cast<value_t<E, S>>(e.op().value(value(get<I>(e.children), get<I>(k))...));
    }(std::make_index_sequence<E::arity>{});
  }

  /// Forward sweep of a tree: slots must have been computed (forward_slots) first.
  template <class E>
  ETAD_SWEEP_INLINE constexpr value_t<E, S> forward(const E& e, frame<E, S>& fr) {
    if constexpr (is_node_v<E> && !E::input_only) {
      [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
        in_order({(forward(get<I>(e.children), get<I>(fr.kids)), 0)...});
      }(std::make_index_sequence<E::arity>{});
      fr.v = node_value(e, fr);
    }
    return value(e, fr);
  }

  // --- reverse ------------------------------------------------------------------------------
  template <class E, class F>
  ETAD_SWEEP_INLINE constexpr void for_each_partial(const E& e, const frame<E, S>& fr, F&& f) const {
    using Op = typename E::op_type;
    const auto& k = kids(fr);
    [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
      constexpr bool has_partials = requires {
        e.op().partials(value(get<I>(e.children), get<I>(k))..., value(e, fr));
      };
      static_assert(has_partials,
                    "etad: a differentiable rule has no partials() callable with its argument "
                    "values and its value f; define partials(args..., f) returning one partial "
                    "per argument, or declare `static constexpr bool differentiable = false;`");
      if constexpr (!has_partials) return;  // the assertion said it all; avoid follow-on errors
      else {
      const auto p = e.op().partials(value(get<I>(e.children), get<I>(k))..., value(e, fr));
      check_partials<Op, E::arity, decltype(p)>();
      if constexpr (is_gated_v<Op>) {
        const auto g = e.op().gate(value(get<I>(e.children), get<I>(k))..., value(e, fr));
        check_gate<Op, E::arity, decltype(g)>();
        in_order({(g[I] ? f(get<I>(e.children), get<I>(k), static_cast<S>(std::get<I>(p)))
                        : void(),
                   0)...});
      } else {
        in_order({(f(get<I>(e.children), get<I>(k), static_cast<S>(std::get<I>(p))), 0)...});
      }
      }
    }(std::make_index_sequence<E::arity>{});
  }

  // What for_each_partial does with each (child, child's frame, partial). Named classes rather
  // than lambdas: a lambda's name includes the function it is written in, whose name includes
  // the node's type, so a node of n children would instantiate n functions with names of size n.
  struct push_adjoint {
    sweep* self;
    S adj;
    template <class C>
    ETAD_SWEEP_INLINE constexpr void operator()(const C& c, const frame<C, S>& cf, const S& p) const {
      self->backward(c, cf, adj * p);
    }
  };
  struct add_tangent {
    const sweep* self;
    S* t;
    template <class C>
    ETAD_SWEEP_INLINE constexpr void operator()(const C& c, const frame<C, S>& cf, const S& p) const {
      const S tc = self->tangent(c, cf);
      if (tc != S(0)) *t += p * tc;
    }
  };

  /// Adds adj * d(e)/d(inputs) into grad (or into the slots that e reaches).
  template <class E>
  ETAD_SWEEP_INLINE constexpr void backward(const E& e, const frame<E, S>& fr, const S& adj) {
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
      for_each_partial(e, fr, push_adjoint{this, adj});
    }
  }

  /// After the tree's backward sweep: push the slots' adjoints to their children, last first.
  ETAD_SWEEP_INLINE constexpr void backward_slots() {
    [&]<std::size_t... K>(std::index_sequence<K...>) ETAD_SWEEP_INLINE_LAMBDA {
      in_order({(backward_slot<slots - 1 - K>(), 0)...});
    }(std::make_index_sequence<slots>{});
  }

  template <std::size_t K>
  ETAD_SWEEP_INLINE constexpr void backward_slot() {
    using E = boost::mp11::mp_at_c<slot_list, K>;
    if constexpr (is_differentiable_v<typename E::op_type>) {
      if (!reached[K]) return;
      for_each_partial(E{}, empty_frame<frame<E, S>>, push_adjoint{this, slot_adjoint[K]});
    }
  }

  // --- tangents (forward mode) -----------------------------------------------------------------
  template <class E>
  ETAD_SWEEP_INLINE constexpr S tangent(const E& e, const frame<E, S>& fr) const {
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
  ETAD_SWEEP_INLINE constexpr S node_tangent(const E& e, const frame<E, S>& fr) const {
    S t = -S(0);  // identity of +, folded away by the compiler
    // A zero tangent contributes nothing, not p * 0 (NaN at an infinite partial): a jvp in a unit
    // direction is then exactly that component of the gradient.
    for_each_partial(e, fr, add_tangent{this, &t});
    return t;
  }

  template <class E>
  ETAD_SWEEP_INLINE constexpr S slot_own_tangent() const {
    if constexpr (is_differentiable_v<typename E::op_type>)
      return node_tangent(E{}, empty_frame<frame<E, S>>);
    else
      return S(0);
  }

  ETAD_SWEEP_INLINE constexpr void tangent_slots() {
    [&]<class... Sh, std::size_t... K>(boost::mp11::mp_list<Sh...>, std::index_sequence<K...>) ETAD_SWEEP_INLINE_LAMBDA {
      in_order({(slot_tangent[K] = slot_own_tangent<Sh>(), 0)...});
    }(slot_list{}, std::make_index_sequence<slots>{});
  }
};

template <class S, std::size_t N, class... Roots>
using sweep_for = sweep<S, N, roots_key<Roots...>>;

}  // namespace etad::detail
