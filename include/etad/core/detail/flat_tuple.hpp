// etad/core/detail/flat_tuple.hpp — a tuple whose depth does not grow with its size.
// std::tuple in libstdc++ is a recursive inheritance chain, so a sum of 1000 terms would nest
// 1000 deep; this one inherits from all its elements side by side (index_sequence expansion).
// Empty elements are base classes (the empty-base optimization), not [[no_unique_address]]
// members: g++ 12's constant evaluator overwrites a neighbour when it initializes an empty
// [[no_unique_address]] member that shares its address, which broke constexpr gradients.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace etad::detail {

template <std::size_t I, class T, bool Empty = std::is_empty_v<T> && !std::is_final_v<T>>
struct flat_leaf {
  T value;
  constexpr T& ref() noexcept { return value; }
  constexpr const T& ref() const noexcept { return value; }
};

template <std::size_t I, class T>
struct flat_leaf<I, T, true> : T {
  constexpr flat_leaf() = default;
  constexpr flat_leaf(const T& t) : T(t) {}
  constexpr T& ref() noexcept { return *this; }
  constexpr const T& ref() const noexcept { return *this; }
};

template <class Seq, class... T>
struct flat_tuple_impl;

template <std::size_t... I, class... T>
struct flat_tuple_impl<std::index_sequence<I...>, T...> : flat_leaf<I, T>... {
  constexpr flat_tuple_impl() = default;
  constexpr explicit flat_tuple_impl(const T&... t)
    requires(sizeof...(T) > 0)
      : flat_leaf<I, T>{t}... {}
};

/// flat_tuple<T...>: elements reached by get<I>(t); empty elements take (almost) no space.
template <class... T>
using flat_tuple = flat_tuple_impl<std::index_sequence_for<T...>, T...>;

// Deduction picks the unique base flat_leaf<I, T, B> for the given I.
template <std::size_t I, class T, bool B>
constexpr T& get(flat_leaf<I, T, B>& l) noexcept { return l.ref(); }
template <std::size_t I, class T, bool B>
constexpr const T& get(const flat_leaf<I, T, B>& l) noexcept { return l.ref(); }

}  // namespace etad::detail
