// etad/tape/map_reduce.hpp — sum over i of f(a_i, b_i, ..., s, t, ...) as ONE tape statement.
// f is an ordinary etad function (a generic lambda), differentiated at compile time; the loop
// computes the value and the partials for every active input in one pass, so the statement holds
// one partial per active scalar (plus one per active element of a range of reals), whatever N is:
//   real nll = map_sum([](auto y, auto mu, auto s) { return pow((y - mu) / s, 2); }, data, mu, s);
// An argument rows_times(X, w) is the vector X w, computed row by row inside the same loop: its
// partials for w (X^T times the element partials) are accumulated there, as a hand-written
// gradient would, so the statement has one partial per active element of w whatever the number
// of rows.
#pragma once

#include <etad/core/error.hpp>
#include <etad/static/gradient.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/reduce.hpp>
#include <etad/tape/tape.hpp>

#include <algorithm>
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

/// What rows_times(X, w) returns: X (rows x cols, row-major numbers N) and w (cols reals).
template <class T, class N>
struct rows_times_t {
  const N* matrix;
  std::size_t rows, cols;
  std::span<const real<T>> w;
};
template <class A>
inline constexpr bool is_rows_times_v = false;
template <class T, class N>
inline constexpr bool is_rows_times_v<rows_times_t<T, N>> = true;

template <class A>
struct broadcast_element {
  using type = A;
};
template <broadcast_range A>
struct broadcast_element<A> {
  using type = std::remove_cv_t<std::ranges::range_value_t<A>>;
};
template <class T, class N>
struct broadcast_element<rows_times_t<T, N>> {
  using type = real<T>;
};
template <class A>
using broadcast_element_t = typename broadcast_element<A>::type;

// The scalar type T of a map_sum: that of its first real argument, else the numbers' common type.
template <class... A>
struct map_scalar {
  using type = std::common_type_t<std::conditional_t<std::is_integral_v<A>, double, A>...>;
};
template <>
struct map_scalar<> {  // (no arguments: map_sum's assertion says so; no follow-on error here)
  using type = double;
};
template <class... A>
  requires(is_real_v<A> || ...)
struct map_scalar<A...> {
  template <class X>
  using real_t = boost::mp11::mp_bool<is_real_v<X>>;
  using list = boost::mp11::mp_list<A...>;
  using type = typename boost::mp11::mp_at<list, boost::mp11::mp_find_if<list, real_t>>::value_type;
};

// The values of a range of reals, gathered into contiguous storage so that loops over them
// vectorize (one buffer per thread and slot; reused, so no allocation in steady state).
template <class T, std::size_t Slot>
std::span<const T> gathered_values(std::span<const real<T>> x) {
  thread_local std::vector<T> v;
  v.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) v[i] = x[i].value();
  return v;
}

/// Records one statement from gathered inputs and partials (same order). The last `tail`
/// inputs (one range argument's) are stored as a range when their indices are consecutive.
/// Constant inputs (index 0: a constant real passed as a scalar, constants in a range of reals)
/// are left out, so the statement has one partial per active input. `unlisted` are the other
/// reals the statement's value depends on (through no derivative): checked like the inputs, and
/// the statement is recorded when any of them is on the tape, with no inputs, as a scalar
/// statement whose reals are all under stop_gradient is. Returns a constant when nothing is on
/// a tape.
template <class T, bool Unlisted = false>
real<T> gathered_statement(std::span<const real<T>> inputs, std::span<const T> partials,
                           const T& value, std::size_t tail,
                           [[maybe_unused]] std::span<const real<T>> unlisted = {}) {
  const std::size_t n = inputs.size(), head = n - tail;
  basic_tape<T>* t = basic_tape<T>::current();
  range_info info = scan_range<T>(inputs.subspan(head), t, [](auto&&...) {});
  std::size_t head_constants = 0;
  if (head != 0) {
    const range_info front = scan_scattered<T>(inputs.first(head), t);
    info.any = info.any || front.any;
    head_constants = front.constants;
  }
  if constexpr (Unlisted) {
    const range_info other = scan_scattered<T>(unlisted, t);
    info.any = info.any || other.any;
  }
  if (!info.any) return real<T>(value);
  if (t == nullptr) no_tape_for_reduction<T>();
  index_t defined;
  // The (partial, input) pairs of inputs [0, m), constants left out when there are some.
  const auto put = [&](T* partial, index_t* input, std::size_t m, std::size_t constants) {
    if (constants == 0) {
      for (std::size_t q = 0; q < m; ++q) {
        partial[q] = partials[q];
        input[q] = inputs[q].index();
      }
    } else {
      std::size_t k = 0;
      for (std::size_t q = 0; q < m; ++q)
        if (inputs[q].index() != 0) {
          partial[k] = partials[q];
          input[k] = inputs[q].index();
          ++k;
        }
    }
  };
  if (info.contiguous && tail != 0) {
    auto slot = t->record_range(head - head_constants, info.first, tail, false, T(0), defined);
    put(slot.partial, slot.input, head, head_constants);
    std::copy_n(partials.data() + head, tail, slot.range);
  } else {
    // (A contiguous tail has no constants, and scan_range counts none for it.)
    const std::size_t constants = head_constants + info.constants;
    auto slot = t->record(n - constants, defined);
    put(slot.partial, slot.input, n, constants);
  }
  return recorded_real<T>(value, defined, t->epoch());
}

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

/// rows_times(X, w): the vector X w (X: a constant matrix, row-major, rows x w.size() numbers;
/// w: reals), as an argument of map_sum, which computes element i = X_i . w inside its loop and
/// accumulates the partials for w there. The result refers to X and w (pass named containers or
/// views, not temporaries: a compile error), which are read during the map_sum call only
/// (nothing on the tape refers to them). Regression: map_sum(f, y, rows_times(X, w), b, sigma).
template <class M, detail::real_range R>
  requires detail::number_range<M, typename detail::real_of<R>::value_type>
auto rows_times(const M& matrix, const R& w) {
  using T = typename detail::real_of<R>::value_type;
  using N = std::remove_cv_t<std::ranges::range_value_t<M>>;
  const std::size_t cols = std::ranges::size(w), size = std::ranges::size(matrix);
  if (cols == 0 || size % cols != 0)
    throw error("etad: rows_times needs a matrix of rows x n entries (row-major) for n = " +
                std::to_string(cols) + " reals, but the matrix has " + std::to_string(size) +
                " entries; pass the matrix row-major with rows * n entries");
  return detail::rows_times_t<T, N>{std::ranges::data(matrix), size / cols, cols,
                                    std::span<const real<T>>(std::ranges::data(w), cols)};
}

/// rows_times of a temporary container is refused: its result refers to X and w, which would be
/// gone before map_sum reads them.
template <class M, class R>
  requires((!std::is_lvalue_reference_v<M> && !std::ranges::borrowed_range<M>) ||
           (!std::is_lvalue_reference_v<R> && !std::ranges::borrowed_range<R>)) &&
          (!detail::is_variable_block_v<std::remove_cvref_t<R>>)
auto rows_times(M&&, R&&) {  // (deduced: the assertion fires ahead of errors about the result)
  static_assert(sizeof(M) == 0,
                "etad: rows_times refers to its matrix and vector, so a temporary container "
                "(such as a std::vector returned by a function) would be gone before map_sum "
                "reads it; store it in a named variable first");
  return 0;
}

/// rows_times of anything else with a range of reals (a std::deque or a std::list as the matrix
/// or as w): one sentence instead of "no matching function". (Temporaries get the overload
/// above, which binds them better.)
template <class M, class R>
  requires detail::range_of_reals<R> && (!detail::matrix_arguments<M, R>)
auto rows_times(const M&, const R&) {
  static_assert(sizeof(M) == 0,
                "etad: rows_times takes a contiguous range of numbers (the matrix, row-major) and "
                "a contiguous range of reals (std::vector, std::array, std::span); copy a "
                "std::deque or a std::list into a std::vector first");
  return 0;
}

/// rows_times with a variable block as w: one sentence (rows_times refers to a range of reals,
/// which a block does not hold).
template <class M, class T>
auto rows_times(const M&, const variable_block<T>&) {
  static_assert(sizeof(M) == 0,
                "etad: rows_times takes a contiguous range of reals as w, and a variable_block "
                "holds no reals; store b.reals() in a named std::vector and pass that");
  return 0;
}

namespace detail {
/// map_sum's argument a, or, for a variable block, the vector of its reals.
template <class A>
decltype(auto) block_as_reals(const A& a) {
  if constexpr (is_variable_block_v<A>)
    return a.reals();
  else
    return (a);
}

/// A map_sum argument that is a range, but not a contiguous one (a std::list, a filtered view).
template <class A>
concept noncontiguous_argument = std::ranges::range<A> && !broadcast_range<A>;
/// A map_sum argument that is an expression of reals not yet recorded (mu * 2.0): map_sum takes
/// reals and numbers as scalars.
template <class A>
concept expression_argument = expression<A> && !is_real_v<A>;

/// map_sum of arguments of the kinds it takes (see map_sum).
template <class F, class... A>
auto map_sum_of(F f, const A&... args) {
  using T = typename detail::map_scalar<detail::broadcast_element_t<A>...>::type;
  constexpr std::size_t k = sizeof...(A);
  // The common length of the ranges.
  std::size_t n = 0;
  bool first = true;
  auto length = [&](const auto& a) {
    using X = std::remove_cvref_t<decltype(a)>;
    if constexpr (detail::broadcast_range<X> || detail::is_rows_times_v<X>) {
      std::size_t m;
      if constexpr (detail::is_rows_times_v<X>)
        m = a.rows;
      else
        m = std::ranges::size(a);
      if (!first && m != n)
        throw error("etad: map_sum over ranges of different lengths (" + std::to_string(n) +
                    " and " + std::to_string(m) + "); give ranges of equal length");
      n = m;
      first = false;
    }
  };
  (length(args), ...);

  auto program = detail::make_program<T, k>(f);
  using P = decltype(program);
  static_assert(P::outputs == 1, "etad: map_sum's function must return one value");

  // Which arguments are inputs of the statement: those that carry reals and that f reaches
  // through differentiable rules (an argument used only under stop_gradient, floor or a
  // comparison gets no gradient: not listed, it stays unconnected, as in TensorFlow).
  using Args = std::make_index_sequence<k>;
  constexpr std::array<bool, k> scalar_real = []<std::size_t... J>(std::index_sequence<J...>) {
    return std::array<bool, k>{
        (!detail::broadcast_range<A> && detail::is_real_v<A> && P::template reaches_input<J>)...};
  }(Args{});
  constexpr std::array<bool, k> range_real = []<std::size_t... J>(std::index_sequence<J...>) {
    return std::array<bool, k>{(detail::broadcast_range<A> &&
                                detail::is_real_v<detail::broadcast_element_t<A>> &&
                                P::template reaches_input<J>)...};
  }(Args{});
  // rows_times' w is an input when f reaches that argument.
  constexpr bool rows_reached = []<std::size_t... J>(std::index_sequence<J...>) {
    return ((detail::is_rows_times_v<A> && P::template reaches_input<J>) || ...);
  }(Args{});
  constexpr std::size_t rows_count = (std::size_t(detail::is_rows_times_v<A>) + ...);
  static_assert(rows_count <= 1, "etad: map_sum takes at most one rows_times argument");

  std::array<T, k> scalar_partial{};
  std::size_t range_inputs = 0;
  for (std::size_t j = 0; j < k; ++j) range_inputs += range_real[j] ? n : 0;
  thread_local std::vector<T> range_partial;  // reused: no allocation in steady state
  range_partial.resize(range_inputs);

  // rows_times: w's values (contiguous, for the dot products) and its partials X^T g.
  const std::span<const real<T>>* w = nullptr;
  std::size_t cols = 0;
  auto find_rows = [&](const auto& a) {
    if constexpr (detail::is_rows_times_v<std::remove_cvref_t<decltype(a)>>) {
      w = &a.w;
      cols = a.cols;
    }
  };
  (find_rows(args), ...);
  thread_local std::vector<T> w_partial;
  std::span<const T> wv;
  if constexpr (rows_count != 0) {
    wv = detail::gathered_values<T, 0>(*w);
    w_partial.assign(cols, T(0));
  }

  T total(0);
  for (std::size_t i = 0; i < n; ++i) {
    auto value_of = [&](const auto& a) -> T {
      using X = std::remove_cvref_t<decltype(a)>;
      if constexpr (detail::is_rows_times_v<X>) {
        const auto* row = a.matrix + i * cols;
        T d(0);
        for (std::size_t c = 0; c < cols; ++c) d += static_cast<T>(row[c]) * wv[c];
        return d;
      } else {
        return detail::element_value<T>(a, i);
      }
    };
    const std::array<T, k> x{value_of(args)...};
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
    if constexpr (rows_reached) {
      // w's partials: += g * X_i (the hand-written AXPY).
      auto axpy = [&](const auto& a, const T& gj) {
        if constexpr (detail::is_rows_times_v<std::remove_cvref_t<decltype(a)>>) {
          const auto* row = a.matrix + i * cols;
          T* wp = w_partial.data();
          for (std::size_t c = 0; c < cols; ++c) wp[c] += gj * static_cast<T>(row[c]);
        }
      };
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        (axpy(args, g[J]), ...);
      }(std::make_index_sequence<k>{});
    }
  }

  // Gather the active inputs and partials in statement order: scalar reals, then each range of
  // reals, then rows_times' w (the last one is stored as a range when it is contiguous).
  thread_local std::vector<real<T>> inputs;
  thread_local std::vector<T> partials;
  inputs.clear();
  partials.clear();
  for (std::size_t j = 0; j < k; ++j)
    if (scalar_real[j]) partials.push_back(scalar_partial[j]);
  partials.insert(partials.end(), range_partial.begin(), range_partial.end());
  std::size_t tail = 0;
  // Appends argument a's reals to the inputs when `listed` (a std::bool_constant: scalar_real,
  // range_real or rows_reached for it), else to `unlisted` (only when some argument with reals
  // is not reached: otherwise this buffer is not touched at all).
  constexpr bool some_unlisted = []<std::size_t... J>(std::index_sequence<J...>) {
    return ((detail::is_real_v<detail::broadcast_element_t<A>> && !P::template reaches_input<J>) ||
            ...);
  }(Args{});
  std::vector<real<T>>* unlisted = nullptr;
  if constexpr (some_unlisted) {
    thread_local std::vector<real<T>> buffer;
    buffer.clear();
    unlisted = &buffer;
  }
  auto gather = [&](const auto& a, auto listed) {
    using X = std::remove_cvref_t<decltype(a)>;
    constexpr bool input = decltype(listed)::value;
    if constexpr (!input && !some_unlisted) return;
    std::vector<real<T>>& to = input ? inputs : *unlisted;
    if constexpr (detail::is_rows_times_v<X>) {
      to.insert(to.end(), a.w.begin(), a.w.end());
      if (input) tail = a.w.size();
    } else if constexpr (detail::broadcast_range<X>) {
      if constexpr (detail::is_real_v<detail::broadcast_element_t<X>>) {
        to.insert(to.end(), std::ranges::begin(a), std::ranges::end(a));
        if (input) tail = std::ranges::size(a);
      }
    } else if constexpr (detail::is_real_v<X>) {
      to.push_back(a);
    }
  };
  // Scalars first, then ranges, then rows_times, matching the partials' order.
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    ([&] {
      if constexpr (!detail::broadcast_range<A> && !detail::is_rows_times_v<A>)
        gather(args, std::bool_constant<scalar_real[J]>{});
    }(), ...);
    ([&] {
      if constexpr (detail::broadcast_range<A>) gather(args, std::bool_constant<range_real[J]>{});
    }(), ...);
  }(Args{});
  ([&] {
    if constexpr (detail::is_rows_times_v<A>) gather(args, std::bool_constant<rows_reached>{});
  }(), ...);
  if constexpr (rows_reached) partials.insert(partials.end(), w_partial.begin(), w_partial.end());
  if constexpr (some_unlisted)
    return detail::gathered_statement<T, true>(inputs, partials, total, tail, *unlisted);
  else
    return detail::gathered_statement<T>(inputs, partials, total, tail);
}

}  // namespace detail

/// map_sum(f, a, b, ...): sum over i of f(a[i], b[i], ...), where each argument is a contiguous
/// range (of numbers or of reals; all ranges of one length n >= 0), rows_times(X, w) (a range of
/// length rows(X)), or a scalar (a number or a real) broadcast to every i. Recorded as one
/// statement: one partial per scalar real, one per element of each range of reals, one per element
/// of each rows_times' w, for the arguments f reaches through differentiable rules (one used
/// only under stop_gradient, floor or a comparison is not an input: unconnected, as in
/// TensorFlow); constant reals (index 0) are left out of the statement. With no real anywhere it
/// is just a number (as a constant). A range that is not contiguous, or an expression as a
/// scalar, is a compile error with one sentence.
template <class F, class... A>
auto map_sum(F f, const A&... args) {
  // The arguments and f first, each mistake with its own sentence and nothing after it (the
  // body's types would not make sense of them).
  constexpr std::size_t k = sizeof...(A);
  if constexpr (k == 0) {
    static_assert(k > 0, "etad: map_sum needs at least one argument after the function");
    return 0;
  } else if constexpr ((detail::is_variable_block_v<A> || ...)) {
    // A variable block maps as the range of its reals (made here, alive until map_sum returns).
    return map_sum(f, detail::block_as_reals(args)...);
  } else if constexpr ((detail::noncontiguous_argument<A> || ...)) {
    static_assert(sizeof(F) == 0,
                  "etad: map_sum maps over contiguous ranges only (std::vector, std::array, "
                  "std::span); copy a std::list, a std::deque or a view into a std::vector first");
    return 0;
  } else if constexpr ((detail::expression_argument<A> || ...)) {
    static_assert(sizeof(F) == 0,
                  "etad: map_sum takes reals and numbers as scalar arguments, not expressions; "
                  "assign the expression to a real first (etad::real s = mu * 2.0) and pass s");
    return 0;
  } else if constexpr (!((detail::broadcast_range<A> || detail::is_rows_times_v<A>) || ...)) {
    static_assert(sizeof(F) == 0,
                  "etad: map_sum needs at least one range argument to map over; for scalars "
                  "only, call the function directly");
    return 0;
  } else if constexpr (!detail::traced_own_leaves_v<F, k, 0>) {
    // (Ahead of make_program, whose own check of f's leaves says the same in general terms.)
    static_assert(sizeof(F) == 0,
                  "etad: map_sum's function used a real it did not get as an argument (a "
                  "captured real would count as a constant and its gradient would be lost); pass "
                  "the real to map_sum after the function and take it as a parameter");
    return 0;
  } else {
    return detail::map_sum_of(f, args...);
  }
}

}  // namespace etad
