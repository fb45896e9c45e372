// tests/static/shared_test.cpp — the list of shared slots (static/detail/shared.hpp): the union
// of duplicate-free lists keeps each element where it first occurs, whatever the number of lists
// (they are merged pairwise), and the slots of an expression are its distinct input-only
// subexpressions, children first.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace {

namespace mp = boost::mp11;
using etad::detail::union_t;

template <std::size_t I>
struct tag {};

// List i holds tag<i>, tag<i + 1>, tag<i / 2> (duplicate-free whenever i > 1).
template <std::size_t I>
using overlapping = mp::mp_list<tag<I>, tag<I + 1>, tag<I / 2>>;

// Reference 1: mp11's mp_unique (keeps first occurrences) of all the lists in a row. It is
// recursive, so only for short runs.
template <class Seq>
struct unique_of_overlapping;
template <std::size_t... I>
struct unique_of_overlapping<std::index_sequence<I...>> {
  using type = mp::mp_unique<mp::mp_append<overlapping<I + 2>...>>;
};

template <class Seq>
struct union_of_overlapping;
template <std::size_t... I>
struct union_of_overlapping<std::index_sequence<I...>> {
  using type = union_t<overlapping<I + 2>...>;
  // Reference 2, by hand: list 2 brings tag<2>, tag<3>, tag<1>, every later list i only tag<i + 1>.
  // (I + 4 for I < n - 1: the lists after the first.)
  using by_hand = mp::mp_append<mp::mp_list<tag<2>, tag<3>, tag<1>>,
                                mp::mp_pop_back<mp::mp_list<tag<I + 4>...>>>;
};
}  // namespace

TEST_CASE("union of duplicate-free lists: first occurrences, in order", "[static]") {
  using A = mp::mp_list<tag<1>, tag<2>, tag<3>>;
  using B = mp::mp_list<tag<3>, tag<4>, tag<1>, tag<5>>;
  using C = mp::mp_list<tag<6>, tag<5>, tag<2>>;
  using D = mp::mp_list<tag<7>>;
  STATIC_REQUIRE(std::is_same_v<union_t<>, mp::mp_list<>>);
  STATIC_REQUIRE(std::is_same_v<union_t<A>, A>);
  STATIC_REQUIRE(
      std::is_same_v<union_t<A, B>, mp::mp_list<tag<1>, tag<2>, tag<3>, tag<4>, tag<5>>>);
  STATIC_REQUIRE(
      std::is_same_v<union_t<B, A>, mp::mp_list<tag<3>, tag<4>, tag<1>, tag<5>, tag<2>>>);
  STATIC_REQUIRE(std::is_same_v<union_t<A, B, C, D>, mp::mp_list<tag<1>, tag<2>, tag<3>, tag<4>,
                                                                 tag<5>, tag<6>, tag<7>>>);
  STATIC_REQUIRE(std::is_same_v<union_t<D, C, B, A>, mp::mp_list<tag<7>, tag<6>, tag<5>, tag<2>,
                                                                 tag<3>, tag<4>, tag<1>>>);
  STATIC_REQUIRE(std::is_same_v<union_t<A, mp::mp_list<>, A>, A>);
}

TEST_CASE("union of many overlapping lists: first occurrences, as mp11 and by hand", "[static]") {
  using S = std::make_index_sequence<60>;
  STATIC_REQUIRE(std::is_same_v<union_of_overlapping<S>::type, unique_of_overlapping<S>::type>);
  STATIC_REQUIRE(std::is_same_v<union_of_overlapping<S>::type, union_of_overlapping<S>::by_hand>);
  // An odd number of lists (a round leaves one over).
  using O = std::make_index_sequence<37>;
  STATIC_REQUIRE(std::is_same_v<union_of_overlapping<O>::type, unique_of_overlapping<O>::type>);
  // Past mp_unique's recursion limit: 700 lists, 702 distinct elements.
  using L = union_of_overlapping<std::make_index_sequence<700>>;
  STATIC_REQUIRE(mp::mp_size<L::type>::value == 702);
  STATIC_REQUIRE(std::is_same_v<L::type, L::by_hand>);
}

TEST_CASE("the slots of an expression: distinct input-only subexpressions, children first",
          "[static]") {
  using x = etad::arg<0>;
  using y = etad::arg<1>;
  using xy = decltype(x{} * y{});
  using s = decltype(sin(x{} * y{}));
  using e = decltype(sin(x{} * y{}) + x{} * y{} * etad::constant<double>{2.0} + cos(x{} * y{}));
  using c = decltype(cos(x{} * y{}));
  // x * y occurs three times, is listed once, before the nodes above it.
  STATIC_REQUIRE(std::is_same_v<etad::detail::shared_t<e>, mp::mp_list<xy, s, c>>);
  STATIC_REQUIRE(etad::detail::index_of_v<c, etad::detail::shared_t<e>> == 2);
}

namespace {
// hypot(e, e) K times over: a tree of 2^K occurrences of x, made of K + 1 types.
template <int K, class E>
auto doubled(const E& e) {
  if constexpr (K == 0)
    return e;
  else
    return doubled<K - 1>(etad::hypot(e, e));
}
}  // namespace

TEST_CASE("a subexpression repeated in a tree of 2^12 occurrences is swept once", "[static]") {
  // The compile-time passes over the expression work per type, not per occurrence (a walk of
  // the tree would visit 4096 leaves here, and 2^K for K levels): e_k = hypot(e_{k-1}, e_{k-1})
  // = sqrt(2) |e_{k-1}|, so e_12 = 2^6 |x| and de_12/dx = 2^6 sign(x); y is reached through the
  // sum, so every input is reached and the reached-flags are skipped.
  const auto r = etad::gradient([](auto x, auto y) { return doubled<12>(x) + y; }, -0.75, 2.0);
  CHECK(r.value == Approx(64 * 0.75 + 2.0).epsilon(1e-14));
  CHECK(r.gradient[0] == Approx(-64.0).epsilon(1e-14));
  CHECK(r.gradient[1] == 1.0);
}
