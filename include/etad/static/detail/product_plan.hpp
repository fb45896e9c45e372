// etad/static/detail/product_plan.hpp — a tree of product nodes (a * b * c ...) differentiated
// as one product of its factors: which factor receives a partial, and how many times its own.
#pragma once

#include <etad/core/expression.hpp>
#include <etad/core/rule.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>

namespace etad::detail {

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

}  // namespace etad::detail
