// etad/static/detail/shared.hpp — finding the subexpressions a static sweep computes once.
// An input-only node (no constants, no stateful rule) is the same value wherever its type
// occurs, so all occurrences share one slot. Slots are listed children-first (post-order), which
// is an order in which each can be computed forwards and swept backwards.
#pragma once

#include <etad/core/expression.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <utility>

namespace etad::detail {

namespace mp = boost::mp11;

template <class E>
struct collect_shared {
  using type = mp::mp_list<>;
};

template <class Op, class... C>
struct collect_shared<node<Op, C...>> {
  using children = mp::mp_append<mp::mp_list<>, typename collect_shared<C>::type...>;
  using type = mp::mp_if_c<node<Op, C...>::input_only,
                           mp::mp_push_back<children, node<Op, C...>>, children>;
};

// First position of T in T0..Tn. Uses the compiler's __is_same, which instantiates nothing:
// the dedup is O(n^2) constant-time comparisons, with no template recursion.
template <class T, class... U>
consteval std::size_t first_index() {
  constexpr bool same[] = {__is_same(T, U)..., true};
  std::size_t i = 0;
  while (!same[i]) ++i;
  return i;
}

template <class L, class Seq>
struct unique_impl;

template <class... T, std::size_t... I>
struct unique_impl<mp::mp_list<T...>, std::index_sequence<I...>> {
  using type = mp::mp_append<
      mp::mp_list<>, mp::mp_if_c<first_index<T, T...>() == I, mp::mp_list<T>, mp::mp_list<>>...>;
};

template <class L>
using unique_t = typename unique_impl<L, std::make_index_sequence<mp::mp_size<L>::value>>::type;

/// The shared slots of a set of root expressions.
template <class... Roots>
using shared_t = unique_t<mp::mp_append<mp::mp_list<>, typename collect_shared<Roots>::type...>>;

/// Position of shared node E in the slot list L.
template <class E, class L>
struct slot_of;
template <class E, class... T>
struct slot_of<E, mp::mp_list<T...>> {
  static constexpr std::size_t value = first_index<E, T...>();
};

}  // namespace etad::detail
