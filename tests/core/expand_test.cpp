// tests/core/expand_test.cpp — positions in long type lists (core/detail/expand.hpp): type_at_t
// and index_of_v agree with mp11's own mp_at_c (and mp_find, on a list within clang's fold
// limit) on lists longer than the compilers' fold limits, and with hand-written expectations.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace {

namespace mp = boost::mp11;
using etad::detail::index_of_v;
using etad::detail::type_at_t;

template <std::size_t I>
struct tag {};

template <class Seq>
struct tags_of;
template <std::size_t... I>
struct tags_of<std::index_sequence<I...>> {
  // Not in index order, so that a position is not the tag's own number.
  using type = mp::mp_list<tag<(I * 7) % sizeof...(I)>...>;
};
constexpr std::size_t long_size = 601;  // prime: I -> 7I mod n is a permutation
using long_list = typename tags_of<std::make_index_sequence<long_size>>::type;

// Every position of L, through etad's look-ups and through mp11's (a different algorithm):
// mp_at_c for the element at K, and K for that element's position.
template <class L, std::size_t... K>
constexpr bool agrees_with_mp11(std::index_sequence<K...>) {
  return etad::detail::all_v<(std::is_same_v<type_at_t<L, K>, mp::mp_at_c<L, K>> &&
                              index_of_v<mp::mp_at_c<L, K>, L> == K)...>;
}
// mp_find too (a fold over the list with clang, whose limit is 256 operands: shorter lists).
template <class L, std::size_t... K>
constexpr bool agrees_with_mp_find(std::index_sequence<K...>) {
  return etad::detail::all_v<(index_of_v<type_at_t<L, K>, L> ==
                              mp::mp_find<L, type_at_t<L, K>>::value)...>;
}
constexpr std::size_t short_size = 199;  // prime too
using short_list = typename tags_of<std::make_index_sequence<short_size>>::type;

}  // namespace

TEST_CASE("type_at_t and index_of_v on short lists", "[core]") {
  using L = mp::mp_list<int, double, char, tag<3>>;
  STATIC_REQUIRE(std::is_same_v<type_at_t<L, 0>, int>);
  STATIC_REQUIRE(std::is_same_v<type_at_t<L, 1>, double>);
  STATIC_REQUIRE(std::is_same_v<type_at_t<L, 3>, tag<3>>);
  STATIC_REQUIRE(index_of_v<int, L> == 0);
  STATIC_REQUIRE(index_of_v<char, L> == 2);
  STATIC_REQUIRE(index_of_v<tag<3>, L> == 3);
  // Any list template, not only mp_list.
  STATIC_REQUIRE(std::is_same_v<type_at_t<std::tuple<float, long>, 1>, long>);
  STATIC_REQUIRE(index_of_v<float, std::tuple<float, long>> == 0);
}

TEST_CASE("type_at_t and index_of_v on a list of 601 types agree with mp11", "[core]") {
  STATIC_REQUIRE(mp::mp_size<long_list>::value == long_size);
  STATIC_REQUIRE(std::is_same_v<type_at_t<long_list, 1>, tag<7>>);
  STATIC_REQUIRE(std::is_same_v<type_at_t<long_list, 600>, tag<(600 * 7) % 601>>);
  STATIC_REQUIRE(index_of_v<tag<0>, long_list> == 0);
  STATIC_REQUIRE(index_of_v<tag<14>, long_list> == 2);
  STATIC_REQUIRE(agrees_with_mp11<long_list>(std::make_index_sequence<long_size>{}));
  STATIC_REQUIRE(agrees_with_mp_find<short_list>(std::make_index_sequence<short_size>{}));
}
