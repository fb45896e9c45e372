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

/// A subtree of more than ETAD_OUTLINE_LIMIT nodes (with work of its own: not a shared node,
/// whose value and adjoint live in a slot) is swept in functions of its own (ETAD_OUTLINE), so
/// that the sweep of a long sum is one function per few hundred nodes, not one function for the
/// whole: the optimizers' time grows faster than the size of one function. Small subtrees stay
/// inline (a call per term of a sum cost clang 1.5x at run time), and a program of at most
/// ETAD_OUTLINE_LIMIT nodes is swept exactly as without this.
template <class C>
inline constexpr bool outlined_v = is_node_v<C> && !C::input_only &&
                                   (node_count_v<C> > ETAD_OUTLINE_LIMIT);

/// With g++, a node of more than ETAD_OUTLINE_LIMIT nodes and more than two groups of children
/// (a sum or log_sum_exp over a long pack): its children are swept a group of wide_group at a
/// time, each group in a function of its own, so that no sweep function grows with the number
/// of children (outlined_v cuts deep trees, not wide ones). g++'s optimizers took time
/// superlinear in the size of the one function that swept all 1000 children of the generated
/// pack; grouped, the two passes that grew fastest took a third of their time (docs/compile-
/// time.md, item 12). Not with clang, which compiled the same pack slower grouped.
#if defined(__GNUC__) && !defined(__clang__)
inline constexpr bool group_wide_nodes = true;
#else
inline constexpr bool group_wide_nodes = false;
#endif
inline constexpr std::size_t wide_group = flat_chunk;
template <class E>
consteval bool grouped() {
  if constexpr (group_wide_nodes && is_node_v<E>)
    return !E::input_only && E::arity > 2 * wide_group && node_count_v<E> > ETAD_OUTLINE_LIMIT;
  else
    return false;
}
template <class E>
inline constexpr bool grouped_v = grouped<E>();
template <class E>
inline constexpr std::size_t group_count_v = (E::arity + wide_group - 1) / wide_group;
/// The number of children in group G of E.
template <class E, std::size_t G>
inline constexpr std::size_t group_size_v =
    E::arity - G * wide_group < wide_group ? E::arity - G * wide_group : wide_group;

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

/// Whether a node of rule Op with Arity children takes its partials early: the forward sweep
/// of a static front door computes them right after the node's value (or just before it, for a
/// rule whose partials do not read the value: partials_need_value_v) and keeps them in the
/// node's frame for the reverse or tangent sweep, as a hand-written gradient computes
/// `1 / (1 + x*x)` where it has the operands rather than after everything else. The work and the
/// numbers are the same; what changes is where the work stands: a division or a transcendental
/// partial taken before the next call (exp, log, sincos) runs while that call runs instead of
/// waiting at the end of the gradient, and the compilers do not move arithmetic across calls
/// themselves. (With clang, chain20's gradient went from 1.19x to 1.07x of the hand-written
/// one; with g++, trig3's and chain20's took 1-3 % less time: docs/performance.md, "Partials
/// taken early".) Not for:
/// product rules (their partials are their operands, and a tree of them is swept by
/// product_plan); gated rules (a closed gate sends the partials nowhere); rules without a
/// gradient; nodes of more than early_partials_max_arity children (a wide sum's partials are
/// constants: an array of them per node would only cost compile time); nested tapes (there a
/// partial is an outer statement, recorded only where an adjoint arrives). Not in tape
/// statements (roots_key), whose reverse sweep follows the forward sweep at once, and only when
/// a tape records; in shared slots with clang only (early_slot_partials).
template <class Op, std::size_t Arity, class S>
inline constexpr bool early_partials_v =
    !is_fused_v<Op> && !is_gated_v<Op> && !is_product_v<Op> && is_differentiable_v<Op> &&
    Arity <= early_partials_max_arity && !expression<S>;

/// Whether shared slots take their partials early too (sweep::takes_early_v). The slots are all
/// computed first, ahead of the tree, so a slot's partials taken early are held across every
/// later call. With clang that paid: its chain20 went from 1.10x to 1.07x the hand-written
/// gradient, as cos(x y), sin(x y)'s partial, was called at the start instead of at the end
/// (clang calls sin and cos apart); g++ calls sincos for the pair anyway, and on a formula of
/// slots only (exp(x/y) + log(yz) atan(x/z) + sqrt(x^2 + z^2)) took 4 % longer, holding the
/// slots' divisions across the calls (docs/performance.md, "Partials taken early").
#if defined(__clang__)
inline constexpr bool early_slot_partials = true;
#else
inline constexpr bool early_slot_partials = false;
#endif

/// The partials a node keeps from its forward sweep: a fused rule's (computed with its value)
/// and those taken early (early_partials_v); nothing for other rules.
template <class Op, std::size_t Arity, class S>
struct kept_partials {};
template <class Op, std::size_t Arity, class S>
  requires(is_fused_v<Op> || early_partials_v<Op, Arity, S>)
struct kept_partials<Op, Arity, S> {
  std::array<S, Arity> p{};
};

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

// --- trees of products ------------------------------------------------------------------------
// A tree of product nodes (a * b * c ...) is differentiated as one product of its factors (the
// non-product subexpressions below it, left to right). A factor that is input-only (x, sin(x))
// has the same value at every occurrence, and so the same partial: only its last occurrence
// receives one, k times its own for k occurrences, and the subtrees that hold nothing else that
// needs a partial (earlier occurrences, constants) are not visited. For c x x x that is
// 3 * (c x x), where the plain reverse sweep computes and adds three partials. Values are
// untouched (they are computed as written); gradients change only by rounding. The list of
// factors is bounded (product_factor_limit, below).

template <class E>
inline constexpr bool is_product_node_v = false;
template <class Op, class... C>
inline constexpr bool is_product_node_v<node<Op, C...>> = is_product_v<Op>;

template <class E>
inline constexpr bool is_constant_leaf_v = false;
template <class T>
inline constexpr bool is_constant_leaf_v<constant<T>> = true;

/// A product tree is flattened into one list of at most this many factors. Where its children's
/// factors would make more, the node's factors are its children as they are (product nodes
/// included, each then differentiated as a product of its own): the list, and the plan's work
/// on it (quadratic in its length), stay bounded. Without the bound, squaring k times over
/// (e = e * e, a DAG of k + 1 types) made a list of 2^k factors: k = 10 exceeded g++'s
/// constexpr limit after 40 s, and k = 20 its memory.
inline constexpr std::size_t product_factor_limit = 64;

/// The factors of E, left to right: E itself unless it is a product node; for a product node,
/// its children's factors when they are at most product_factor_limit together (`flat`), else
/// its children.
template <class E>
struct factors_of {
  using type = boost::mp11::mp_list<E>;
  static constexpr bool flat = false;
};
template <class Op, class... C>
  requires is_product_v<Op>
struct factors_of<node<Op, C...>> {
  static constexpr bool flat =
      (boost::mp11::mp_size<typename factors_of<C>::type>::value + ... + 0) <= product_factor_limit;
  using type = boost::mp11::mp_if_c<flat, boost::mp11::mp_append<typename factors_of<C>::type...>,
                                    boost::mp11::mp_list<C...>>;
};
template <class E>
inline constexpr std::size_t factor_count_v = boost::mp11::mp_size<typename factors_of<E>::type>::value;
/// How many positions of its parent's plan the child C takes: its factors when the parent is
/// flattened, else one (C itself).
template <bool ParentFlat, class C>
inline constexpr std::size_t factor_span_v = ParentFlat ? factor_count_v<C> : 1;

/// What each factor of a product receives: 0 (nothing: a constant, or an earlier occurrence of a
/// repeated input-only factor), 1, or k for the last of k occurrences.
template <class Factors>
struct product_plan;
template <class... F>
struct product_plan<boost::mp11::mp_list<F...>> {
  static constexpr std::size_t n = sizeof...(F);
  static constexpr std::array<std::size_t, n> weight = [] {
    // Factor i's type, named by the position of its first occurrence.
    constexpr std::array<std::size_t, n> id{boost::mp11::mp_find<boost::mp11::mp_list<F...>, F>::value...};
    constexpr std::array<bool, n> shared{bool(F::input_only)...};
    constexpr std::array<bool, n> constant{is_constant_leaf_v<F>...};
    std::array<std::size_t, n> w{};
    for (std::size_t i = 0; i < n; ++i) {
      if (constant[i]) continue;
      if (!shared[i]) {
        w[i] = 1;
        continue;
      }
      std::size_t count = 0, last = i;
      for (std::size_t j = 0; j < n; ++j)
        if (id[j] == id[i]) ++count, last = j;
      w[i] = i == last ? count : 0;
    }
    return w;
  }();
  /// Some factor of positions [from, to) receives a partial.
  static constexpr bool reaches(std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
      if (weight[i] != 0) return true;
    return false;
  }
  /// Some factor occurs more than once: the merged sweep saves work.
  static constexpr bool merges = [] {
    for (std::size_t w : weight)
      if (w > 1) return true;
    return false;
  }();
};
template <class E>
using product_plan_t = product_plan<typename factors_of<E>::type>;

/// A product node whose tree repeats an input-only factor.
template <class E>
inline constexpr bool merges_factors_v = [] {
  if constexpr (is_product_node_v<E>)
    return product_plan_t<E>::merges;
  else
    return false;
}();

/// The key of a sweep over explicitly given roots (a tape statement, evaluate()). A sweep is
/// named by its key, and every function the sweep instantiates carries that name: the key must
/// stay short even when the roots are huge types, so the static front doors use the traced
/// function's type as key instead (static/gradient.hpp).
template <class... Roots>
struct roots_key {
  using slots = shared_t<Roots...>;
  // A tape statement's reverse sweep follows its forward sweep at once, and only when a tape
  // records (see early_partials_v).
  static constexpr bool early_partials = false;
};

/// A sweep at one point: inputs x, input adjoints grad, input tangents dx, and per shared slot a
/// value, an adjoint, a reached flag and a tangent. Key::slots lists the shared nodes.
template <class S, std::size_t N, class Key>
struct sweep {
  using slot_list = typename Key::slots;
  static constexpr std::size_t slots = boost::mp11::mp_size<slot_list>::value;
  template <class E>
  static constexpr std::size_t slot = index_of_v<E, slot_list>;  // E's slot

  template <class... Sh>
  static flat_tuple<value_t<Sh, S>...> slot_values_type(boost::mp11::mp_list<Sh...>);

  /// Whether node E takes its partials early in this sweep (early_partials_v): in the static
  /// front doors (Key::early_partials), and in a shared slot only where early_slot_partials.
  template <class E>
  static constexpr bool takes_early_v = Key::early_partials &&
                                        (!E::input_only || early_slot_partials) &&
                                        early_partials_v<typename E::op_type, E::arity, S>;
  static constexpr bool early_slots = Key::early_partials && early_slot_partials;
  template <class... Sh>
  static flat_tuple<kept_partials<typename Sh::op_type, Sh::arity, S>...> slot_partials_type(
      boost::mp11::mp_list<Sh...>);

  std::array<S, N> x{};
  // Input adjoints start at -0.0 too; an input that received nothing reports +0.0 (gradient()).
  // Without gates every flag is a compile-time true after inlining: no test, and the first
  // contribution to each input is a move, not an addition to +0.0.
  std::array<S, N> grad = filled<N>(-S(0));
  std::array<bool, N> input_reached{};
  std::array<S, N> dx{};
  decltype(slot_values_type(slot_list{})) slot_value{};
  // The partials of the slots that take them early (takes_early_v); empty for the others.
  [[no_unique_address]] decltype(slot_partials_type(slot_list{})) slot_partials{};
  // Adjoints start at -0.0, the identity of +: the first contribution then compiles to a move.
  std::array<S, slots> slot_adjoint = filled<slots>(-S(0));
  // A slot below a gated edge (select, min, ...) may get no contribution: it must then push
  // nothing, not 0 * partial, which is NaN when the partial is infinite. For ungated expressions
  // every flag is a compile-time true after inlining and the test disappears.
  std::array<bool, slots> reached{};
  std::array<S, slots> slot_tangent{};

  template <std::size_t M>
  static ETAD_SWEEP_INLINE constexpr std::array<S, M> filled(S v) {
    std::array<S, M> a{};
    for (auto& e : a) e = v;
    return a;
  }

  /// The input adjoints, +0.0 for an input that received nothing.
  ETAD_SWEEP_INLINE constexpr std::array<S, N> gradient() const {
    std::array<S, N> g{};
    for (std::size_t i = 0; i < N; ++i) g[i] = input_reached[i] ? grad[i] : S(0);
    return g;
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
      return static_cast<value_t<E, S>>(e.value);
    else if constexpr (E::input_only)
      return detail::get<slot<E>>(slot_value);
    else
      return fr.v;
  }

  // --- many slots: swept in chunks, each in a function of its own -----------------------------
  // An expression whose nodes are nearly all shared (input-only) has its work in the slots, not
  // in the tree, so outlining subtrees (outlined_v) does not cut it: with more than two chunks'
  // worth of slots (256 by default) they are swept slot_chunk at a time, each chunk an
  // ETAD_OUTLINE function, for the reason given at outlined_v.
  static constexpr std::size_t slot_chunk = ETAD_OUTLINE_LIMIT / 8 > 0 ? ETAD_OUTLINE_LIMIT / 8 : 1;
  static constexpr bool chunked_slots = slots > 2 * slot_chunk;
  static constexpr std::size_t slot_chunks = (slots + slot_chunk - 1) / slot_chunk;

  /// f.template operator()<K>() for the slots K of chunk C: first to last, or last to first.
  template <std::size_t C, bool Reverse, class F>
  static ETAD_SWEEP_INLINE constexpr void for_slots_of_chunk(F&& f) {
    constexpr std::size_t first = C * slot_chunk;
    constexpr std::size_t count = slots - first < slot_chunk ? slots - first : slot_chunk;
    [&]<std::size_t... J>(std::index_sequence<J...>) ETAD_SWEEP_INLINE_LAMBDA {
      in_order({(f.template operator()<Reverse ? first + count - 1 - J : first + J>(), 0)...});
    }(std::make_index_sequence<count>{});
  }
  /// f.template operator()<C>() for every chunk C: first to last, or last to first.
  template <bool Reverse, class F>
  static ETAD_SWEEP_INLINE constexpr void for_each_slot_chunk(F&& f) {
    [&]<std::size_t... C>(std::index_sequence<C...>) ETAD_SWEEP_INLINE_LAMBDA {
      in_order({(f.template operator()<Reverse ? slot_chunks - 1 - C : C>(), 0)...});
    }(std::make_index_sequence<slot_chunks>{});
  }
  /// Slot K's value, and its partials where it takes them early (Partials: see forward()).
  template <std::size_t K, bool Partials>
  ETAD_SWEEP_INLINE constexpr void forward_slot() {
    using E = type_at_t<slot_list, K>;
    constexpr bool early = Partials && takes_early_v<E>;
    if constexpr (early && !partials_need_value_v<typename E::op_type>)
      detail::get<K>(slot_partials).p = node_partials(E{}, empty_frame<frame<E, S>>, S{});
    detail::get<K>(slot_value) = node_value(E{}, empty_frame<frame<E, S>>);
    if constexpr (early && partials_need_value_v<typename E::op_type>)
      detail::get<K>(slot_partials).p =
          node_partials(E{}, empty_frame<frame<E, S>>, detail::get<K>(slot_value));
  }
  template <std::size_t C, bool Partials>
  ETAD_OUTLINE constexpr void forward_slot_chunk() {
    for_slots_of_chunk<C, false>(
        [&]<std::size_t K>() ETAD_SWEEP_INLINE_LAMBDA { forward_slot<K, Partials>(); });
  }
  template <std::size_t C>
  ETAD_OUTLINE constexpr void backward_slot_chunk() {
    for_slots_of_chunk<C, true>([&]<std::size_t K>() ETAD_SWEEP_INLINE_LAMBDA { backward_slot<K>(); });
  }
  template <std::size_t C>
  ETAD_OUTLINE constexpr void tangent_slot_chunk() {
    for_slots_of_chunk<C, false>([&]<std::size_t K>() ETAD_SWEEP_INLINE_LAMBDA {
      slot_tangent[K] = slot_own_tangent<type_at_t<slot_list, K>>();
    });
  }

  /// The slots' values, first to last (Partials: see forward()).
  template <bool Partials = true>
  ETAD_SWEEP_INLINE constexpr void forward_slots() {
    if constexpr (chunked_slots) {
      for_each_slot_chunk<false>([&]<std::size_t C>() ETAD_SWEEP_INLINE_LAMBDA {
        forward_slot_chunk<C, Partials && early_slots>();
      });
    } else if constexpr (Partials && early_slots) {
      [&]<std::size_t... K>(std::index_sequence<K...>) ETAD_SWEEP_INLINE_LAMBDA {
        in_order({(forward_slot<K, true>(), 0)...});
      }(std::make_index_sequence<slots>{});
    } else {
      // (Without a function per slot where none takes its partials early.)
      [&]<class... Sh, std::size_t... K>(boost::mp11::mp_list<Sh...>, std::index_sequence<K...>) ETAD_SWEEP_INLINE_LAMBDA {
        in_order(
            {(detail::get<K>(slot_value) = node_value(Sh{}, empty_frame<frame<Sh, S>>), 0)...});
      }(slot_list{}, std::make_index_sequence<slots>{});
    }
  }

  // --- nested tapes ---------------------------------------------------------------------------
  // On a nested tape S is a real of the outer tape, itself an expression. A node's value is then
  // its rule applied to the outer reals: one outer statement whose partials are the rule's own
  // (evaluated on the outer tape's numbers), not the rule's value formula as written on reals.
  // The two agree for a rule whose partials are the derivatives of its value, and the outer
  // tape then sees what TensorFlow records on every tape: the op with its gradient. Where they
  // differ (a straight-through estimator: value round(x), partial 1; gradient clipping), a
  // second derivative differentiates the partials the rule declares, as TF's custom_gradient.
  static constexpr bool nested = expression<S>;

  /// A child as an operand of the outer statement: a number constant as itself, a comparison's
  /// value as a constant<bool>, anything else as its value, an outer real.
  template <class C>
  ETAD_SWEEP_INLINE constexpr auto outer_operand(const C& c, const frame<C, S>& cf) const {
    if constexpr (is_constant_leaf_v<C>)
      return c;
    else if constexpr (std::is_same_v<value_t<C, S>, bool>)
      return constant<bool>{value(c, cf)};
    else
      return static_cast<S>(value(c, cf));
  }

  /// e's rule applied to its children's values on the outer tape: one outer statement.
  template <class E>
  ETAD_SWEEP_INLINE constexpr S outer_value(const E& e, const frame<E, S>& fr) const {
    const auto& k = kids(fr);
    return [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
      using outer_node =
          node<typename E::op_type,
               decltype(outer_operand(detail::get<I>(e.children), detail::get<I>(k)))...>;
      return static_cast<S>(
          outer_node{e.op(), outer_operand(detail::get<I>(e.children), detail::get<I>(k))...});
    }(std::make_index_sequence<E::arity>{});
  }

  template <class E>
  ETAD_SWEEP_INLINE constexpr value_t<E, S> node_value(const E& e, const frame<E, S>& fr) const {
    if constexpr (nested && !is_predicate_v<typename E::op_type>) {
      return outer_value(e, fr);
    } else {
      const auto& k = kids(fr);
      return [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
        return static_cast<value_t<E, S>>(
            e.op().value(value(detail::get<I>(e.children), detail::get<I>(k))...));
      }(std::make_index_sequence<E::arity>{});
    }
  }

  /// Forward sweep of a tree: slots must have been computed (forward_slots) first. Partials:
  /// whether a reverse or tangent sweep follows, which reads fused rules' partials from the
  /// frames; evaluate() passes false, and fused rules (a loop) then compute their value only.
  template <bool Partials = true, class E>
  ETAD_SWEEP_INLINE constexpr value_t<E, S> forward(const E& e, frame<E, S>& fr) {
    if constexpr (is_node_v<E> && !E::input_only) {
      if constexpr (grouped_v<E>)
        [&]<std::size_t... G>(std::index_sequence<G...>) ETAD_SWEEP_INLINE_LAMBDA {
          in_order({(forward_group<Partials, G>(e, fr), 0)...});
        }(std::make_index_sequence<group_count_v<E>>{});
      else
        [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
          in_order({(forward_child<Partials>(detail::get<I>(e.children), detail::get<I>(fr.kids)),
                     0)...});
        }(std::make_index_sequence<E::arity>{});
      if constexpr (Partials && is_fused_v<typename E::op_type>) {
        fused_value(e, fr);
      } else if constexpr (Partials && takes_early_v<E> &&
                           !partials_need_value_v<typename E::op_type>) {
        // The partials do not read f: taken before the value, they run while its call does.
        fr.kept.p = node_partials(e, fr, S{});
        fr.v = node_value(e, fr);
      } else {
        fr.v = node_value(e, fr);
        if constexpr (Partials && takes_early_v<E>)
          fr.kept.p = node_partials(e, fr, fr.v);
      }
    }
    return value(e, fr);
  }

  /// The partials of node e whose value is f, as S (taken early: see takes_early_v). A rule
  /// without a usable partials() gives zeros here, and its error from for_each_partial.
  template <class E>
  ETAD_SWEEP_INLINE constexpr std::array<S, E::arity> node_partials(const E& e,
                                                                    const frame<E, S>& fr,
                                                                    const S& f) const {
    using Op = typename E::op_type;
    const auto& k = kids(fr);
    return [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
      constexpr bool has_partials = requires {
        e.op().partials(value(detail::get<I>(e.children), detail::get<I>(k))..., f);
      };
      if constexpr (has_partials) {
        const auto p = e.op().partials(value(detail::get<I>(e.children), detail::get<I>(k))..., f);
        check_partials<Op, E::arity, decltype(p)>();
        if constexpr (is_tuple_like_v<decltype(p)>)
          return std::array<S, E::arity>{static_cast<S>(std::get<I>(p))...};
        else
          return std::array<S, E::arity>{};
      } else {
        return std::array<S, E::arity>{};
      }
    }(std::make_index_sequence<E::arity>{});
  }

  /// A fused rule's node: value and partials from one call, both kept in the frame.
  template <class E>
  ETAD_SWEEP_INLINE constexpr void fused_value(const E& e, frame<E, S>& fr) const {
    using Op = typename E::op_type;
    static_assert(!is_gated_v<Op> && !is_product_v<Op>,
                  "etad: a fused rule cannot be gated or a product rule; drop `gated` or "
                  "`product`, or `fused`");
    const auto& k = kids(fr);
    [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
      constexpr bool has_value_and_partials = requires {
        e.op().value_and_partials(value(detail::get<I>(e.children), detail::get<I>(k))...);
      };
      static_assert(has_value_and_partials,
                    "etad: a fused rule has no value_and_partials() callable with its argument "
                    "values; define it, returning an object with members `value` and "
                    "`partials`, or drop `fused`");
      if constexpr (has_value_and_partials) {
        const auto r =
            e.op().value_and_partials(value(detail::get<I>(e.children), detail::get<I>(k))...);
        check_partials<Op, E::arity, decltype(r.partials)>();
        if constexpr (is_tuple_like_v<decltype(r.partials)>) {
          // On a nested tape the value is the rule applied on the outer tape (outer_value), so
          // that the outer tape differentiates it through the rule's partials; r.value, the
          // value as computed on reals, is not used.
          if constexpr (nested)
            fr.v = outer_value(e, fr);
          else
            fr.v = static_cast<S>(r.value);
          fr.kept.p = {static_cast<S>(std::get<I>(r.partials))...};
        }
      }
    }(std::make_index_sequence<E::arity>{});
  }

  /// forward() of a child: in a function of its own when it is large (outlined_v).
  template <bool Partials, class C>
  ETAD_SWEEP_INLINE constexpr void forward_child(const C& c, frame<C, S>& cf) {
    if constexpr (outlined_v<C>)
      forward_outlined<Partials>(c, cf);
    else
      forward<Partials>(c, cf);
  }
  template <bool Partials, class C>
  ETAD_OUTLINE constexpr void forward_outlined(const C& c, frame<C, S>& cf) {
    forward<Partials>(c, cf);
  }
  /// forward() of the children of group G of a grouped node (grouped_v), in order.
  template <bool Partials, std::size_t G, class E>
  ETAD_OUTLINE constexpr void forward_group(const E& e, frame<E, S>& fr) {
    constexpr std::size_t first = G * wide_group;
    [&]<std::size_t... J>(std::index_sequence<J...>) ETAD_SWEEP_INLINE_LAMBDA {
      in_order({(forward_child<Partials>(detail::get<first + J>(e.children),
                                         detail::get<first + J>(fr.kids)),
                 0)...});
    }(std::make_index_sequence<group_size_v<E, G>>{});
  }

  // --- reverse ------------------------------------------------------------------------------
  template <class E, class F>
  ETAD_SWEEP_INLINE constexpr void for_each_partial(const E& e, const frame<E, S>& fr, F&& f) const {
    using Op = typename E::op_type;
    const auto& k = kids(fr);
    [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
      constexpr bool has_partials = requires {
        e.op().partials(value(detail::get<I>(e.children), detail::get<I>(k))..., value(e, fr));
      };
      static_assert(is_fused_v<Op> || has_partials,
                    "etad: a differentiable rule has no partials() callable with its argument "
                    "values and its value f; define partials(args..., f) returning one partial "
                    "per argument, or declare `static constexpr bool differentiable = false;`");
      if constexpr (is_fused_v<Op> || (!E::input_only && takes_early_v<E>)) {
        // Kept by the forward sweep (fused_value, or taken early).
        in_order({(f(detail::get<I>(e.children), detail::get<I>(k), fr.kept.p[I]), 0)...});
      } else if constexpr (takes_early_v<E>) {
        // A slot's, kept by forward_slot.
        in_order({(f(detail::get<I>(e.children), detail::get<I>(k),
                     detail::get<slot<E>>(slot_partials).p[I]),
                   0)...});
      } else if constexpr (!has_partials) {
        return;  // the assertion said it all; avoid follow-on errors
      } else {
        const auto p =
            e.op().partials(value(detail::get<I>(e.children), detail::get<I>(k))..., value(e, fr));
        check_partials<Op, E::arity, decltype(p)>();
        if constexpr (!is_tuple_like_v<decltype(p)>) {
          return;  // the assertion said it all
        } else if constexpr (is_gated_v<Op>) {
          constexpr bool has_gate = requires {
            e.op().gate(value(detail::get<I>(e.children), detail::get<I>(k))..., value(e, fr));
          };
          static_assert(has_gate,
                        "etad: a gated rule has no gate() callable with its argument values and "
                        "its value f; define gate(args..., f) returning one bool per argument, "
                        "or drop `gated`");
          if constexpr (has_gate) {
            const auto g =
                e.op().gate(value(detail::get<I>(e.children), detail::get<I>(k))..., value(e, fr));
            check_gate<Op, E::arity, decltype(g)>();
            if constexpr (is_tuple_like_v<decltype(g)>)
              in_order({(g[I] ? f(detail::get<I>(e.children), detail::get<I>(k),
                                  static_cast<S>(std::get<I>(p)))
                              : void(),
                         0)...});
          }
        } else if constexpr (grouped_v<E>) {
          [&]<std::size_t... G>(std::index_sequence<G...>) ETAD_SWEEP_INLINE_LAMBDA {
            in_order({(partials_group<G>(e, fr, p, f), 0)...});
          }(std::make_index_sequence<group_count_v<E>>{});
        } else {
          in_order({(f(detail::get<I>(e.children), detail::get<I>(k),
                       static_cast<S>(std::get<I>(p))),
                     0)...});
        }
      }
    }(std::make_index_sequence<E::arity>{});
  }

  /// f(child, child's frame, partial) for the children of group G of a grouped node
  /// (grouped_v), in order; the partials p were computed once, for all groups.
  // (Given the node's frame, not its children's frames: a template argument of that type would
  // be a second name as long as the node's in every group's name.)
  template <std::size_t G, class E, class P, class F>
  ETAD_OUTLINE constexpr void partials_group(const E& e, const frame<E, S>& fr, const P& p,
                                             F& f) const {
    constexpr std::size_t first = G * wide_group;
    const auto& k = kids(fr);
    [&]<std::size_t... J>(std::index_sequence<J...>) ETAD_SWEEP_INLINE_LAMBDA {
      in_order({(f(detail::get<first + J>(e.children), detail::get<first + J>(k),
                   static_cast<S>(std::get<first + J>(p))),
                 0)...});
    }(std::make_index_sequence<group_size_v<E, G>>{});
  }

  // What for_each_partial does with each (child, child's frame, partial). Named classes rather
  // than lambdas: a lambda's name includes the function it is written in, whose name includes
  // the node's type, so a node of n children would instantiate n functions with names of size n.
  struct push_adjoint {
    sweep* self;
    S adj;
    template <class C>
    ETAD_SWEEP_INLINE constexpr void operator()(const C& c, const frame<C, S>& cf, const S& p) const {
      if constexpr (outlined_v<C>)
        self->backward_outlined(c, cf, adj * p);
      else
        self->backward(c, cf, adj * p);
    }
  };
  struct add_tangent {
    const sweep* self;
    S* t;
    template <class C>
    ETAD_SWEEP_INLINE constexpr void operator()(const C& c, const frame<C, S>& cf, const S& p) const {
      S tc;
      if constexpr (outlined_v<C>)
        tc = self->tangent_outlined(c, cf);
      else
        tc = self->tangent(c, cf);
      if (tc != S(0)) *t += p * tc;
    }
  };

  /// Adds adj * d(e)/d(inputs) into grad (or into the slots that e reaches).
  template <class E>
  ETAD_SWEEP_INLINE constexpr void backward(const E& e, const frame<E, S>& fr, const S& adj) {
    if constexpr (is_arg_v<E>) {
      grad[E::index] += adj;
      input_reached[E::index] = true;
    } else if constexpr (is_active_leaf_v<E>) {
      fr.adjoint += adj;
    } else if constexpr (!is_node_v<E>) {
      // constants: no gradient
    } else if constexpr (!is_differentiable_v<typename E::op_type>) {
      // predicates, rounding, stop_gradient: nothing flows in
    } else if constexpr (E::input_only) {
      slot_adjoint[slot<E>] += adj;
      reached[slot<E>] = true;
    } else if constexpr (merges_factors_v<E>) {
      backward_product<product_plan_t<E>, 0>(e, fr, adj);
    } else {
      for_each_partial(e, fr, push_adjoint{this, adj});
    }
  }
  template <class C>
  ETAD_OUTLINE constexpr void backward_outlined(const C& c, const frame<C, S>& cf, const S& adj) {
    backward(c, cf, adj);
  }

  /// backward() of a product tree whose factors start at position At of Plan (see product_plan).
  template <class Plan, std::size_t At, class E>
  ETAD_SWEEP_INLINE constexpr void backward_product(const E& e, const frame<E, S>& fr, const S& adj) {
    using Op = typename E::op_type;
    static_assert(!is_gated_v<Op>, "etad: a product rule cannot be gated; drop `product` or `gated`");
    const auto& k = kids(fr);
    [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
      constexpr bool flat = factors_of<E>::flat;
      constexpr std::array<std::size_t, E::arity> size{factor_span_v<flat, child_t_of<E, I>>...};
      constexpr std::array<std::size_t, E::arity> start = [&] {
        std::array<std::size_t, E::arity> s{};
        for (std::size_t i = 1; i < E::arity; ++i) s[i] = s[i - 1] + size[i - 1];
        return s;
      }();
      const auto p =
          e.op().partials(value(detail::get<I>(e.children), detail::get<I>(k))..., value(e, fr));
      check_partials<Op, E::arity, decltype(p)>();
      if constexpr (is_tuple_like_v<decltype(p)>)
        in_order({(product_factor<Plan, At + start[I], flat>(detail::get<I>(e.children),
                                                       detail::get<I>(k), adj,
                                                       static_cast<S>(std::get<I>(p))),
                   0)...});
    }(std::make_index_sequence<E::arity>{});
  }

  /// Child c of a product node in Plan, at position At; Flat: whether its parent's factors are
  /// its children's (then a product child is walked as part of the plan), or its children.
  template <class Plan, std::size_t At, bool Flat, class C>
  ETAD_SWEEP_INLINE constexpr void product_factor(const C& c, const frame<C, S>& cf, const S& adj,
                                                  const S& p) {
    if constexpr (Plan::reaches(At, At + factor_span_v<Flat, C>)) {
      if constexpr (Flat && is_product_node_v<C>)
        backward_product<Plan, At>(c, cf, adj * p);
      else if constexpr (Plan::weight[At] == 1)
        backward(c, cf, adj * p);
      else
        backward(c, cf, static_cast<S>(Plan::weight[At]) * (adj * p));
    }
  }

  /// After the tree's backward sweep: push the slots' adjoints to their children, last first.
  ETAD_SWEEP_INLINE constexpr void backward_slots() {
    if constexpr (chunked_slots) {
      for_each_slot_chunk<true>(
          [&]<std::size_t C>() ETAD_SWEEP_INLINE_LAMBDA { backward_slot_chunk<C>(); });
    } else {
      [&]<std::size_t... K>(std::index_sequence<K...>) ETAD_SWEEP_INLINE_LAMBDA {
        in_order({(backward_slot<slots - 1 - K>(), 0)...});
      }(std::make_index_sequence<slots>{});
    }
  }

  template <std::size_t K>
  ETAD_SWEEP_INLINE constexpr void backward_slot() {
    using E = type_at_t<slot_list, K>;
    if constexpr (is_differentiable_v<typename E::op_type>) {
      if (!reached[K]) return;
      if constexpr (merges_factors_v<E>)
        backward_product<product_plan_t<E>, 0>(E{}, empty_frame<frame<E, S>>, slot_adjoint[K]);
      else
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
    // direction is then that component of the gradient, where no tangent cancels to exactly 0 on
    // the way. One that cancels is skipped too: sqrt(x - x) has jvp 0 (its true derivative) where
    // the gradient, which multiplies sqrt's infinite partial by 1 and -1, is NaN.
    for_each_partial(e, fr, add_tangent{this, &t});
    return t;
  }
  template <class C>
  ETAD_OUTLINE constexpr S tangent_outlined(const C& c, const frame<C, S>& cf) const {
    return tangent(c, cf);
  }

  template <class E>
  ETAD_SWEEP_INLINE constexpr S slot_own_tangent() const {
    if constexpr (is_differentiable_v<typename E::op_type>)
      return node_tangent(E{}, empty_frame<frame<E, S>>);
    else
      return S(0);
  }

  ETAD_SWEEP_INLINE constexpr void tangent_slots() {
    if constexpr (chunked_slots) {
      for_each_slot_chunk<false>(
          [&]<std::size_t C>() ETAD_SWEEP_INLINE_LAMBDA { tangent_slot_chunk<C>(); });
    } else {
      [&]<class... Sh, std::size_t... K>(boost::mp11::mp_list<Sh...>, std::index_sequence<K...>) ETAD_SWEEP_INLINE_LAMBDA {
        in_order({(slot_tangent[K] = slot_own_tangent<Sh>(), 0)...});
      }(slot_list{}, std::make_index_sequence<slots>{});
    }
  }
};

template <class S, std::size_t N, class... Roots>
using sweep_for = sweep<S, N, roots_key<Roots...>>;

}  // namespace etad::detail
