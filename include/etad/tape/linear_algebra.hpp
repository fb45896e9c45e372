// etad/tape/linear_algebra.hpp — products with a constant matrix as tape statements whose
// partials come from tight loops: matvec(A, x) (one statement per row) and quadratic_form(A, x)
// (one statement), each with one partial per active element of x. A is row-major, contiguous, of
// plain numbers.
#pragma once

#include <etad/core/error.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/reduce.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace etad {

namespace detail {
// x's values, gathered into contiguous storage so that the loops over them vectorize.
template <class T>
std::span<const T> values_of(std::span<const real<T>> x) {
  thread_local std::vector<T> v;  // reused: no allocation in steady state
  v.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) v[i] = x[i].value();
  return v;
}
/// x^T A x's value, A x and A^T x (thread-local vectors, valid until the next call), for the
/// values xv of x (n of them, A n x n row-major).
template <class T>
struct quadratic_form_result {
  T value;
  const T* ax;
  const T* atx;
};
template <class T, class N>
quadratic_form_result<T> quadratic_form_parts(const N* a, std::span<const T> xv) {
  const std::size_t n = xv.size();
  thread_local std::vector<T> ax, atx;
  ax.assign(n, T(0));
  atx.assign(n, T(0));
  T value(0);
  T* atxp = atx.data();
  for (std::size_t i = 0; i < n; ++i) {
    const auto* row = a + i * n;
    const T xi = xv[i];
    T s(0);
    // (A x)_i and (A^T x) += x_i A_i. in one pass over the row: the accumulation into A^T x
    // overlaps the latency of the dot product's additions.
    for (std::size_t j = 0; j < n; ++j) {
      const T aij = static_cast<T>(row[j]);
      s += aij * xv[j];
      atxp[j] += aij * xi;
    }
    ax[i] = s;
    value += xi * s;
  }
  return {value, ax.data(), atx.data()};
}

/// matvec's check of the out form's shape: entries == m * n.
inline void require_matvec_shape(std::size_t entries, std::size_t m, std::size_t n) {
  if (entries != m * n)
    throw error("etad: matvec needs an m x n matrix (row-major, m*n entries) for n = " +
                std::to_string(n) + " values and m = " + std::to_string(m) +
                " outputs, but the matrix has " + std::to_string(entries) + " entries");
}
/// The number of rows m = entries / n of matvec's inferred shape (0 for n = 0 and no entries).
inline std::size_t matvec_rows(std::size_t entries, std::size_t n) {
  if (n == 0 ? entries != 0 : entries % n != 0)
    throw error("etad: matvec needs an m x n matrix for n = " + std::to_string(n) +
                " values, but the matrix has " + std::to_string(entries) +
                " entries; pass the matrix row-major with m*n entries");
  return n == 0 ? 0 : entries / n;
}

/// The error of quadratic_form for a matrix of the wrong size.
inline void require_square(std::size_t entries, std::size_t n) {
  if (entries != n * n)
    throw error("etad: quadratic_form needs an n x n matrix for n = " + std::to_string(n) +
                " values, but the matrix has " + std::to_string(entries) +
                " entries; pass the matrix row-major with n*n entries");
}
}  // namespace detail

/// x^T A x for a constant n x n matrix A (row-major, n*n numbers) and n reals x.
/// Partials (A + A^T) x. One statement with n partials (none for a constant element of x).
template <detail::real_range R, class M>
  requires detail::number_range<M, typename detail::real_of<R>::value_type>
auto quadratic_form(const M& matrix, const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  const std::size_t n = x.size();
  detail::require_square(std::ranges::size(matrix), n);
  const auto parts = detail::quadratic_form_parts<T>(std::ranges::data(matrix), detail::values_of<T>(x));
  return detail::vector_statement<T>(x, parts.value, [&](T* p) {
    for (std::size_t i = 0; i < n; ++i) p[i] = parts.ax[i] + parts.atx[i];
  });
}

/// A x for a constant m x n matrix A (row-major, m*n numbers), written to out (m reals), each
/// one statement with n partials (row i of A; none for a constant element of x); with n = 0, m
/// constant zeros. Checks the shape exactly: m * n entries for m = out.size(). Allocates nothing
/// in steady state. out may overlap x (x = A x in place): the results then go through a
/// scratch vector first, since every row's statement reads all of x.
template <detail::real_range R, class M>
  requires detail::number_range<M, typename detail::real_of<R>::value_type>
void matvec(const M& matrix, const R& range, std::span<real<typename detail::real_of<R>::value_type>> out) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  const std::size_t n = x.size();
  detail::require_matvec_shape(std::ranges::size(matrix), out.size(), n);
  const std::less<const real<T>*> before;  // a total order, also for unrelated arrays
  if (before(out.data(), x.data() + n) && before(x.data(), out.data() + out.size())) {
    thread_local std::vector<real<T>> scratch;  // reused: no allocation in steady state
    scratch.resize(out.size());
    matvec(matrix, x, std::span<real<T>>(scratch));
    std::copy(scratch.begin(), scratch.end(), out.begin());
    return;
  }
  const auto* a = std::ranges::data(matrix);
  const std::span<const T> xv = detail::values_of<T>(x);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto* row = a + i * n;
    out[i] = detail::statement_over<T, 1>({x}, [&](T* p) {
      T s(0);
      for (std::size_t j = 0; j < n; ++j) {
        p[j] = static_cast<T>(row[j]);
        s += p[j] * xv[j];
      }
      return s;
    });
  }
}

/// A x as a new vector of m reals, m = entries / n: the shape is inferred, so an entry count
/// that is not a multiple of n throws etad::error, but a matrix of the right count and another
/// shape is taken as m x n (a 4 x 3 matrix, 12 entries, times 2 reals is read as 6 x 2). The out
/// form above checks the shape exactly: m = out.size() rows of n entries.
template <detail::real_range R, class M>
  requires detail::number_range<M, typename detail::real_of<R>::value_type>
auto matvec(const M& matrix, const R& range) {
  using T = typename detail::real_of<R>::value_type;
  const std::size_t n = std::ranges::size(range);
  std::vector<real<T>> y(detail::matvec_rows(std::ranges::size(matrix), n));
  if (!y.empty()) matvec(matrix, range, std::span<real<T>>(y));
  return y;
}

/// x^T A x for the variables x of a block (see variable_block): as for a range of its reals.
template <class M, class T>
  requires detail::number_range<M, T>
real<T> quadratic_form(const M& matrix, const variable_block<T>& x) {
  const std::size_t n = x.size();
  detail::require_square(std::ranges::size(matrix), n);
  if (n == 0) return real<T>(T(0));
  const detail::block_access<T> acc = detail::access_block(x);
  basic_tape<T>* const t = acc.t;
  const T* const v = acc.v;
  const auto parts = detail::quadratic_form_parts<T>(std::ranges::data(matrix), std::span<const T>(v, n));
  return detail::block_statement<T>(
      t, x,
      [&](T* p) {
        for (std::size_t i = 0; i < n; ++i) p[i] = parts.ax[i] + parts.atx[i];
        return parts.value;
      },
      [&](std::span<const real<T>> r) { return quadratic_form(matrix, r); });
}

/// A x for the variables x of a block, written to out (m reals): as for a range of its reals.
template <class M, class T>
  requires detail::number_range<M, T>
void matvec(const M& matrix, const variable_block<T>& x, std::span<real<T>> out) {
  const std::size_t n = x.size();
  detail::require_matvec_shape(std::ranges::size(matrix), out.size(), n);
  if (n == 0) {
    std::fill(out.begin(), out.end(), real<T>(T(0)));
    return;
  }
  const detail::block_access<T> acc = detail::access_block(x);
  basic_tape<T>* const t = acc.t;
  const T* const xv = acc.v;
  const auto* a = std::ranges::data(matrix);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto* row = a + i * n;
    out[i] = detail::block_statement<T>(
        t, x,
        [&](T* p) {
          T s(0);
          for (std::size_t j = 0; j < n; ++j) {
            p[j] = static_cast<T>(row[j]);
            s += p[j] * xv[j];
          }
          return s;
        },
        [&](std::span<const real<T>> r) {
          real<T> y;
          matvec(std::span(row, n), r, std::span<real<T>>(&y, 1));
          return y;
        });
  }
}
/// A x as a new vector of m reals, m = entries / n (see matvec of a range of reals).
template <class M, class T>
  requires detail::number_range<M, T>
std::vector<real<T>> matvec(const M& matrix, const variable_block<T>& x) {
  const std::size_t n = x.size();
  std::vector<real<T>> y(detail::matvec_rows(std::ranges::size(matrix), n));
  if (!y.empty()) matvec(matrix, x, std::span<real<T>>(y));
  return y;
}

// quadratic_form and matvec of anything else with a range of reals (a std::deque or a std::list as
// the matrix or the vector, a matrix of reals): one sentence instead of "no matching function".
template <class M, class R>
  requires detail::range_of_reals<R> && (!detail::matrix_arguments<M, R>)
auto quadratic_form(const M&, const R&) {
  static_assert(sizeof(M) == 0,
                "etad: quadratic_form takes a contiguous range of numbers (the n x n matrix, "
                "row-major) and a contiguous range of n reals (std::vector, std::array, "
                "std::span); copy a std::deque or a std::list into a std::vector first");
  return std::remove_cv_t<std::ranges::range_value_t<R>>{};
}
template <class M, class R>
  requires detail::range_of_reals<R> && (!detail::matrix_arguments<M, R>)
auto matvec(const M&, const R&) {
  static_assert(sizeof(M) == 0,
                "etad: matvec takes a contiguous range of numbers (the matrix, row-major) and a "
                "contiguous range of reals (std::vector, std::array, std::span); copy a "
                "std::deque or a std::list into a std::vector first");
  return std::vector<std::remove_cv_t<std::ranges::range_value_t<R>>>{};
}
template <class M, class R, class O>
  requires detail::range_of_reals<R> &&
           (!(detail::matrix_arguments<M, R> &&
              std::is_convertible_v<O, std::span<std::remove_cv_t<std::ranges::range_value_t<R>>>>))
void matvec(const M&, const R&, O&&) {
  static_assert(sizeof(M) == 0,
                "etad: matvec takes a contiguous range of numbers (the matrix, row-major), a "
                "contiguous range of reals (std::vector, std::array, std::span) and, in its out "
                "form, a contiguous range of non-const reals to write; copy a std::deque or a "
                "std::list into a std::vector first");
}

}  // namespace etad
