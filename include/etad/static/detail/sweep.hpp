// etad/static/detail/sweep.hpp — the compile-time sweeps over an expression type.
// Storage is laid out by the type: shared (input-only) subexpressions get slots, computed once
// in post-order; every other node keeps its value in a frame mirroring the tree. Forward, reverse
// and tangent sweeps are unrolled by the compiler: no tape, no heap, no virtual call.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/detail/expand.hpp>
#include <etad/core/expression.hpp>
#include <etad/core/rule.hpp>
#include <etad/static/detail/frame.hpp>
#include <etad/static/detail/product_plan.hpp>
#include <etad/static/detail/shared.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

namespace etad::detail {

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
  static constexpr bool early_slot_partials = false;
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

  /// Whether node E, not a shared slot, takes its partials early where it is not below a gate
  /// (the forward sweep's Early): early_partials_v. Whether a shared slot does: early_partials_v
  /// in a program whose key allows it (Key::early_slot_partials).
  template <class E>
  static constexpr bool node_takes_early_v =
      !E::input_only && early_partials_v<typename E::op_type, E::arity, S>;
  template <class E>
  static constexpr bool slot_takes_early_v =
      Key::early_slot_partials && early_partials_v<typename E::op_type, E::arity, S>;
  template <class... Sh>
  static flat_tuple<std::conditional_t<slot_takes_early_v<Sh>,
                                       kept_partials<typename Sh::op_type, Sh::arity, S>,
                                       no_partials>...>
      slot_partials_type(boost::mp11::mp_list<Sh...>);

  std::array<S, N> x{};
  // Input adjoints start at -0.0 too; an input that received nothing reports +0.0 (gradient()).
  // Without gates every flag is a compile-time true after inlining: no test, and the first
  // contribution to each input is a move, not an addition to +0.0.
  std::array<S, N> grad = filled<N>(-S(0));
  std::array<bool, N> input_reached{};
  std::array<S, N> dx{};
  decltype(slot_values_type(slot_list{})) slot_value{};
  // The partials of the slots that take them early (slot_takes_early_v); empty for the others.
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
    constexpr bool early = Partials && slot_takes_early_v<E>;
    if constexpr (early && !partials_need_value_v<typename E::op_type>)
      detail::get<K>(slot_partials).p = node_partials(E{}, empty_frame<frame<E, S>>, no_value());
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
        forward_slot_chunk<C, Partials && Key::early_slot_partials>();
      });
    } else if constexpr (Partials && Key::early_slot_partials) {
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
  /// whether a reverse or tangent sweep follows, which reads the partials kept in the frames
  /// (a fused rule's, and those taken early); evaluate() and a loop's value on numbers pass
  /// false, and then no partials are computed (a fused rule, a loop, computes its value only).
  /// Early: whether nodes take their partials early here (early_partials_v): in the static front
  /// doors (Key::early_partials), but not below a gate. Below a rule without a gradient (a
  /// comparison, stop_gradient, floor) nothing flows back, and no partials are computed at all;
  /// below a gate (select, min, max) the adjoint may never arrive, and the partials wait for it,
  /// as in the reverse sweep before partials were taken early: a partial that no adjoint needs is
  /// not computed, where it could be a division by zero in a constant expression or a throw from
  /// a user's rule. The reverse and tangent sweeps follow the same Early down the tree.
  template <bool Partials = true, bool Early = Key::early_partials, class E>
  ETAD_SWEEP_INLINE constexpr value_t<E, S> forward(const E& e, frame<E, S>& fr) {
    if constexpr (is_node_v<E> && !E::input_only) {
      using Op = typename E::op_type;
      constexpr bool partials_below = Partials && is_differentiable_v<Op>;
      constexpr bool early_below = Early && !is_gated_v<Op>;
      if constexpr (grouped_v<E>)
        [&]<std::size_t... G>(std::index_sequence<G...>) ETAD_SWEEP_INLINE_LAMBDA {
          in_order({(forward_group<partials_below, early_below, G>(e, fr), 0)...});
        }(std::make_index_sequence<group_count_v<E>>{});
      else
        [&]<std::size_t... I>(std::index_sequence<I...>) ETAD_SWEEP_INLINE_LAMBDA {
          in_order({(forward_child<partials_below, early_below>(detail::get<I>(e.children),
                                                                detail::get<I>(fr.kids)),
                     0)...});
        }(std::make_index_sequence<E::arity>{});
      constexpr bool early = Partials && Early && node_takes_early_v<E>;
      if constexpr (Partials && is_fused_v<Op>) {
        fused_value(e, fr);
      } else if constexpr (early && !partials_need_value_v<Op>) {
        // The partials do not read f: taken before the value, they run while its call does.
        fr.kept.p = node_partials(e, fr, no_value());
        fr.v = node_value(e, fr);
      } else {
        fr.v = node_value(e, fr);
        if constexpr (early) fr.kept.p = node_partials(e, fr, fr.v);
      }
    }
    return value(e, fr);
  }

  /// What a rule that declares partials_need_value = false gets for f: NaN, so that a rule
  /// that breaks the promise gives NaN rather than a plausible number.
  static constexpr S no_value() { return std::numeric_limits<S>::quiet_NaN(); }

  /// The partials of node e whose value is f, as S (taken early: see early_partials_v). A rule
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
        if constexpr (partials_usable<decltype(p), E::arity>())
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
        if constexpr (partials_usable<decltype(r.partials), E::arity>()) {
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
  template <bool Partials, bool Early, class C>
  ETAD_SWEEP_INLINE constexpr void forward_child(const C& c, frame<C, S>& cf) {
    if constexpr (outlined_v<C>)
      forward_outlined<Partials, Early>(c, cf);
    else
      forward<Partials, Early>(c, cf);
  }
  template <bool Partials, bool Early, class C>
  ETAD_OUTLINE constexpr void forward_outlined(const C& c, frame<C, S>& cf) {
    forward<Partials, Early>(c, cf);
  }
  /// forward() of the children of group G of a grouped node (grouped_v), in order.
  template <bool Partials, bool Early, std::size_t G, class E>
  ETAD_OUTLINE constexpr void forward_group(const E& e, frame<E, S>& fr) {
    constexpr std::size_t first = G * wide_group;
    [&]<std::size_t... J>(std::index_sequence<J...>) ETAD_SWEEP_INLINE_LAMBDA {
      in_order({(forward_child<Partials, Early>(detail::get<first + J>(e.children),
                                                detail::get<first + J>(fr.kids)),
                 0)...});
    }(std::make_index_sequence<group_size_v<E, G>>{});
  }

  // --- reverse ------------------------------------------------------------------------------
  /// f(child, child's frame, partial) for each child of e, in order (a gated rule's: where its
  /// gate is open). Early: the forward sweep's for e (see forward()).
  template <bool Early, class E, class F>
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
      if constexpr (is_fused_v<Op> && merges_first_argument_v<Op>) {
        // Kept by fused_value; the first child's partial is carried by a later child that is
        // the same expression (core/expression.hpp): nothing for the first, not 0 * adjoint.
        in_order({(I == 0 ? 0
                          : (f(detail::get<I>(e.children), detail::get<I>(k), fr.kept.p[I]), 0))...});
      } else if constexpr (is_fused_v<Op> || (Early && node_takes_early_v<E>)) {
        // Kept by the forward sweep (fused_value, or taken early).
        in_order({(f(detail::get<I>(e.children), detail::get<I>(k), fr.kept.p[I]), 0)...});
      } else if constexpr (E::input_only && slot_takes_early_v<E>) {
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
        if constexpr (!partials_usable<decltype(p), E::arity>()) {
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
  // (Early: the forward sweep's for the children; see forward().)
  template <bool Early>
  struct push_adjoint {
    sweep* self;
    S adj;
    template <class C>
    ETAD_SWEEP_INLINE constexpr void operator()(const C& c, const frame<C, S>& cf, const S& p) const {
      if constexpr (outlined_v<C>)
        self->template backward_outlined<Early>(c, cf, adj * p);
      else
        self->template backward<Early>(c, cf, adj * p);
    }
  };
  template <bool Early>
  struct add_tangent {
    const sweep* self;
    S* t;
    template <class C>
    ETAD_SWEEP_INLINE constexpr void operator()(const C& c, const frame<C, S>& cf, const S& p) const {
      S tc;
      if constexpr (outlined_v<C>)
        tc = self->template tangent_outlined<Early>(c, cf);
      else
        tc = self->template tangent<Early>(c, cf);
      if (tc != S(0)) *t += p * tc;
    }
  };

  /// Adds adj * d(e)/d(inputs) into grad (or into the slots that e reaches).
  /// (Early: the forward sweep's for e; see forward().)
  template <bool Early = Key::early_partials, class E>
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
      backward_product<product_plan_t<E>, 0, Early>(e, fr, adj);
    } else {
      for_each_partial<Early>(e, fr,
                              push_adjoint<Early && !is_gated_v<typename E::op_type>>{this, adj});
    }
  }
  template <bool Early, class C>
  ETAD_OUTLINE constexpr void backward_outlined(const C& c, const frame<C, S>& cf, const S& adj) {
    backward<Early>(c, cf, adj);
  }

  /// backward() of a product tree whose factors start at position At of Plan (see product_plan).
  template <class Plan, std::size_t At, bool Early, class E>
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
      if constexpr (partials_usable<decltype(p), E::arity>())
        in_order({(product_factor<Plan, At + start[I], flat, Early>(detail::get<I>(e.children),
                                                       detail::get<I>(k), adj,
                                                       static_cast<S>(std::get<I>(p))),
                   0)...});
    }(std::make_index_sequence<E::arity>{});
  }

  /// Child c of a product node in Plan, at position At; Flat: whether its parent's factors are
  /// its children's (then a product child is walked as part of the plan), or its children.
  template <class Plan, std::size_t At, bool Flat, bool Early, class C>
  ETAD_SWEEP_INLINE constexpr void product_factor(const C& c, const frame<C, S>& cf, const S& adj,
                                                  const S& p) {
    if constexpr (Plan::reaches(At, At + factor_span_v<Flat, C>)) {
      if constexpr (Flat && is_product_node_v<C>)
        backward_product<Plan, At, Early>(c, cf, adj * p);
      else if constexpr (Plan::weight[At] == 1)
        backward<Early>(c, cf, adj * p);
      else
        backward<Early>(c, cf, static_cast<S>(Plan::weight[At]) * (adj * p));
    }
  }

  /// After the tree's backward sweep: push the slots' adjoints to their children, last first.
  /// Always inlined (ETAD_PROGRAM_INLINE), for etad::call's statement (program::backward_one).
  ETAD_PROGRAM_INLINE constexpr void backward_slots_inlined() {
    if constexpr (chunked_slots) {
      for_each_slot_chunk<true>(
          [&]<std::size_t C>() ETAD_PROGRAM_INLINE_LAMBDA { backward_slot_chunk<C>(); });
    } else {
      [&]<std::size_t... K>(std::index_sequence<K...>) ETAD_PROGRAM_INLINE_LAMBDA {
        in_order({(backward_slot<slots - 1 - K>(), 0)...});
      }(std::make_index_sequence<slots>{});
    }
  }
  /// The same, inlined by the compiler's heuristics (the front doors flatten it with g++). The
  /// body is written twice on purpose: with the always-inlined one above in it, even called, the
  /// static gradient of sum over a pack of 10 took 96 instructions instead of 31 with g++.
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
        backward_product<product_plan_t<E>, 0, Key::early_partials>(
            E{}, empty_frame<frame<E, S>>, slot_adjoint[K]);
      else  // (Early means nothing for a slot and its children, all slots and leaves.)
        for_each_partial<Key::early_partials>(
            E{}, empty_frame<frame<E, S>>,
            push_adjoint<Key::early_partials>{this, slot_adjoint[K]});
    }
  }

  // --- tangents (forward mode) -----------------------------------------------------------------
  /// (Early: the forward sweep's for e; see forward().)
  template <bool Early = Key::early_partials, class E>
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
      return node_tangent<Early>(e, fr);
  }

  template <bool Early, class E>
  ETAD_SWEEP_INLINE constexpr S node_tangent(const E& e, const frame<E, S>& fr) const {
    S t = -S(0);  // identity of +, folded away by the compiler
    // A zero tangent contributes nothing, not p * 0 (NaN at an infinite partial): a jvp in a unit
    // direction is then that component of the gradient, where no tangent cancels to exactly 0 on
    // the way. One that cancels is skipped too: sqrt(x - x) has jvp 0 (its true derivative) where
    // the gradient, which multiplies sqrt's infinite partial by 1 and -1, is NaN.
    for_each_partial<Early>(e, fr,
                            add_tangent<Early && !is_gated_v<typename E::op_type>>{this, &t});
    return t;
  }
  template <bool Early, class C>
  ETAD_OUTLINE constexpr S tangent_outlined(const C& c, const frame<C, S>& cf) const {
    return tangent<Early>(c, cf);
  }

  template <class E>
  ETAD_SWEEP_INLINE constexpr S slot_own_tangent() const {
    if constexpr (is_differentiable_v<typename E::op_type>)
      return node_tangent<Key::early_partials>(E{}, empty_frame<frame<E, S>>);
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
