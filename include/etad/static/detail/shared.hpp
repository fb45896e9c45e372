// etad/static/detail/shared.hpp — finding the subexpressions a static sweep computes once.
// An input-only node (no constants, no stateful rule) is the same value wherever its type
// occurs, so all occurrences share one slot. Slots are listed children-first (post-order), which
// is an order in which each can be computed forwards and swept backwards.
//
// Cost matters here: a generated sum of 1000 terms has thousands of occurrences of input-only
// nodes. Each node's list is the union of its children's lists, each already free of duplicates
// (merged in a balanced way, see union_of); membership is tested against a class that inherits
// one tag per listed type (the compiler's own base-class lookup, no instantiation per test), with
// recursion depth log2(children) at most.
#pragma once

#include <etad/core/expression.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace etad::detail {

namespace mp = boost::mp11;

template <class... T>
struct type_set : std::type_identity<T>... {};

/// The duplicate-free list L followed by the elements of the duplicate-free list M that L lacks.
template <class L, class M>
struct append_new;
template <class... A, class... B>
struct append_new<mp::mp_list<A...>, mp::mp_list<B...>> {
  using type = mp::mp_append<
      mp::mp_list<A...>,
      mp::mp_if_c<__is_base_of(std::type_identity<B>, type_set<A...>), mp::mp_list<>,
                  mp::mp_list<B>>...>;
};
template <class L, class M>
using append_new_t = typename append_new<L, M>::type;

// The union of duplicate-free lists, in order (each element where it first occurs). Each merge
// builds a list (and a type_set) as long as its result, so merging m lists one by one into a
// growing list costs O(m x result) of the compiler's memory, which it keeps: a 1000-term sum
// took g++ gigabytes. So the first list (usually the longest: the nested part of a long sum) is
// merged once, with the union of the others, and those are merged pairwise, in rounds that
// halve their number: O(result x log m).
template <class L>
struct union_round;
template <class... L>
using union_round_t = typename union_round<mp::mp_list<L...>>::type;
template <class... L>
struct union_round<mp::mp_list<L...>> {
  template <std::size_t... I>
  static auto pairs(std::index_sequence<I...>)
      -> mp::mp_list<append_new_t<type_at_t<mp::mp_list<L...>, 2 * I>,
                                  type_at_t<mp::mp_list<L...>, 2 * I + 1>>...>;
  using merged = decltype(pairs(std::make_index_sequence<sizeof...(L) / 2>{}));
  using last = type_at_t<mp::mp_list<L...>, sizeof...(L) - 1>;  // left over when m is odd
  using type = mp::mp_if_c<sizeof...(L) % 2 == 0, merged, mp::mp_push_back<merged, last>>;
};

template <class... L>
struct balanced_union {
  using type = typename mp::mp_apply<balanced_union, union_round_t<L...>>::type;
};
template <>
struct balanced_union<> {
  using type = mp::mp_list<>;
};
template <class L>
struct balanced_union<L> {
  using type = L;
};

template <class... L>
struct union_of {
  using type = mp::mp_list<>;
};
template <class First, class... Rest>
struct union_of<First, Rest...> {
  using type = append_new_t<First, typename balanced_union<Rest...>::type>;
};
template <class... L>
using union_t = typename union_of<L...>::type;

template <class E>
struct collect_shared {
  using type = mp::mp_list<>;
};

template <class Op, class... C>
struct collect_shared<node<Op, C...>> {
  using children = union_t<typename collect_shared<C>::type...>;
  // An input-only node cannot occur below itself: no test needed before appending it.
  using type = mp::mp_if_c<node<Op, C...>::input_only,
                           mp::mp_push_back<children, node<Op, C...>>, children>;
};

/// The shared slots of a set of root expressions, without duplicates.
template <class... Roots>
using shared_t = union_t<typename collect_shared<Roots>::type...>;

}  // namespace etad::detail
