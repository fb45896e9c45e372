// etad/ops/arithmetic.hpp — + - * / and unary minus, as rules and operators.
// `a + b + c + ...` builds ONE n-ary sum node rather than a left-deep chain, so a sum of a
// thousand terms is one level deep: no sweep recurses a thousand times.
#pragma once

#include <etad/core/rule.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace etad {

/// x0 + x1 + ... + xn (n-ary; evaluated left to right, so rounding is that of the chain of binary
/// additions). Domain everything. Each partial is 1.
struct sum_op {
  static constexpr std::string_view name = "sum";
  template <class... X>
  static constexpr auto value(const X&... x) { return (... + x); }
  template <class... X>
  static constexpr auto partials(const X&... x) {
    std::array<int, sizeof...(X) - 1> p{};  // the last argument is f
    p.fill(1);
    ((void)x, ...);
    return p;
  }
};

/// a - b. Partials 1, -1.
struct sub_op {
  static constexpr std::string_view name = "sub";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { return a - b; }
  static constexpr auto partials(const auto&, const auto&, const auto&) { return std::array{1, -1}; }
};

/// -a. Partial -1.
struct neg_op {
  static constexpr std::string_view name = "neg";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& a) { return -a; }
  static constexpr auto partials(const auto&, const auto&) { return std::array{-1}; }
};

/// a * b. Partials b, a.
struct mul_op {
  static constexpr std::string_view name = "mul";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { return a * b; }
  static constexpr auto partials(const auto& a, const auto& b, const auto&) { return std::array{b, a}; }
};

/// a / b. Partials 1/b, -f/b (f = a/b). At b = 0 the partials are ±inf or NaN, as IEEE gives.
struct div_op {
  static constexpr std::string_view name = "div";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& a, const auto& b) { return a / b; }
  static constexpr auto partials(const auto&, const auto& b, const auto& f) {
    return std::array{1 / b, -f / b};
  }
};

namespace detail {

template <class T>
inline constexpr bool is_sum_v = false;
template <class... C>
inline constexpr bool is_sum_v<node<sum_op, C...>> = true;

// The children of a sum (itself if it is no sum), as a callable's argument pack.
template <class E, class F>
constexpr auto with_terms(const E& e, F&& f) {
  if constexpr (is_sum_v<E>)
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return f(get<I>(e.children)...);
    }(std::make_index_sequence<E::arity>{});
  else
    return f(e);
}

template <class A, class B>
constexpr auto make_sum(const A& a, const B& b) {
  return with_terms(a, [&](const auto&... x) {
    return with_terms(b, [&](const auto&... y) {
      return node<sum_op, std::remove_cvref_t<decltype(x)>..., std::remove_cvref_t<decltype(y)>...>{
          sum_op{}, x..., y...};
    });
  });
}

}  // namespace detail

template <class A, class B>
  requires detail::mixed_operands<A, B>
constexpr auto operator+(const A& a, const B& b) {
  return detail::make_sum(as_expression(a), as_expression(b));
}

/// A difference whose left side is a sum extends the sum with a negated term; otherwise it is a
/// sub node. Either way the value is bitwise that of the binary chain (a - b == a + (-b)).
template <class A, class B>
  requires detail::mixed_operands<A, B>
constexpr auto operator-(const A& a, const B& b) {
  if constexpr (detail::is_sum_v<as_expression_t<A>>)
    return detail::make_sum(a, as_expression(etad::apply(neg_op{}, b)));
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
