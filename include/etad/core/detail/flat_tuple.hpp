// etad/core/detail/flat_tuple.hpp — a tuple whose depth does not grow with its size.
// std::tuple in libstdc++ is a recursive inheritance chain, so a sum of 1000 terms would nest
// 1000 deep; this one inherits from its elements side by side (index_sequence expansion), in
// chunks of 32 when there are more (see flat_chunk).
// Empty elements are base classes (the empty-base optimization), not [[no_unique_address]]
// members: g++ 12's constant evaluator overwrites a neighbour when it initializes an empty
// [[no_unique_address]] member that shares its address, which broke constexpr gradients.
#pragma once

#include <etad/core/detail/expand.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace etad::detail {

template <std::size_t I, class T, bool Empty = std::is_empty_v<T> && !std::is_final_v<T>>
struct flat_leaf {
  constexpr flat_leaf() = default;
  constexpr flat_leaf(const T& t) : value(t) {}
  T value;
  constexpr T& ref() noexcept { return value; }
  constexpr const T& ref() const noexcept { return value; }
};

/// boxed_v<T>: hold an element of type T as a one-element array (see the flat_leaf below).
/// False here; core/expression.hpp makes it true for nodes of more than ETAD_OUTLINE_LIMIT nodes.
template <class T>
inline constexpr bool boxed_v = false;

// A large element (a long sum's nested chunk) in a one-element array: g++'s points-to analysis
// collects a variable's fields by descending into every member of class type, in order, and a
// chain of `+` nests all its earlier chunks in each sum's first child, so that walk went down all
// K / 32 chunks of every one of the K temporaries that build a K-term chain: time quadratic in K.
// It does not descend into arrays, so the walk stops here. Only the layout's description
// changes: the element is at the same place, and get<I> reads it as before.
template <std::size_t I, class T>
  requires boxed_v<T>
struct flat_leaf<I, T, false> {
  constexpr flat_leaf() = default;
  constexpr flat_leaf(const T& t) : value{t} {}
  T value[1];
  constexpr T& ref() noexcept { return value[0]; }
  constexpr const T& ref() const noexcept { return value[0]; }
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

// An aggregate: built by braced initialization of its bases, which instantiates no function
// named by the whole tuple (a chain of `+` builds one tuple per `+`; see node's append
// constructor).
template <std::size_t... I, class... T>
struct flat_tuple_impl<std::index_sequence<I...>, T...> : flat_leaf<I, T>... {};

/// flat_list<T...>: always one level of bases (for short lists whose shape is matched, such as a
/// program's outputs).
template <class... T>
using flat_list = flat_tuple_impl<std::index_sequence_for<T...>, T...>;

// Deduction picks the unique base flat_leaf<I, T, B> for the given I.
template <std::size_t I, class T, bool B>
constexpr T& get(flat_leaf<I, T, B>& l) noexcept { return l.ref(); }
template <std::size_t I, class T, bool B>
constexpr const T& get(const flat_leaf<I, T, B>& l) noexcept { return l.ref(); }

/// Reaching one base of a class with n bases costs the compiler O(n) (it checks that the base is
/// unambiguous), so a node of n children cost O(n^2) to sweep. Longer tuples are therefore split
/// into chunks of at most this many elements: two levels, O(chunk + n / chunk) per access.
inline constexpr std::size_t flat_chunk = 32;

// A chunk is held as a member, never as a base: a chunk of empty elements is itself empty, and
// as a base its own flat_leaf<I, ...> bases would make get<I> on the outer tuple ambiguous.
template <std::size_t K, class Tuple>
struct chunk_leaf {
  Tuple items{};
};

template <class Seq, class... Chunk>
struct chunked_tuple;

template <std::size_t... K, class... Chunk>
struct chunked_tuple<std::index_sequence<K...>, Chunk...> : chunk_leaf<K, Chunk>... {
  constexpr chunked_tuple() = default;
  // Filled element by element: handing each chunk its slice of a pack of n arguments would cost
  // O(n) per chunk again.
  template <class... T>
    requires(sizeof...(T) > 0)
  constexpr explicit chunked_tuple(const T&... t) {
    fill(std::index_sequence_for<T...>{}, t...);
  }

 private:
  template <std::size_t... J, class... T>
  constexpr void fill(std::index_sequence<J...>, const T&... t);
};

// I is given; the chunk is deduced from the one base chunk_leaf<I / flat_chunk, Tuple>. The
// function's name carries only that chunk, not the whole tuple (n functions with names of
// size n would be quadratic again).
template <std::size_t I, class Tuple>
constexpr auto& get(chunk_leaf<I / flat_chunk, Tuple>& c) noexcept {
  return detail::get<I % flat_chunk>(c.items);
}
template <std::size_t I, class Tuple>
constexpr const auto& get(const chunk_leaf<I / flat_chunk, Tuple>& c) noexcept {
  return detail::get<I % flat_chunk>(c.items);
}

template <std::size_t... K, class... Chunk>
template <std::size_t... J, class... T>
constexpr void chunked_tuple<std::index_sequence<K...>, Chunk...>::fill(std::index_sequence<J...>,
                                                                       const T&... t) {
  in_order({(detail::get<J>(*this) = t, 0)...});
}

template <class L, std::size_t K>
using chunk_t = boost::mp11::mp_rename<
    boost::mp11::mp_take_c<boost::mp11::mp_drop_c<L, K * flat_chunk>,
                           (boost::mp11::mp_size<L>::value - K * flat_chunk < flat_chunk
                                ? boost::mp11::mp_size<L>::value - K * flat_chunk
                                : flat_chunk)>,
    flat_list>;

template <class L, class Seq>
struct chunked_of;
template <class L, std::size_t... K>
struct chunked_of<L, std::index_sequence<K...>> {
  using type = chunked_tuple<std::index_sequence<K...>, chunk_t<L, K>...>;
};

template <class... T>
struct flat_tuple_of {
  using type = flat_list<T...>;
};
template <class... T>
  requires(sizeof...(T) > flat_chunk)
struct flat_tuple_of<T...> {
  using type = typename chunked_of<
      boost::mp11::mp_list<T...>,
      std::make_index_sequence<(sizeof...(T) + flat_chunk - 1) / flat_chunk>>::type;
};

/// flat_tuple<T...>: elements reached by get<I>(t); empty elements take (almost) no space. Up to
/// flat_chunk elements it is one level of bases, beyond that chunks of them.
template <class... T>
using flat_tuple = typename flat_tuple_of<T...>::type;

}  // namespace etad::detail
