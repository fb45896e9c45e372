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
/// types are, so the static sweep computes each of them once (common subexpression sharing). A
/// leaf type that says input_only = true must therefore be an empty class (checked by node).
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
/// from the point at which the sweep is run. Level and Owner tell traced functions apart: the
/// front doors and loops call a function F with arg<I, Level, F> (a loop's body, static/loop.hpp,
/// one level above its enclosing function's placeholders), so that a placeholder F captured from
/// an enclosing traced function instead of taking it as an argument is caught, in one trace.
/// arg<I> itself (Owner void) is a placeholder a user builds by hand.
template <std::size_t I, std::size_t Level = 0, class Owner = void>
struct arg {
  using etad_expression = void;
  using owner = Owner;
  static constexpr bool input_only = true;
  static constexpr std::size_t index = I;
  static constexpr std::size_t level = Level;
};

/// constant<T>: a run-time number inside an expression; its gradient is zero. Held by value.
template <class T>
struct constant {
  using etad_expression = void;
  static constexpr bool input_only = false;  // two constants of one type may differ in value
  T value;
};

template <class Op, class... Children>
struct node;

namespace detail {
/// Whether expression E has a placeholder (a gradient()'s input) among its leaves; defined below.
template <class E>
struct has_placeholder_leaf;
}  // namespace detail

/// A fused rule (core/rule.hpp) computes its value and its partials in one call,
/// value_and_partials(args...), for functions whose partials come out of computing the value and
/// would cost as much again apart (a loop: static/loop.hpp). The sweep keeps the partials in the
/// node's frame from the forward sweep to the reverse or tangent one, so such a node is never a
/// shared slot (node::input_only). A fused rule is neither gated nor a product rule.
template <class Rule>
inline constexpr bool is_fused_v = requires { requires bool(Rule::fused); };
namespace detail {
/// Internal to etad's own fused rules, not part of the rule protocol (core/rule.hpp): a rule
/// that says `merges_first_argument = true` was built knowing that its first argument is also
/// one of its later ones, the same input-only expression (a loop whose initial state is also a
/// parameter: static/loop.hpp, which checks it), and gives that later argument the partial of
/// both. The sweeps then pass nothing to the first, not 0 * adjoint, which is NaN where the
/// adjoint is infinite.
template <class Rule>
inline constexpr bool merges_first_argument_v =
    requires { requires bool(Rule::merges_first_argument); };
}  // namespace detail
template <class T>
inline constexpr bool is_node_v = false;
template <class Op, class... C>
inline constexpr bool is_node_v<node<Op, C...>> = true;

namespace detail {
/// The number of nodes and leaves of an expression.
template <class E>
inline constexpr std::size_t node_count_v = 1;
template <class Op, class... C>
inline constexpr std::size_t node_count_v<node<Op, C...>> = 1 + sum_of({node_count_v<C>...});
/// A node of more than ETAD_OUTLINE_LIMIT nodes is held by its parent in a one-element array
/// (see flat_leaf in core/detail/flat_tuple.hpp: g++'s points-to analysis does not descend into it).
template <class Op, class... C>
inline constexpr bool boxed_v<node<Op, C...>> = (node_count_v<node<Op, C...>> > ETAD_OUTLINE_LIMIT);
}  // namespace detail

namespace detail {
/// Tag of node's constructor that builds a node from another node's children plus one more.
struct append_t {
  explicit append_t() = default;
};
inline constexpr append_t append{};

/// A rule without parameters (an empty struct, default-built for free) is not stored: a node
/// makes one when asked (op()).
template <class Op>
inline constexpr bool stored_rule_v =
    !(std::is_empty_v<Op> && std::is_trivially_default_constructible_v<Op>);

/// A child that need not be stored: input-only (its value follows from its type), and an empty
/// class that is built for free (so a static default-built one can stand for it).
template <class T>
inline constexpr bool stateless_v = T::input_only && std::is_empty_v<T> &&
                                    std::is_trivially_default_constructible_v<T>;

/// What a node holds: its children unless all of them are stateless, and its rule when that has
/// parameters; nothing when neither (its type says it all).
enum class node_layout { nothing, children, rule, children_and_rule };
template <class Op, class... C>
inline constexpr node_layout layout_of_v =
    all_v<stateless_v<std::remove_cvref_t<C>>...>
        ? (stored_rule_v<Op> ? node_layout::rule : node_layout::nothing)
        : (stored_rule_v<Op> ? node_layout::children_and_rule : node_layout::children);

/// An input-only leaf (not a node) is an empty class: equal types must mean equal values.
template <class T>
inline constexpr bool valid_input_only_v =
    !T::input_only || is_node_v<T> || std::is_empty_v<T>;

// Why not an empty base or an empty member for a rule without parameters or a stateless child
// (as until this layout): C++ gives two subobjects of one type distinct addresses, and nested
// nodes with one rule (c * x * y is mul(mul(c, x), y)) put such subobjects at one address, so
// the compiler padded them apart: the 100-term chain of issue 2 took 3,224 bytes for its 800 bytes of
// constants, and a chain of `+`, whose temporaries copy the sum so far at every `+`, overflowed
// an 8 MiB stack at 1000 terms. An empty node_storage is a base of its node alone.
template <node_layout L, class Op, class... C>
struct node_storage;
template <class Op, class... C>
struct node_storage<node_layout::nothing, Op, C...> {
  static constexpr flat_tuple<C...> children{};
  static constexpr Op op() noexcept { return Op{}; }
};
template <class Op, class... C>
struct node_storage<node_layout::children, Op, C...> {
  flat_tuple<C...> children;
  static constexpr Op op() noexcept { return Op{}; }
};
template <class Op, class... C>
struct node_storage<node_layout::rule, Op, C...> {
  static constexpr flat_tuple<C...> children{};
  Op rule;
  constexpr const Op& op() const noexcept { return rule; }
};
template <class Op, class... C>
struct node_storage<node_layout::children_and_rule, Op, C...> {
  flat_tuple<C...> children;
  Op rule;
  constexpr const Op& op() const noexcept { return rule; }
};
}  // namespace detail

/// node<Op, Children...>: Op applied to its children, held by value, so `auto e = x * y;` never
/// dangles. Op is a rule struct (see core/rule.hpp). Only state takes space: rules without
/// parameters and stateless input-only subexpressions (such as sin(x) * y over placeholders)
/// are not stored (detail::node_storage).
template <class Op, class... Children>
struct [[nodiscard]] node
    : private detail::node_storage<detail::layout_of_v<Op, Children...>, Op, Children...> {
 private:
  static constexpr detail::node_layout layout = detail::layout_of_v<Op, Children...>;
  static constexpr bool outlined_append = detail::node_count_v<node> > ETAD_OUTLINE_LIMIT;
  using storage = detail::node_storage<layout, Op, Children...>;

 public:
  using etad_expression = void;
  using op_type = Op;
  using children_types = boost::mp11::mp_list<Children...>;
  static constexpr std::size_t arity = sizeof...(Children);
  // A fused rule keeps its partials in its frame, so its node is never shared (is_fused_v).
  static constexpr bool input_only =
      std::is_empty_v<Op> && !is_fused_v<Op> &&
      detail::all_v<std::remove_cvref_t<Children>::input_only...>;
  static_assert(detail::all_v<detail::valid_input_only_v<std::remove_cvref_t<Children>>...>,
                "etad: a leaf type that says input_only = true must be an empty class (equal types "
                "must mean equal values); give a leaf with data members input_only = false");

  /// The children (a flat_tuple; read them with get<I>), and the rule (with its parameters, if
  /// it has any).
  using storage::children;
  using storage::op;

  constexpr node() = default;
  // One constructor per layout, chosen by constraint, rather than constructors of node_storage:
  // building a node then instantiates one function, not two with names as long as the node's
  // (see the append constructor).
  constexpr node(const Op& o, const Children&... c)
    requires(layout == detail::node_layout::children_and_rule)
      : storage{detail::flat_tuple<Children...>{c...}, o} {}
  constexpr node(const Op&, const Children&... c)
    requires(layout == detail::node_layout::children)
      : storage{detail::flat_tuple<Children...>{c...}} {}
  constexpr node(const Op& o, const Children&...)
    requires(layout == detail::node_layout::rule)
      : storage{o} {}
  constexpr node(const Op&, const Children&...) noexcept
    requires(layout == detail::node_layout::nothing)
  {}
  /// The children of `prev` (a one-level tuple) and then `last`: how `+` extends a sum (whose
  /// rule has no parameters: no layout with a rule). The children are copied here, so that the
  /// only functions instantiated per `+` are the operator and this constructor (each names the
  /// whole sum so far, and g++ spends time cubic in a name's distinct parts over a chain: see
  /// docs/compile-time.md).
  template <std::size_t... J, class... Q, class Last>
  constexpr node(detail::append_t, const Op&,
                 const detail::flat_tuple_impl<std::index_sequence<J...>, Q...>& prev,
                 const Last& last)
    requires(layout == detail::node_layout::children && !outlined_append)
      : storage{{static_cast<const detail::flat_leaf<J, Q>&>(prev)..., last}} {}
  /// The same for a sum of more than ETAD_OUTLINE_LIMIT nodes, never inlined with clang
  /// (ETAD_OUTLINE_BUILD). Each `+` of a long chain copies the sum so far, so inlining all of
  /// them builds one function of quadratic size. clang leaves the large ones out of line by
  /// itself while these constructors have external linkage, but not once a function's
  /// placeholders name it (static/gradient.hpp, placeholder_t): every expression type of the
  /// function then has internal linkage, and clang inlines a function called once whatever its
  /// size (the 1000-term chain compiled in 602 s instead of 162). Sums of at most
  /// ETAD_OUTLINE_LIMIT nodes are built exactly as before.
  template <std::size_t... J, class... Q, class Last>
  ETAD_OUTLINE_BUILD constexpr node(detail::append_t, const Op&,
                                    const detail::flat_tuple_impl<std::index_sequence<J...>, Q...>& prev,
                                    const Last& last)
    requires(layout == detail::node_layout::children && outlined_append)
      : storage{{static_cast<const detail::flat_leaf<J, Q>&>(prev)..., last}} {}
  template <class Prev, class Last>
  constexpr node(detail::append_t, const Op&, const Prev&, const Last&) noexcept
    requires(layout == detail::node_layout::nothing)
  {}
  // User-provided on purpose: a trivially copyable prvalue may be built in a temporary and
  // block-copied, which g++ did for sums of several terms (a store-forwarding stall per copy); a
  // non-trivial one is built in place. It also made clang compile a 100-term sum 4x faster.
  // An input-only node holds nothing, so its copy copies nothing: copying every node below it,
  // one call each, made a chain of `+` of stateless terms (which copies the sum so far at every
  // `+`) quadratic for g++ to inline: 35 s to build a 500-term chain, 3.7 s this way.
  // (Tried: a defaulted copy of input-only nodes. It made the nodes with state above them 4x
  // slower to differentiate with either compiler and g++ twice as slow to compile them.)
  constexpr node(const node& o)
    requires(layout != detail::node_layout::nothing)
      : storage(o) {}
  constexpr node(const node&) noexcept
    requires(layout == detail::node_layout::nothing)
  {}
  constexpr node& operator=(const node&) = default;

  /// A comparison whose leaves carry values (reals, numbers) converts to bool, so that
  /// `if (x < y)` and `while (z < 100)` work on reals. evaluate() is found by argument-dependent
  /// lookup when this is used (it lives in static/evaluate.hpp, included by etad.hpp).
  constexpr explicit operator bool() const
    requires requires { requires bool(Op::predicate); }
  {
    if constexpr (detail::has_placeholder_leaf<node>::value) {
      static_assert(!detail::has_placeholder_leaf<node>::value,
                    "etad: an `if` or loop condition on the inputs that gradient(), jvp() or "
                    "jacobian() trace f with has no value while f is traced; use "
                    "etad::select(c, a, b) or etad::loop / etad::while_loop, or record f on an "
                    "etad::tape, where branches on values work");
      return false;
    } else {
      return evaluate(*this);
    }
  }
};

namespace detail {
template <class E, std::size_t I>
using child_t_of = type_at_t<typename E::children_types, I>;
}  // namespace detail


/// An active leaf carries a run-time value and takes part in differentiation through its own
/// identity (a tape handle, for instance): it says so with `static constexpr bool active_leaf`
/// and exposes `value()`. The static sweep keeps one adjoint per occurrence of such a leaf.
template <class T>
inline constexpr bool is_active_leaf_v = requires { requires bool(T::active_leaf); };

template <class T>
inline constexpr bool is_arg_v = false;
template <std::size_t I, std::size_t L, class O>
inline constexpr bool is_arg_v<arg<I, L, O>> = true;

namespace detail {
template <class E>
struct has_placeholder_leaf : std::bool_constant<is_arg_v<E>> {};
template <class Op, class... C>
struct has_placeholder_leaf<node<Op, C...>>
    : std::bool_constant<(has_placeholder_leaf<C>::value || ...)> {};
}  // namespace detail

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
