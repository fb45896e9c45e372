// etad/ops/logical.hpp — comparisons, logic on their results, and select(c, a, b).
// Comparisons of expressions are expressions (predicates, bool-valued, never differentiated);
// select is the static counterpart of tf.cond: both sides are evaluated, only the taken side
// receives gradient.
#pragma once

#include <etad/core/rule.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace etad {

namespace detail {
template <class Compare>
struct predicate_rule {
  static constexpr std::size_t arity = 2;
  static constexpr bool predicate = true;
  static constexpr bool value(const auto& a, const auto& b) { return Compare{}(a, b); }
};
struct lt { constexpr bool operator()(const auto& a, const auto& b) const { return bool(a < b); } };
struct le { constexpr bool operator()(const auto& a, const auto& b) const { return bool(a <= b); } };
struct gt { constexpr bool operator()(const auto& a, const auto& b) const { return bool(a > b); } };
struct ge { constexpr bool operator()(const auto& a, const auto& b) const { return bool(a >= b); } };
struct eq { constexpr bool operator()(const auto& a, const auto& b) const { return bool(a == b); } };
struct ne { constexpr bool operator()(const auto& a, const auto& b) const { return bool(a != b); } };
struct land { constexpr bool operator()(bool a, bool b) const { return a && b; } };
struct lor { constexpr bool operator()(bool a, bool b) const { return a || b; } };

template <class T>
concept boolean_expression = expression<T> && requires { requires is_predicate_v<typename T::op_type>; };
template <class A, class B>
concept boolean_operands = (boolean_expression<A> || std::is_same_v<A, bool>) &&
                           (boolean_expression<B> || std::is_same_v<B, bool>) &&
                           (boolean_expression<A> || boolean_expression<B>);
template <class T>
concept condition = boolean_expression<T> || std::is_same_v<T, bool>;
}  // namespace detail

struct less_op : detail::predicate_rule<detail::lt> { static constexpr std::string_view name = "less"; };
struct less_equal_op : detail::predicate_rule<detail::le> { static constexpr std::string_view name = "less_equal"; };
struct greater_op : detail::predicate_rule<detail::gt> { static constexpr std::string_view name = "greater"; };
struct greater_equal_op : detail::predicate_rule<detail::ge> { static constexpr std::string_view name = "greater_equal"; };
struct equal_op : detail::predicate_rule<detail::eq> { static constexpr std::string_view name = "equal"; };
struct not_equal_op : detail::predicate_rule<detail::ne> { static constexpr std::string_view name = "not_equal"; };
struct logical_and_op : detail::predicate_rule<detail::land> { static constexpr std::string_view name = "logical_and"; };
struct logical_or_op : detail::predicate_rule<detail::lor> { static constexpr std::string_view name = "logical_or"; };

struct logical_not_op {
  static constexpr std::string_view name = "logical_not";
  static constexpr std::size_t arity = 1;
  static constexpr bool predicate = true;
  static constexpr bool value(bool a) { return !a; }
};

template <class A, class B> requires detail::mixed_operands<A, B>
constexpr auto operator<(const A& a, const B& b) { return etad::apply(less_op{}, a, b); }
template <class A, class B> requires detail::mixed_operands<A, B>
constexpr auto operator<=(const A& a, const B& b) { return etad::apply(less_equal_op{}, a, b); }
template <class A, class B> requires detail::mixed_operands<A, B>
constexpr auto operator>(const A& a, const B& b) { return etad::apply(greater_op{}, a, b); }
template <class A, class B> requires detail::mixed_operands<A, B>
constexpr auto operator>=(const A& a, const B& b) { return etad::apply(greater_equal_op{}, a, b); }
template <class A, class B> requires detail::mixed_operands<A, B>
constexpr auto operator==(const A& a, const B& b) { return etad::apply(equal_op{}, a, b); }
template <class A, class B> requires detail::mixed_operands<A, B>
constexpr auto operator!=(const A& a, const B& b) { return etad::apply(not_equal_op{}, a, b); }

namespace detail {
// A plain bool operand of && or || becomes a constant<bool> leaf, as in select (as_expression
// takes numbers, not bools).
template <class T>
constexpr auto as_condition(const T& c) {
  if constexpr (std::is_same_v<T, bool>)
    return constant<bool>{c};
  else
    return c;
}
}  // namespace detail

template <class A, class B> requires detail::boolean_operands<A, B>
constexpr auto operator&&(const A& a, const B& b) {
  return node<logical_and_op, decltype(detail::as_condition(a)), decltype(detail::as_condition(b))>{
      {}, detail::as_condition(a), detail::as_condition(b)};
}
template <class A, class B> requires detail::boolean_operands<A, B>
constexpr auto operator||(const A& a, const B& b) {
  return node<logical_or_op, decltype(detail::as_condition(a)), decltype(detail::as_condition(b))>{
      {}, detail::as_condition(a), detail::as_condition(b)};
}
template <detail::boolean_expression A>
constexpr auto operator!(const A& a) { return node<logical_not_op, A>{{}, a}; }

/// select(c, a, b) = c ? a : b, where c is a comparison of expressions (or a bool). Both a and b
/// are evaluated; the gradient flows into the taken side only, and the other side gets nothing
/// (not 0 * its partials): select(x > 0, sqrt(x), 0) at x = 0 has gradient 0, not NaN.
struct select_op {
  static constexpr std::string_view name = "select";
  static constexpr std::size_t arity = 3;
  static constexpr auto value(const auto& c, const auto& a, const auto& b) { return c ? a : b; }
  static constexpr auto partials(const auto& c, const auto& a, const auto&, const auto&) {
    using T = std::remove_cvref_t<decltype(a)>;
    return std::array{T(0), c ? T(1) : T(0), c ? T(0) : T(1)};
  }
  static constexpr bool gated = true;
  static constexpr auto gate(const auto& c, const auto&, const auto&, const auto&) {
    return std::array<bool, 3>{false, bool(c), !bool(c)};
  }
};

template <class C, operand A, operand B>
  requires detail::condition<C>
constexpr auto select(const C& c, const A& a, const B& b) {
  if constexpr (!expression<C> && !expression<A> && !expression<B>)
    return c ? a : b;
  else if constexpr (expression<C>)
    return node<select_op, C, as_expression_t<A>, as_expression_t<B>>{{}, c, as_expression(a), as_expression(b)};
  else
    return node<select_op, constant<bool>, as_expression_t<A>, as_expression_t<B>>{
        {}, constant<bool>{c}, as_expression(a), as_expression(b)};
}

}  // namespace etad
