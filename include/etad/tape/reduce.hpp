// etad/tape/reduce.hpp — reductions over contiguous ranges of reals, each ONE tape statement
// with one partial per element (not N - 1 binary statements): sum, mean, dot, squared_norm,
// prod, log_sum_exp. Value and partials come from one tight loop over the range.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/tape.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <ranges>
#include <span>
#include <type_traits>
#include <vector>

namespace etad {

namespace detail {

template <class T>
inline constexpr bool is_real_v = false;
template <class T>
inline constexpr bool is_real_v<real<T>> = true;

template <class R>
concept real_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                     is_real_v<std::remove_cv_t<std::ranges::range_value_t<R>>>;

template <class R>
using real_of = std::remove_cv_t<std::ranges::range_value_t<R>>;

template <class R, class T>
concept number_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                       std::is_convertible_v<std::ranges::range_value_t<R>, T> &&
                       !is_real_v<std::remove_cv_t<std::ranges::range_value_t<R>>>;

/// Records one statement whose inputs are the reals of parts[0], parts[1], ... (in that order).
/// fill(p) writes one partial per input into p and returns the statement's value, so a loop can
/// compute both at once. Returns a constant when nothing is on a tape (fill then writes into a
/// scratch buffer, for the value).
template <class T, std::size_t K, class Fill>
real<T> statement_over(const std::array<std::span<const real<T>>, K>& parts, Fill&& fill) {
  std::size_t n = 0;
  for (const auto& x : parts) n += x.size();
  basic_tape<T>* t = paused_recording<T> != 0 ? nullptr : basic_tape<T>::current();
  bool any = false;
  if (paused_recording<T> == 0) {
    for (const auto& x : parts)
      for (const auto& r : x) {
        any = any || r.index() != 0;
#if ETAD_CHECKED
        if (r.epoch() != 0 && (t == nullptr || r.epoch() != t->epoch()))
          throw error("etad: a reduction uses a real recorded on another tape or before reset(); "
                      "reals are valid only on the tape, and in the epoch, that made them");
#endif
      }
  }
  if (!any) {
    thread_local std::vector<T> scratch;  // reused: no allocation in steady state
    scratch.resize(n);
    return real<T>(fill(scratch.data()));
  }
  if (t == nullptr)
    throw error("etad: a reduction of reals was computed with no active tape; create an "
                "etad::tape first (or compute values only inside etad::stop_recording)");
  index_t defined;
  auto slot = t->record(n, defined);
  std::size_t q = 0;
  for (const auto& x : parts)
    for (const auto& r : x) slot.input[q++] = r.index();
  const T v = fill(slot.partial);
  return recorded_real<T>(v, defined, t->epoch());
}

/// The one-range form, with the value known beforehand.
template <class T, class Fill>
real<T> vector_statement(std::span<const real<T>> x, const T& v, Fill&& fill) {
  return statement_over<T, 1>({x}, [&](T* p) {
    fill(p);
    return v;
  });
}

template <class T>
void require_same_size(std::size_t a, std::size_t b, const char* what) {
  if (a != b)
    throw error(std::string("etad: ") + what + " of ranges of different lengths (" +
                std::to_string(a) + " and " + std::to_string(b) + "); give ranges of equal length");
}

}  // namespace detail

/// sum of x_i. Partials 1. An empty range gives the constant 0.
template <detail::real_range R>
auto sum(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  T s(0);
  for (const auto& r : x) s += r.value();
  return detail::vector_statement<T>(x, s, [n = x.size()](T* p) { std::fill_n(p, n, T(1)); });
}

/// mean of x_i (at least one element). Partials 1/n.
template <detail::real_range R>
auto mean(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  if (x.empty()) throw error("etad: mean() of an empty range; give at least one element");
  T s(0);
  for (const auto& r : x) s += r.value();
  const T inv = T(1) / static_cast<T>(x.size());
  return detail::vector_statement<T>(x, s * inv, [&](T* p) { std::fill_n(p, x.size(), inv); });
}

/// sum of x_i^2. Partials 2 x_i.
template <detail::real_range R>
auto squared_norm(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  T s(0);
  for (const auto& r : x) s += r.value() * r.value();
  return detail::vector_statement<T>(x, s, [&](T* p) {
    for (std::size_t i = 0; i < x.size(); ++i) p[i] = 2 * x[i].value();
  });
}

/// sum of a_i x_i with constant coefficients a. Partials a_i.
template <detail::real_range R, class A>
  requires detail::number_range<A, typename detail::real_of<R>::value_type>
auto dot(const R& range, const A& coefficients) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  const auto* a = std::ranges::data(coefficients);
  detail::require_same_size<T>(x.size(), std::ranges::size(coefficients), "dot");
  T s(0);
  for (std::size_t i = 0; i < x.size(); ++i) s += static_cast<T>(a[i]) * x[i].value();
  return detail::vector_statement<T>(x, s, [&](T* p) {
    for (std::size_t i = 0; i < x.size(); ++i) p[i] = static_cast<T>(a[i]);
  });
}
template <class A, detail::real_range R>
  requires detail::number_range<A, typename detail::real_of<R>::value_type>
auto dot(const A& coefficients, const R& range) {
  return dot(range, coefficients);
}

/// sum of x_i y_i for two ranges of reals: one statement with 2n partials (y_i, then x_i).
template <detail::real_range R1, detail::real_range R2>
auto dot(const R1& r1, const R2& r2) {
  using T = typename detail::real_of<R1>::value_type;
  static_assert(std::is_same_v<detail::real_of<R1>, detail::real_of<R2>>,
                "etad: dot() of ranges of reals needs the same real type on both sides");
  const std::size_t n = std::ranges::size(r1);
  detail::require_same_size<T>(n, std::ranges::size(r2), "dot");
  std::span<const real<T>> x(std::ranges::data(r1), n), y(std::ranges::data(r2), n);
  return detail::statement_over<T, 2>({x, y}, [&](T* p) {
    T s(0);
    for (std::size_t i = 0; i < n; ++i) {
      s += x[i].value() * y[i].value();
      p[i] = y[i].value();
      p[n + i] = x[i].value();
    }
    return s;
  });
}

/// product of x_i. Partials prod_{j != i} x_j, by prefix and suffix products (no division, so
/// exact also when some x_i are zero).
template <detail::real_range R>
auto prod(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  T s(1);
  for (const auto& r : x) s *= r.value();
  return detail::vector_statement<T>(x, s, [&](T* p) {
    T prefix(1);
    for (std::size_t i = 0; i < x.size(); ++i) {
      p[i] = prefix;
      prefix *= x[i].value();
    }
    T suffix(1);
    for (std::size_t i = x.size(); i-- > 0;) {
      p[i] *= suffix;
      suffix *= x[i].value();
    }
  });
}

/// log(sum exp x_i), computed stably around m = max x_i. Partials softmax(x)_i. An empty range
/// gives -inf; a range whose maximum is +inf gives +inf (partials NaN for the infinite ones).
template <detail::real_range R>
auto log_sum_exp(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  using std::exp, std::log;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  if (x.empty()) return real<T>(-std::numeric_limits<T>::infinity());
  T m = x[0].value();
  for (const auto& r : x) m = r.value() > m ? r.value() : m;
  if (!(m > -std::numeric_limits<T>::infinity() && m < std::numeric_limits<T>::infinity())) {
    // All -inf (value -inf) or some +inf/NaN: the shifted formula would be NaN; use it plainly.
    T s(0);
    for (const auto& r : x) s += exp(r.value());
    const T v = log(s);
    return detail::vector_statement<T>(x, v, [&](T* p) {
      for (std::size_t i = 0; i < x.size(); ++i) p[i] = exp(x[i].value() - v);
    });
  }
  // One exp per element: the shifted exponentials are written as partials while summing,
  // then scaled in place by 1/s.
  return detail::statement_over<T, 1>({x}, [&](T* p) {
    T s(0);
    for (std::size_t i = 0; i < x.size(); ++i) {
      p[i] = exp(x[i].value() - m);
      s += p[i];
    }
    const T inv = T(1) / s;
    for (std::size_t i = 0; i < x.size(); ++i) p[i] *= inv;
    return m + log(s);
  });
}

}  // namespace etad
