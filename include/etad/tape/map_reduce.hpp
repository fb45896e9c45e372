// etad/tape/map_reduce.hpp — sum over i of f(a_i, b_i, ..., s, t, ...) as ONE tape statement.
// f is an ordinary etad function (a generic lambda), differentiated at compile time; the loop
// computes the value and the partials for every active input in one pass, so the statement holds
// one partial per active scalar (plus one per element of a range of reals), whatever N is:
//   real nll = map_sum([](auto y, auto mu, auto s) { return pow((y - mu) / s, 2); }, data, mu, s);
#pragma once

#include <etad/core/error.hpp>
#include <etad/static/gradient.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/reduce.hpp>
#include <etad/tape/tape.hpp>

#include <array>
#include <cstddef>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace etad {

namespace detail {

template <class A>
concept broadcast_range = std::ranges::contiguous_range<A> && std::ranges::sized_range<A>;

template <class A>
struct broadcast_element {
  using type = A;
};
template <broadcast_range A>
struct broadcast_element<A> {
  using type = std::remove_cv_t<std::ranges::range_value_t<A>>;
};
template <class A>
using broadcast_element_t = typename broadcast_element<A>::type;

// The scalar type T of a map_sum: that of its first real argument, else the numbers' common type.
template <class... A>
struct map_scalar {
  using type = std::common_type_t<std::conditional_t<std::is_integral_v<A>, double, A>...>;
};
template <class... A>
  requires(is_real_v<A> || ...)
struct map_scalar<A...> {
  template <class X>
  using real_t = boost::mp11::mp_bool<is_real_v<X>>;
  using list = boost::mp11::mp_list<A...>;
  using type = typename boost::mp11::mp_at<list, boost::mp11::mp_find_if<list, real_t>>::value_type;
};

template <class T, class A>
T element_value(const A& a, std::size_t i) {
  if constexpr (broadcast_range<A>) {
    const auto& e = std::ranges::data(a)[i];
    if constexpr (is_real_v<std::remove_cv_t<std::remove_reference_t<decltype(e)>>>)
      return e.value();
    else
      return static_cast<T>(e);
  } else if constexpr (is_real_v<A>) {
    return a.value();
  } else {
    return static_cast<T>(a);
  }
}

}  // namespace detail

/// map_sum(f, a, b, ...): sum over i of f(a[i], b[i], ...), where each argument is a contiguous
/// range (of numbers or of reals; all ranges of one length n >= 0) or a scalar (a number or a
/// real) broadcast to every i. Recorded as one statement: one partial per scalar real and one per
/// element of each range of reals. With no real anywhere it is just a number (as a constant).
template <class F, class... A>
auto map_sum(F f, const A&... args) {
  using T = typename detail::map_scalar<detail::broadcast_element_t<A>...>::type;
  constexpr std::size_t k = sizeof...(A);
  static_assert(k > 0, "etad: map_sum needs at least one argument after the function");
  static_assert((detail::broadcast_range<A> || ...),
                "etad: map_sum needs at least one range argument to map over; for scalars only, "
                "call the function directly");

  // The common length of the ranges.
  std::size_t n = 0;
  bool first = true;
  auto length = [&](const auto& a) {
    if constexpr (detail::broadcast_range<std::remove_cvref_t<decltype(a)>>) {
      const std::size_t m = std::ranges::size(a);
      if (!first && m != n)
        throw error("etad: map_sum over ranges of different lengths (" + std::to_string(n) +
                    " and " + std::to_string(m) + "); give ranges of equal length");
      n = m;
      first = false;
    }
  };
  (length(args), ...);

  // Which arguments are active (carry reals): their partials go on the tape.
  constexpr std::array<bool, k> scalar_real{(!detail::broadcast_range<A> && detail::is_real_v<A>)...};
  constexpr std::array<bool, k> range_real{
      (detail::broadcast_range<A> && detail::is_real_v<detail::broadcast_element_t<A>>)...};

  auto program = detail::make_program<T, k>(f);
  static_assert(decltype(program)::outputs == 1, "etad: map_sum's function must return one value");

  std::array<T, k> scalar_partial{};
  std::size_t range_inputs = 0;
  for (std::size_t j = 0; j < k; ++j) range_inputs += range_real[j] ? n : 0;
  thread_local std::vector<T> range_partial;  // reused: no allocation in steady state
  range_partial.resize(range_inputs);

  T total(0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::array<T, k> x{detail::element_value<T>(args, i)...};
    total += program.forward(x)[0];
    program.reset_adjoints();
    const std::array<T, k> g = program.backward({T(1)});
    std::size_t offset = 0;
    for (std::size_t j = 0; j < k; ++j) {
      if (scalar_real[j]) scalar_partial[j] += g[j];
      if (range_real[j]) {
        range_partial[offset + i] = g[j];
        offset += n;
      }
    }
  }

  // Gather the active inputs in statement order: scalar reals, then each range of reals.
  thread_local std::vector<real<T>> inputs;
  inputs.clear();
  auto gather = [&](const auto& a) {
    using X = std::remove_cvref_t<decltype(a)>;
    if constexpr (detail::broadcast_range<X>) {
      if constexpr (detail::is_real_v<detail::broadcast_element_t<X>>)
        inputs.insert(inputs.end(), std::ranges::begin(a), std::ranges::end(a));
    } else if constexpr (detail::is_real_v<X>) {
      inputs.push_back(a);
    }
  };
  // Scalars first, then ranges, matching the partials' order below.
  ([&] { if constexpr (!detail::broadcast_range<A>) gather(args); }(), ...);
  ([&] { if constexpr (detail::broadcast_range<A>) gather(args); }(), ...);

  return detail::vector_statement<T>(std::span<const real<T>>(inputs), total, [&](T* p) {
    std::size_t q = 0;
    for (std::size_t j = 0; j < k; ++j)
      if (scalar_real[j]) p[q++] = scalar_partial[j];
    for (std::size_t r = 0; r < range_partial.size(); ++r) p[q++] = range_partial[r];
  });
}

}  // namespace etad
