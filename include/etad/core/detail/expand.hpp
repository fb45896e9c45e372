// etad/core/detail/expand.hpp — pack expansions whose cost does not grow with nesting.
// A fold expression over N elements is a nest of N binary expressions: clang refuses more than
// 256 (its -fbracket-depth), and expression types can have thousands of leaves or shared
// subexpressions. These helpers expand packs flat instead.
#pragma once

#include <etad/core/config.hpp>

#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>

namespace etad::detail {

/// all_v<B...>: every B is true. No fold, no recursion: one comparison of two sequences.
template <bool... B>
inline constexpr bool all_v =
    std::is_same_v<std::integer_sequence<bool, B...>, std::integer_sequence<bool, (B || true)...>>;

/// any_v<B...>: some B is true.
template <bool... B>
inline constexpr bool any_v = !all_v<!B...>;

/// common_t<T...>: std::common_type_t, without its recursion when all T are the same (the case of
/// a rule's arguments in a sweep, however many there are).
template <class... T>
struct common_of : std::common_type<T...> {};
template <class T0, class... T>
  requires all_v<std::is_same_v<T, T0>...>
struct common_of<T0, T...> {
  using type = T0;
};
template <class... T>
using common_t = typename common_of<T...>::type;

/// Rules fold their operands (x0 + ... + xn) up to this many: one expression, which a real
/// records as one statement. Wider packs are accumulated in a loop instead.
inline constexpr std::size_t max_fold = 64;

/// sum_of({n...}): the sum of a list of sizes, without a fold.
constexpr std::size_t sum_of(std::initializer_list<std::size_t> n) noexcept {
  std::size_t s = 0;
  for (std::size_t k : n) s += k;
  return s;
}

/// Positions in long type lists, with little memory kept per look-up.
/// type_at_t<L, K>: the K-th element of a type list L<T...> (mp11's mp_at_c).
/// index_of_v<E, L>: the position of E in L, whose elements are distinct.
///
/// Each list is turned once into a class, type_index_t<L>, with one base per element; a look-up
/// still searches those n bases (or n overloads), but keeps nothing of the search. With the
/// builtin __type_pack_element (clang) an element is picked by it, and with clang a position
/// is deduced against the bases. g++ 12 has no such builtin, and a deduction against n bases
/// costs it O(n) memory that it keeps until the end of the instantiation: mp11's mp_at_c (which
/// deduces too) took 1 GB to look up each element of a 1000-element list. So with g++ each base
/// declares two functions, brought into the class by using-declarations, and a look-up is an
/// overload resolution among them, whose candidates g++ frees as soon as it is done (60 MB
/// instead of 140 MB for 4000 look-ups in 1000 elements, 80 MB instead of 400 MB in 2000).
/// (See ETAD_HAS_TYPE_PACK_ELEMENT and ETAD_POSITION_BY_DEDUCTION in core/config.hpp.)
template <std::size_t K>
struct index_tag {};
template <std::size_t K, class T>
struct indexed_type {
  using type = T;
#ifndef ETAD_POSITION_BY_DEDUCTION
  static std::integral_constant<std::size_t, K> position_of(std::type_identity<T>*);
#endif
#ifndef ETAD_HAS_TYPE_PACK_ELEMENT
  static std::type_identity<T> type_of(index_tag<K>*);
#endif
};
template <class Seq, class... T>
struct indexed_types;
template <std::size_t... K, class... T>
struct indexed_types<std::index_sequence<K...>, T...> : indexed_type<K, T>... {
#ifndef ETAD_POSITION_BY_DEDUCTION
  using indexed_type<K, T>::position_of...;
#endif
#ifndef ETAD_HAS_TYPE_PACK_ELEMENT
  using indexed_type<K, T>::type_of...;
#endif
};

template <class L>
struct type_index_of;
template <template <class...> class L, class... T>
struct type_index_of<L<T...>> {
  using type = indexed_types<std::index_sequence_for<T...>, T...>;
};
template <class L>
using type_index_t = typename type_index_of<L>::type;

#ifdef ETAD_HAS_TYPE_PACK_ELEMENT
template <class L, std::size_t K>
struct type_at;
template <template <class...> class L, class... T, std::size_t K>
struct type_at<L<T...>, K> {
  using type = __type_pack_element<K, T...>;
};
template <class L, std::size_t K>
using type_at_t = typename type_at<L, K>::type;
#else
template <class L, std::size_t K>
using type_at_t =
    typename decltype(type_index_t<L>::type_of(static_cast<index_tag<K>*>(nullptr)))::type;
#endif

#ifdef ETAD_POSITION_BY_DEDUCTION
template <class T, std::size_t K>
std::integral_constant<std::size_t, K> deduce_position(const indexed_type<K, T>*);
template <class E, class L>
inline constexpr std::size_t index_of_v =
    decltype(deduce_position<E>(static_cast<const type_index_t<L>*>(nullptr)))::value;
#else
template <class E, class L>
inline constexpr std::size_t index_of_v =
    decltype(type_index_t<L>::position_of(static_cast<std::type_identity<E>*>(nullptr)))::value;
#endif

/// in_order({(statement, 0)...}): runs the statements left to right (the elements of a braced
/// list are sequenced in order), however many there are.
constexpr void in_order(std::initializer_list<int>) noexcept {}

}  // namespace etad::detail
