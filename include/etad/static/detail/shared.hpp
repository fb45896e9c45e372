// etad/static/detail/shared.hpp — finding the subexpressions a static sweep computes once.
// An input-only node (no constants, no stateful rule) is the same value wherever its type
// occurs, so all occurrences share one slot. Slots are listed children-first (post-order), which
// is an order in which each can be computed forwards and swept backwards.
//
// Cost matters here: a generated sum of 1000 terms has thousands of occurrences of input-only
// nodes. Each node's list is the union of its children's lists, each already free of duplicates,
// merged one child at a time; membership is tested against a class that inherits one tag per
// listed type (the compiler's own base-class lookup, no instantiation per test), so the work is
// about (occurrences x distinct slots) cheap tests, with recursion depth (children / 10) at most.
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

// The union of duplicate-free lists, in order. The first list is taken whole (it is usually the
// longest: the nested part of a long sum), the others are merged into it one by one.
template <class... L>
struct union_of {
  using type = mp::mp_list<>;
};
template <class First, class... Rest>
struct union_of<First, Rest...> {
  using type = mp::mp_fold<mp::mp_list<Rest...>, First, append_new_t>;
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

// Slot lookup: a class inheriting slot_entry<E, K> for every slot; the position of E is deduced
// from the one base that matches (declared only: used in decltype, never instantiated).
template <class E, std::size_t K>
struct slot_entry {};

template <class L, class Seq = std::make_index_sequence<mp::mp_size<L>::value>>
struct slot_map;
template <class... E, std::size_t... K>
struct slot_map<mp::mp_list<E...>, std::index_sequence<K...>> : slot_entry<E, K>... {};

template <class E, std::size_t K>
std::integral_constant<std::size_t, K> slot_index(const slot_entry<E, K>*);

/// Position of shared node E in the slots of map M.
template <class E, class M>
inline constexpr std::size_t slot_of_v =
    decltype(slot_index<E>(static_cast<const M*>(nullptr)))::value;

}  // namespace etad::detail
