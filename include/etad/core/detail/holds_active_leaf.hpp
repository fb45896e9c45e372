// etad/core/detail/holds_active_leaf.hpp — whether a type keeps an active leaf (an etad::real)
// in its data: what lets apply() (core/rule.hpp) reject a rule that holds a real as a parameter,
// whose gradient no sweep would ever see. C++20 has no reflection: aggregates are probed.
#pragma once

#include <etad/core/detail/expand.hpp>
#include <etad/core/expression.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace etad::detail {

// How a rule's data members are found without reflection (the technique of Boost.PFR): an
// aggregate T is brace-initialized, in unevaluated requires-expressions only, from probes that
// convert to anything. T{p0, ..., pn-1} compiles exactly while n is at most T's number of
// initializable positions (its bases, then its members; a C array member counts once per
// element, by brace elision); then position k is initialized from a probe that converts only
// to types that hold an active leaf: that compiles exactly when the member's type holds one.
// (Where the member is an aggregate that does not convert, brace elision hands the probe on to
// the aggregate's own first member, and so on down: a real inside nested aggregate members is
// found however deep.) A member whose type takes anything (std::any, a constructor template
// without constraints) also takes a probe that converts to nothing, and is then not reported:
// its content is unknown. Nothing here is ever called or defined: probes exist in
// declarations only.

/// Past this nesting of containers, tuples and aggregates reached through them, a type is taken
/// not to hold an active leaf: it bounds the work on self-referential types (struct t {
/// std::vector<t> kids; }) and on long chains of wrappers. A real five levels down (in an array
/// of tuples in a vector in a member struct of the rule) is still found.
inline constexpr std::size_t held_leaf_depth = 6;

template <class T, std::size_t Depth>
consteval bool class_holds_active_leaf();

/// Whether T is, or keeps in its data, an active leaf: T itself; an array of, or pointer to,
/// one; a std::tuple, std::pair or expression with one among its parts; a container, optional,
/// span or smart pointer of one (a type whose value_type or element_type holds one); an
/// aggregate with a member or base that holds one (probed as above). Other classes (with a
/// constructor or private members: lambdas, std::function) are opaque here. Variable templates,
/// and a function only for classes: this is asked of every member of every rule with
/// parameters, and the members are mostly numbers.
template <class T, std::size_t Depth>
inline constexpr bool holds_active_leaf_v = false;  // numbers, enums, functions, void
template <class T, std::size_t Depth>
  requires std::is_class_v<T>
inline constexpr bool holds_active_leaf_v<T, Depth> = class_holds_active_leaf<T, Depth>();
template <class T, std::size_t N, std::size_t Depth>
inline constexpr bool holds_active_leaf_v<T[N], Depth> =
    holds_active_leaf_v<std::remove_cv_t<T>, Depth>;
template <class T, std::size_t Depth>
inline constexpr bool holds_active_leaf_v<T*, Depth> = [] {
  if constexpr (requires { sizeof(T); })  // not a pointer to an incomplete type
    return holds_active_leaf_v<std::remove_cv_t<T>, Depth>;
  else
    return false;
}();

/// Converts to any member type (copied from an lvalue, so it also binds reference members).
struct any_member {
  template <class T>
  operator T&() const noexcept;
};

/// Converts only to a type that holds an active leaf.
template <std::size_t Depth>
struct leaf_member {
  template <class T>
    requires holds_active_leaf_v<std::remove_cv_t<T>, Depth>
  operator T&() const noexcept;
};

/// Converts to nothing: a member that takes it takes anything.
struct no_member {};

template <std::size_t>
using any_member_t = any_member;

/// T{p0, ..., pn-1} with n any_members (Seq = std::make_index_sequence<n>).
template <class T, class Seq>
inline constexpr bool braces_take_v = false;
template <class T, std::size_t... I>
inline constexpr bool braces_take_v<T, std::index_sequence<I...>> =
    requires { T{any_member_t<I>{}...}; };

/// Aggregates of more positions than this (a long C array member: one position per element) are
/// not probed: a probe per position of that many initializers would cost more than it is worth.
inline constexpr std::size_t max_probed_positions = 64;

/// The number of positions of an aggregate T: the largest n that braces_take_v accepts. The n
/// accepted form one run, from the first that initializes every member that needs it (a
/// reference, a type with no default constructor; usually n = 0) to the number of positions:
/// first_taken_v finds where it starts, taken_until_v where it ends. (Partial specializations
/// rather than a conditional: only the n visited are tried.) 0 for a T that takes no n, or more
/// than max_probed_positions.
template <class T, std::size_t N>
inline constexpr bool takes_n_v = braces_take_v<T, std::make_index_sequence<N>>;
template <class T, std::size_t N, bool Taken = takes_n_v<T, N>>
inline constexpr std::size_t taken_until_v = taken_until_v<T, N + 1>;
template <class T, std::size_t N>
inline constexpr std::size_t taken_until_v<T, N, false> = N - 1;
template <class T>
inline constexpr std::size_t taken_until_v<T, max_probed_positions + 1, true> = 0;
template <class T, std::size_t N = 0,
          bool Taken = (N > max_probed_positions || takes_n_v<T, N>)>
inline constexpr std::size_t first_taken_v = first_taken_v<T, N + 1>;
template <class T, std::size_t N>
inline constexpr std::size_t first_taken_v<T, N, true> = N;
template <class T, std::size_t First = first_taken_v<T>>
inline constexpr std::size_t aggregate_positions_v = taken_until_v<T, First + 1>;
template <class T>
inline constexpr std::size_t aggregate_positions_v<T, max_probed_positions + 1> = 0;

template <std::size_t I, std::size_t K, class Probe>
using probe_at_t = std::conditional_t<I == K, Probe, any_member>;

/// T{any, ..., Probe at K, ..., any} (Seq: all positions).
template <class T, std::size_t K, class Probe, class Seq>
inline constexpr bool position_takes_v = false;
template <class T, std::size_t K, class Probe, std::size_t... I>
inline constexpr bool position_takes_v<T, K, Probe, std::index_sequence<I...>> =
    requires { T{probe_at_t<I, K, Probe>{}...}; };

/// Position K takes a leaf_member, and not a no_member (tried only after the first).
template <class T, std::size_t K, class Seq, bool TakesLeaf>
inline constexpr bool leaf_at_v = false;
template <class T, std::size_t K, class Seq>
inline constexpr bool leaf_at_v<T, K, Seq, true> = !position_takes_v<T, K, no_member, Seq>;

template <class T, std::size_t Depth, class Seq>
inline constexpr bool aggregate_holds_leaf_v = false;
template <class T, std::size_t Depth, std::size_t... K>
inline constexpr bool aggregate_holds_leaf_v<T, Depth, std::index_sequence<K...>> =
    any_v<leaf_at_v<T, K, std::index_sequence<K...>,
                    position_takes_v<T, K, leaf_member<Depth + 1>, std::index_sequence<K...>>>...>;

template <class T, std::size_t Depth>
inline constexpr bool aggregate_holds_active_leaf_v =
    aggregate_holds_leaf_v<T, Depth, std::make_index_sequence<aggregate_positions_v<T>>>;

/// The parts of std::tuple, std::pair (also references) and node (an expression: its rule and
/// its children).
template <class T, std::size_t Depth>
inline constexpr bool parts_hold_leaf_v = false;
template <class... U, std::size_t Depth>
inline constexpr bool parts_hold_leaf_v<std::tuple<U...>, Depth> =
    any_v<holds_active_leaf_v<std::remove_cvref_t<U>, Depth + 1>...>;
template <class A, class B, std::size_t Depth>
inline constexpr bool parts_hold_leaf_v<std::pair<A, B>, Depth> =
    any_v<holds_active_leaf_v<std::remove_cvref_t<A>, Depth + 1>,
          holds_active_leaf_v<std::remove_cvref_t<B>, Depth + 1>>;
template <class Op, class... C, std::size_t Depth>
inline constexpr bool parts_hold_leaf_v<node<Op, C...>, Depth> =
    any_v<holds_active_leaf_v<Op, Depth + 1>, holds_active_leaf_v<C, Depth + 1>...>;

template <class T, std::size_t Depth>
consteval bool class_holds_active_leaf() {
  if constexpr (is_active_leaf_v<T>) {
    return true;
  } else if constexpr (Depth >= held_leaf_depth || std::is_empty_v<T>) {
    return false;
  } else if constexpr (parts_hold_leaf_v<T, Depth>) {
    return true;
  } else if constexpr (requires { typename T::value_type; }) {
    using V = std::remove_cv_t<typename T::value_type>;
    if constexpr (!std::is_same_v<V, T>) return holds_active_leaf_v<V, Depth + 1>;
    else return false;
  } else if constexpr (requires { typename T::element_type; }) {
    using V = std::remove_cv_t<typename T::element_type>;
    if constexpr (!std::is_same_v<V, T>) return holds_active_leaf_v<V, Depth + 1>;
    else return false;
  } else if constexpr (std::is_aggregate_v<T>) {
    return aggregate_holds_active_leaf_v<T, Depth>;
  } else {
    return false;
  }
}

/// Converts only to a type other than Rule that holds an active leaf: what a constructor
/// parameter of Rule is probed with (Rule itself is its copy constructor's).
template <class Rule>
struct rule_leaf_parameter {
  template <class T>
    requires(!std::is_same_v<std::remove_cv_t<T>, Rule> &&
             holds_active_leaf_v<std::remove_cv_t<T>, 1>)
  operator T&() const noexcept;
};

/// Whether a rule keeps a real in its data, as far as can be seen: an empty rule never; an
/// aggregate rule when one of its members or bases holds one (holds_active_leaf_v); a rule with
/// constructors when it has one of one parameter that holds one (the rule probably keeps it;
/// one that keeps only its value loses its gradient all the same). The members of such a rule
/// are not seen: a real that it keeps from a constructor of several parameters, or from
/// anywhere else, goes unnoticed.
template <class Rule>
inline constexpr bool rule_holds_active_leaf_v = [] {
  if constexpr (std::is_empty_v<Rule>)
    return false;
  else if constexpr (std::is_aggregate_v<Rule>)
    return aggregate_holds_active_leaf_v<Rule, 0>;
  else
    return std::is_constructible_v<Rule, rule_leaf_parameter<Rule>> &&
           !std::is_constructible_v<Rule, no_member>;
}();

}  // namespace etad::detail
