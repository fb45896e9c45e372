// etad/ops/reductions.hpp — reductions over a pack of expressions whose length is known at
// compile time: the static counterparts of the tape's sum, mean, dot, squared_norm, prod and
// log_sum_exp. gradient(f, std::array<T, N>) hands f such a pack of placeholders.
#pragma once

#include <etad/core/detail/flat_tuple.hpp>
#include <etad/core/rule.hpp>
#include <etad/ops/arithmetic.hpp>
#include <etad/ops/detail/exp_nonpositive.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace etad {

/// pack<E...>: a fixed-length sequence of expressions (or numbers); get<I>(p) is the I-th.
template <class... E>
struct pack {
  static constexpr std::size_t size = sizeof...(E);
  detail::flat_tuple<E...> items;
  constexpr explicit pack(const E&... e) : items{e...} {}
  /// Elements have types of their own, so an index must be a constant: get<I>(p), not p[i].
  // (A deduced return type, so that the assertion fires when the call is seen; the number 0
  // stands in for the result, so that using it causes no further error.)
  template <class I>
  constexpr auto operator[](const I&) const {
    static_assert(sizeof(I) == 0,
                  "etad: a pack of placeholders has no operator[] (each element has a type of "
                  "its own); write get<0>(x), get<1>(x), ... or use the reductions sum(x), "
                  "dot(x, ...)");
    return 0.0;
  }
};
template <class... E>
pack(const E&...) -> pack<E...>;

template <std::size_t I, class... E>
constexpr const auto& get(const pack<E...>& p) noexcept {
  return detail::get<I>(p.items);
}

namespace detail {
/// std::max(m, v) = (m < v) ? v : m, with the comparison through bool(): on the reals of a
/// nested tape a comparison is an expression, which converts to bool only explicitly.
template <class T>
constexpr T larger(const T& m, const T& v) {
  return bool(m < v) ? v : m;
}

// The elements are read from the tuple (detail::get), not by etad::get<I>(p): every
// instantiation of that one is named by the whole pack<E...>, so unpacking n elements named n
// functions of size n, and deduced E... from the pack n times (time quadratic in n: g++ took
// 82-104 s for a 1000-term sum(pack) with it, 54-64 s without; docs/compile-time.md item 13).
template <class... E, class F>
constexpr auto unpack(const pack<E...>& p, F&& f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return f(detail::get<I>(p.items)...);
  }(std::index_sequence_for<E...>{});
}
}  // namespace detail

/// prod x_i (n-ary). Partials prod_{j != i} x_j by prefix and suffix products (no division:
/// exact when some x_i are 0).
struct prod_op {
  static constexpr std::string_view name = "prod";
  template <class X0, class... X>
  static constexpr auto value(const X0& x0, const X&... x) {
    if constexpr (sizeof...(X) < detail::max_fold) {
      return (x0 * ... * x);
    } else {
      detail::common_t<X0, X...> r = x0;
      detail::in_order({(r = r * x, 0)...});
      return r;
    }
  }
  template <class... X>
  static constexpr auto partials(const X&... xf) {
    constexpr std::size_t n = sizeof...(X) - 1;  // the last argument is f
    using T = detail::common_t<X...>;
    const std::array<T, n + 1> a{static_cast<T>(xf)...};
    std::array<T, n> p{};
    T prefix(1);
    for (std::size_t i = 0; i < n; ++i) { p[i] = prefix; prefix *= a[i]; }
    T suffix(1);
    for (std::size_t i = n; i-- > 0;) { p[i] *= suffix; suffix *= a[i]; }
    return p;
  }
};

/// log(sum exp x_i) (n-ary), computed around m = max x_i so that large x do not overflow.
/// Partials softmax(x)_i = exp(x_i - m) / s (m the maximum, s the sum of the exp(x_j - m)), as
/// on the tape. In double, the exponentials (all of arguments x_i - m <= 0) come from
/// detail::exp_nonpositive, as on the tape: within 0.65 ulp of e^x (std::exp: about 0.5),
/// inlined and vectorizable rather than a libm call each, and usable in constant expressions
/// with clang too. Other types, and a maximum that is not finite (then the plain formula
/// exp(x_i - f), whose arguments may be positive), use std::exp.
struct log_sum_exp_op {
  static constexpr std::string_view name = "log_sum_exp";
  template <class X0, class... X>
  static constexpr auto value(const X0& x0, const X&... x) {
    using std::exp, std::log;
    using T = detail::common_t<X0, X...>;
    // std::max's choice (the first of the largest; a NaN x0 wins, later NaNs are skipped), through
    // bool(): on a nested tape's reals a comparison is an expression (docs/design.md, Nesting).
    T m = static_cast<T>(x0);
    detail::in_order({(m = detail::larger(m, static_cast<T>(x)), 0)...});
    if constexpr (std::is_same_v<T, double>) {
      if (m - m == 0) {
        // The exponentials in a loop of their own, which the compiler vectorizes (a fold over
        // the pack inlined the kernel once per element: log_sum_exp of 100 took 3.2x its time
        // with g++), then added in order, as the fold added them.
        std::array<T, 1 + sizeof...(X)> e{static_cast<T>(x0) - m, (static_cast<T>(x) - m)...};
        for (T& v : e) v = detail::exp_nonpositive(v);
        T s = e[0];
        for (std::size_t i = 1; i < e.size(); ++i) s = s + e[i];
        return m + log(s);
      }
    }
    if (!(m - m == 0)) m = 0;  // m = ±inf or NaN: shifting would give NaN; use the plain formula
    T s = exp(static_cast<T>(x0) - m);
    detail::in_order({(s = s + exp(static_cast<T>(x) - m), 0)...});
    return m + log(s);
  }
  template <class... X>
  static constexpr auto partials(const X&... xf) {
    using std::exp;
    constexpr std::size_t n = sizeof...(X) - 1;
    using T = detail::common_t<X...>;
    const std::array<T, n + 1> a{static_cast<T>(xf)...};
    std::array<T, n> p{};
    // exp(x_i - m) / s with the value's m and s, not exp(x_i - f): f = m + log s is rounded to
    // m's precision, so for a large |m| it loses log s (at m = 1e16, f - m is 2 for any s < e^3)
    // and the partials no longer sum to 1.
    T m = a[0];
    for (std::size_t i = 1; i < n; ++i) m = detail::larger(m, a[i]);
    if (!(m - m == 0)) {
      // m = ±inf or NaN: the plain formula, as the value uses it.
      for (std::size_t i = 0; i < n; ++i) p[i] = exp(a[i] - a[n]);
      return p;
    }
    T s(0);
    for (std::size_t i = 0; i < n; ++i) {
      // x_i - m <= 0, or NaN for a NaN element, which the kernel maps to NaN as std::exp does.
      if constexpr (std::is_same_v<T, double>)
        p[i] = detail::exp_nonpositive(a[i] - m);
      else
        p[i] = exp(a[i] - m);
      s = s + p[i];
    }
    const T inv = T(1) / s;
    for (std::size_t i = 0; i < n; ++i) p[i] *= inv;
    return p;
  }
};

/// sum of the pack's elements: one n-ary sum node.
template <class... E>
constexpr auto sum(const pack<E...>& p) {
  return detail::unpack(p, [](const auto&... e) { return etad::apply(sum_op{}, e...); });
}

/// mean of the pack's elements: sum / n.
template <class... E>
constexpr auto mean(const pack<E...>& p) {
  return sum(p) / static_cast<double>(sizeof...(E));
}

/// sum of squares.
template <class... E>
constexpr auto squared_norm(const pack<E...>& p) {
  return detail::unpack(p, [](const auto&... e) { return etad::apply(sum_op{}, (e * e)...); });
}

/// sum of c_i e_i with constant coefficients c, in either order (as the tape's dot takes
/// them). The lengths must agree; the check is a static_assert in the body, not a constraint, so
/// that a mismatch reads as one sentence rather than as "f cannot be called with placeholders".
template <class... E, class C, std::size_t N>
constexpr auto dot(const pack<E...>& p, const std::array<C, N>& c) {
  if constexpr (N != sizeof...(E)) {
    static_assert(N == sizeof...(E),
                  "etad: dot() of a pack and an array of coefficients of different lengths; "
                  "give one coefficient per element of the pack");
    return 0.0;  // (a stand-in, so that the assertion is the only error)
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return etad::apply(sum_op{}, (c[I] * detail::get<I>(p.items))...);
    }(std::index_sequence_for<E...>{});
  }
}
template <class C, std::size_t N, class... E>
constexpr auto dot(const std::array<C, N>& c, const pack<E...>& p) {
  return dot(p, c);
}

/// sum of a_i b_i for two packs of equal length.
template <class... A, class... B>
constexpr auto dot(const pack<A...>& a, const pack<B...>& b) {
  if constexpr (sizeof...(A) != sizeof...(B)) {
    static_assert(sizeof...(A) == sizeof...(B),
                  "etad: dot() of two packs of different lengths; give packs of equal length");
    return 0.0;  // (a stand-in, so that the assertion is the only error)
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return etad::apply(sum_op{}, (detail::get<I>(a.items) * detail::get<I>(b.items))...);
    }(std::index_sequence_for<A...>{});
  }
}

/// product of the pack's elements (one n-ary node).
template <class... E>
constexpr auto prod(const pack<E...>& p) {
  return detail::unpack(p, [](const auto&... e) { return etad::apply(prod_op{}, e...); });
}

/// log(sum exp e_i) (one n-ary node).
template <class... E>
constexpr auto log_sum_exp(const pack<E...>& p) {
  return detail::unpack(p, [](const auto&... e) { return etad::apply(log_sum_exp_op{}, e...); });
}

}  // namespace etad
