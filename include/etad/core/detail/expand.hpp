// etad/core/detail/expand.hpp — pack expansions whose cost does not grow with nesting.
// A fold expression over N elements is a nest of N binary expressions: clang refuses more than
// 256 (its -fbracket-depth), and expression types can have thousands of leaves or shared
// subexpressions. These helpers expand packs flat instead.
#pragma once

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

/// in_order({(statement, 0)...}): runs the statements left to right (the elements of a braced
/// list are sequenced in order), however many there are.
constexpr void in_order(std::initializer_list<int>) noexcept {}

}  // namespace etad::detail
