// etad/ops/arithmetic.hpp — + - * / and unary minus, as rules and operators.
// `a + b + c + ...` builds ONE n-ary sum node rather than a left-deep chain, so a sum of a
// thousand terms is one level deep: no sweep recurses a thousand times.
#pragma once

#include <etad/core/rule.hpp>

#include <boost/mp11/list.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace etad {

/// x0 + x1 + ... + xn (n-ary, at most detail::max_sum_width terms; evaluated left to right, so
/// rounding is that of the chain of binary additions). Domain everything. Each partial is 1.
struct sum_op {
  static constexpr std::string_view name = "sum";
  template <class X0, class... X>
  static constexpr auto value(const X0& x0, const X&... x) {
    if constexpr (sizeof...(X) < detail::max_fold) {
      return (x0 + ... + x);
    } else {
      detail::common_t<X0, X...> r = x0;
      detail::in_order({(r = r + x, 0)...});
      return r;
    }
  }
  template <class... X>
  static constexpr auto partials([[maybe_unused]] const X&... x) {
    std::array<int, sizeof...(X) - 1> p{};  // the last argument is f
    p.fill(1);
    return p;
  }
};

/// a - b. Domain R^2. Partials 1, -1 everywhere, also at inf and NaN (inf - inf = NaN is the
/// value's, not the partials').
struct sub_op {
  static constexpr std::string_view name = "sub";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { return a - b; }
  static constexpr auto partials(const auto&, const auto&, const auto&) { return std::array{1, -1}; }
};

/// -a. Domain R. Partial -1 everywhere.
struct neg_op {
  static constexpr std::string_view name = "neg";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& a) { return -a; }
  static constexpr auto partials(const auto&, const auto&) { return std::array{-1}; }
};

/// a * b. Domain R^2. Partials b, a as they are: at (inf, 0) the value is NaN (IEEE inf * 0) and
/// the partials 0 and inf, which the sweep multiplies by the adjoint under IEEE rules. A product rule (core/rule.hpp): in a static gradient, a tree of * is
/// differentiated as one product, a factor repeated k times getting k times one partial.
struct mul_op {
  static constexpr std::string_view name = "mul";
  static constexpr std::size_t arity = 2;
  static constexpr bool product = true;
  static constexpr auto value(const auto& a, const auto& b) { return a * b; }
  static constexpr auto partials(const auto& a, const auto& b, const auto&) { return std::array{b, a}; }
};

/// a / b. Partials 1/b, -f/b (f = a/b), computed as r = 1/b and -f r. At b = 0 the partials are ±inf or NaN, as IEEE gives.
struct div_op {
  static constexpr std::string_view name = "div";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { return a / b; }
  static constexpr auto partials(const auto&, const auto& b, const auto& f) {
    // One reciprocal, not two divisions: in a loop with a fixed b (map_sum over data) it is
    // hoisted, and division throughput was what bounded such loops.
    const auto r = 1 / b;
    return std::tuple{r, -f * r};  // a tuple: on nested reals the two are different expressions
  }
};

namespace detail {

template <class... C>
using node_of_sum = node<sum_op, C...>;

template <class T>
inline constexpr bool is_sum_v = false;
template <class... C>
inline constexpr bool is_sum_v<node<sum_op, C...>> = true;

template <class T>
inline constexpr bool is_sub_v = false;
template <class A, class B>
inline constexpr bool is_sub_v<node<sub_op, A, B>> = true;

/// The widest sum node `+` builds. A chain t0 + t1 + ... fills one node up to this width, then
/// opens a new node whose first child is the full one: depth grows like n / 32 and each `+` costs
/// O(32) at compile time. (Unbounded flattening made every intermediate type carry all previous
/// terms: quadratic compile time and memory, and clang refuses folds over more than 256.) It is
/// the width of one chunk of a node's children (flat_chunk): a chain of `+` builds ~32 node types
/// per node, and wider ones pay for the two-level tuple each time (a 300-term chain compiled in
/// 53 s with g++ and 72 s with clang at width 64, 22 s and 20 s at 32).
inline constexpr std::size_t max_sum_width = flat_chunk;

// a + b where a may be a sum to extend. b is one term even if it is a sum itself, so that the
// user's grouping a + (b + c) is kept; the value is bitwise that of C++'s left-to-right chain.
template <class A>
consteval bool extensible_sum() {
  if constexpr (is_sum_v<A>)
    return A::arity < max_sum_width;
  else
    return false;
}

/// The sum node of A's terms and then B.
template <class A, class B>
using appended_sum_t =
    boost::mp11::mp_rename<boost::mp11::mp_push_back<typename A::children_types, B>, node_of_sum>;

}  // namespace detail

// A chain t0 + t1 + ... + tn instantiates, per `+`, only operator+ itself and the new node's
// append constructor (its tuple is an aggregate): every function whose signature names the sum
// so far costs compile time that grows faster than the chain (see docs/compile-time.md), so
// there is no helper between them. Expressions are passed on by
// reference, not through as_expression's copy: with more than a few constants g++ stopped
// scalarizing the copies of the growing sum (26x on a 10-term polynomial).
template <class A, class B>
  requires detail::mixed_operands<A, B>
constexpr auto operator+(const A& a, const B& b) {
  if constexpr (detail::extensible_sum<A>()) {
    if constexpr (expression<B>)
      return detail::appended_sum_t<A, B>(detail::append, sum_op{}, a.children, b);
    else
      return detail::appended_sum_t<A, constant<B>>(detail::append, sum_op{}, a.children,
                                                    constant<B>{b});
  } else if constexpr (expression<A> && expression<B>) {
    return node<sum_op, A, B>(sum_op{}, a, b);
  } else if constexpr (expression<A>) {
    return node<sum_op, A, constant<B>>(sum_op{}, a, constant<B>{b});
  } else {
    return node<sum_op, constant<A>, B>(sum_op{}, constant<A>{a}, b);
  }
}

/// A difference whose left side is a sum or a difference extends a sum with a negated term, so
/// long chains of + and - stay shallow; otherwise it is a sub node. Either way the value is
/// bitwise that of the binary chain (a - b == a + (-b) in IEEE arithmetic).
template <class A, class B>
  requires detail::mixed_operands<A, B>
constexpr auto operator-(const A& a, const B& b) {
  if constexpr (detail::is_sum_v<as_expression_t<A>> || detail::is_sub_v<as_expression_t<A>>)
    return a + as_expression(etad::apply(neg_op{}, b));
  else
    return etad::apply(sub_op{}, a, b);
}

template <class A, class B>
  requires detail::mixed_operands<A, B>
constexpr auto operator*(const A& a, const B& b) {
  return etad::apply(mul_op{}, a, b);
}

template <class A, class B>
  requires detail::mixed_operands<A, B>
constexpr auto operator/(const A& a, const B& b) {
  return etad::apply(div_op{}, a, b);
}

template <expression A>
constexpr auto operator-(const A& a) {
  return etad::apply(neg_op{}, a);
}

template <expression A>
constexpr auto operator+(const A& a) {
  return a;
}

}  // namespace etad
