// tests/core/flat_tuple_test.cpp — the tuple that holds a node's children: one level of bases up
// to detail::flat_chunk elements, chunks of them beyond. Both layouts must give the same elements
// back, copy, work in constant expressions, and carry nodes with more children than a chunk
// through the static sweep and the tape.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

struct tag {};  // an empty element: stored as a base, takes no space of its own

template <std::size_t... I>
constexpr bool elements_in_place(std::index_sequence<I...>) {
  // 70 elements: three chunks. Element I is I * 1.5, or the empty tag for I % 7 == 3.
  using etad::detail::flat_tuple;
  auto make = [](auto i) {
    if constexpr (i % 7 == 3)
      return tag{};
    else
      return static_cast<double>(i) * 1.5;
  };
  // Braces: a one-level tuple is an aggregate (clang 14 has no parenthesized aggregate init).
  const flat_tuple<decltype(make(std::integral_constant<std::size_t, I>{}))...> t{
      make(std::integral_constant<std::size_t, I>{})...};
  const auto copy = t;
  bool ok = true;
  auto check = [&](auto i) {
    if constexpr (i % 7 != 3) {
      using etad::detail::get;
      ok = ok && get<i>(copy) == static_cast<double>(i) * 1.5;
    }
  };
  (check(std::integral_constant<std::size_t, I>{}), ...);
  return ok;
}

// An element type that the tuple holds in a one-element array (detail::boxed_v, as for the
// nodes of more than ETAD_OUTLINE_LIMIT nodes).
struct big {
  double a, b;
};

}  // namespace

template <>
inline constexpr bool etad::detail::boxed_v<big> = true;

namespace {

constexpr bool boxed_elements_in_place() {
  using etad::detail::get;
  etad::detail::flat_tuple<double, big, tag, big> t{0.5, big{1.5, 2.5}, tag{}, big{3.5, 4.5}};
  auto copy = t;
  get<1>(copy).b = -1;  // the copy is its own
  bool ok = get<0>(copy) == 0.5 && get<1>(copy).a == 1.5 && get<1>(copy).b == -1 &&
            get<1>(t).b == 2.5 && get<3>(copy).a == 3.5 && get<3>(copy).b == 4.5;
  copy = t;  // assignment, as node's operator= does
  ok = ok && get<1>(copy).b == 2.5;
  return ok;
}

// 40 elements (two chunks), every fifth one boxed: a chunked tuple is default-built and then
// filled by assignment (chunked_tuple's constructor), so this goes through both.
template <std::size_t... I>
constexpr bool boxed_in_chunks(std::index_sequence<I...>) {
  using etad::detail::get;
  auto make = [](auto i) {
    if constexpr (i % 5 == 2)
      return big{static_cast<double>(i), -static_cast<double>(i)};
    else
      return static_cast<double>(i) * 0.5;
  };
  const etad::detail::flat_tuple<decltype(make(std::integral_constant<std::size_t, I>{}))...> t(
      make(std::integral_constant<std::size_t, I>{})...);
  const auto copy = t;
  bool ok = true;
  auto check = [&](auto i) {
    if constexpr (i % 5 == 2)
      ok = ok && get<i>(copy).a == static_cast<double>(i) && get<i>(copy).b == -static_cast<double>(i);
    else
      ok = ok && get<i>(copy) == static_cast<double>(i) * 0.5;
  };
  (check(std::integral_constant<std::size_t, I>{}), ...);
  return ok;
}

}  // namespace

TEST_CASE("flat_tuple: boxed elements (one-element arrays) read, copy and work at compile time",
          "[core]") {
  using etad::detail::flat_leaf;
  STATIC_REQUIRE(std::is_array_v<decltype(flat_leaf<1, big>::value)>);
  STATIC_REQUIRE(std::is_same_v<decltype(flat_leaf<0, double>::value), double>);
  STATIC_REQUIRE(sizeof(flat_leaf<1, big>) == sizeof(big));
  STATIC_REQUIRE(boxed_elements_in_place());
  CHECK(boxed_elements_in_place());
  STATIC_REQUIRE(40 > etad::detail::flat_chunk);
  STATIC_REQUIRE(boxed_in_chunks(std::make_index_sequence<40>{}));
  CHECK(boxed_in_chunks(std::make_index_sequence<40>{}));
}

TEST_CASE("flat_tuple: a chunked tuple gives back every element, at compile time too", "[core]") {
  STATIC_REQUIRE(etad::detail::flat_chunk < 70);
  STATIC_REQUIRE(elements_in_place(std::make_index_sequence<70>{}));
  CHECK(elements_in_place(std::make_index_sequence<70>{}));
  CHECK(elements_in_place(std::make_index_sequence<5>{}));  // one level only
}

namespace {

// sum_{k<39} x_k^2 + sin(x_39), with x_k = at(k): one sum node of 40 children (a chain of `+`
// would nest at detail::max_sum_width).
template <class At, std::size_t... K>
auto forty_terms(const At& at, std::index_sequence<K...>) {
  return sum(etad::pack(at(std::integral_constant<std::size_t, K>{}) *
                            at(std::integral_constant<std::size_t, K>{})...,
                        sin(at(std::integral_constant<std::size_t, 39>{}))));
}

}  // namespace

TEST_CASE("flat_tuple: a sum of 40 terms (a chunked node) on the static sweep and the tape",
          "[core][static][tape]") {
  std::array<double, 40> x{};
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = 0.1 * static_cast<double>(k) - 1.7;
  // Closed form: f = sum_{k<39} x_k^2 + sin(x_39), df/dx_k = 2 x_k, df/dx_39 = cos(x_39).
  double want = std::sin(x[39]);
  for (std::size_t k = 0; k < 39; ++k) want += x[k] * x[k];

  SECTION("static") {
    const auto r = etad::gradient(
        [](const auto& p) {
          return forty_terms([&](auto k) { return get<k>(p); }, std::make_index_sequence<39>{});
        },
        x);
    CHECK(r.value == Approx(want).epsilon(1e-14));
    for (std::size_t k = 0; k < 39; ++k) CHECK(r.gradient[k] == Approx(2 * x[k]).epsilon(1e-15));
    CHECK(r.gradient[39] == Approx(std::cos(x[39])).epsilon(1e-15));
  }
  SECTION("tape: one statement of 40 partials") {
    etad::tape t;
    std::vector<etad::real<double>> v(x.size());
    t.variables(x, v);
    const std::size_t before = t.statements();
    const etad::real<double> z =
        forty_terms([&](auto k) { return v[k]; }, std::make_index_sequence<39>{});
    CHECK(t.statements() == before + 1);
    CHECK(z.value() == Approx(want).epsilon(1e-14));
    std::vector<double> g(x.size());
    t.gradient(z, v, g);
    for (std::size_t k = 0; k < 39; ++k) CHECK(g[k] == Approx(2 * x[k]).epsilon(1e-15));
    CHECK(g[39] == Approx(std::cos(x[39])).epsilon(1e-15));
  }
}
