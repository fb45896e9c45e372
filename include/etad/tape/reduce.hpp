// etad/tape/reduce.hpp — reductions over contiguous ranges of reals (or a pointer and a length),
// each ONE tape statement with one partial per active element (not N - 1 binary statements; a
// constant real takes none): sum, mean, dot, squared_norm, prod, log_sum_exp.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/ops/detail/exp_nonpositive.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/tape.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
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

/// A vector statement's error for a real of another tape or from before reset() (made in every
/// build: see scan_range and scan_scattered).
template <class T>
[[noreturn, gnu::noinline, gnu::cold]] void foreign_real_in_reduction(
    std::span<const real<T>> x, const basic_tape<T>* t) {
  std::uint32_t e = 0;
  for (const real<T>& r : x)
    if (r.epoch() != 0 && !t->accepts(r.epoch())) {
      e = r.epoch();
      break;
    }
  throw error(foreign_real_message<T>(
      e, "a reduction uses",
      "etad: a reduction uses a real recorded on another tape or before reset(); reals are "
      "valid only on the tape, and in the epoch, that made them (a real made inside a "
      "custom_gradient, recompute_grad or checkpointed_loop function is valid only inside it)"));
}

// g++ 12 warns -Warray-bounds about the 4-lane loops below for ranges whose allocation it can
// see is shorter than 4 elements (the loops cannot run then): a false positive that -Werror
// turns into an error in users' builds.
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Warray-bounds"
#endif
/// Accumulators of a sum over a range (see scan_range); added pairwise at the end.
inline constexpr std::size_t sum_lanes = 4;
/// Parts of a long product whose scans are interleaved (see prod).
inline constexpr std::size_t prod_lanes = 4;
template <class T>
struct lane_sum {
  std::array<T, sum_lanes> lane{};
  template <std::size_t L>
  ETAD_ALWAYS_INLINE void add(std::integral_constant<std::size_t, L>, const T& v) {
    std::get<L>(lane) += v;
  }
  ETAD_ALWAYS_INLINE T total() const { return (lane[0] + lane[1]) + (lane[2] + lane[3]); }
};

/// f(k, lane) for k = 0 .. n - 1 in order, lane = k % sum_lanes as a std::integral_constant
/// for the first n - n % sum_lanes elements and 0 after them (see scan_range).
template <class F>
ETAD_ALWAYS_INLINE void for_each_lane(std::size_t n, F&& f) {
  const std::size_t whole = n - n % sum_lanes;
  for (std::size_t k = 0; k < whole; k += sum_lanes)
    [&]<std::size_t... L>(std::index_sequence<L...>) {
      (f(k + L, std::integral_constant<std::size_t, L>{}), ...);
    }(std::make_index_sequence<sum_lanes>{});
  for (std::size_t k = whole; k < n; ++k) f(k, std::integral_constant<std::size_t, 0>{});
}
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic pop
#endif

struct range_info {
  bool any = false;
  bool contiguous = false;
  index_t first = 0;
  /// Constants (index 0) in a range that is not contiguous: the statement leaves them out.
  std::size_t constants = 0;
};

/// Ranges of at most this many reals are scanned by one scalar loop (scan_range).
inline constexpr std::size_t short_scan_limit = 16;
/// Longer ranges of at most this many reals are scanned in two loops, longer ones in one
/// (scan_range).
inline constexpr std::size_t split_scan_limit = std::size_t(1) << 20;

/// What a statement that stores one index per real needs to know about them: is any on a tape,
/// and how many are constants (index 0; the statement leaves them out). A real of another tape
/// or from before reset() throws, in every build (not only with ETAD_CHECKED): one more test per
/// element, next to the index the statement stores anyway. Nothing is on a tape while recording
/// is paused (and nothing is checked then).
template <class T>
ETAD_ALWAYS_INLINE range_info scan_scattered(std::span<const real<T>> x,
                                             const basic_tape<T>* t) {
  // The answers come from the reals' epochs alone: a real on a tape has a nonzero index and a
  // nonzero epoch, a constant has both 0. So the loop reads one 4-byte field per real and keeps
  // two accumulators: the least epoch (0: some constant; then a second pass counts them, and
  // "any on a tape" is "not all constants"), and min(e ^ epoch, e), which is 0 exactly when e
  // is 0 or the tape's epoch.
  range_info r;
  const std::uint32_t epoch = t == nullptr ? 0 : t->epoch();
  std::uint32_t lowest = ~std::uint32_t(0), foreign = 0;
  for (const real<T>& e : x) {
    const std::uint32_t k = e.epoch();
    lowest = std::min(lowest, k);
    foreign |= std::min(k ^ epoch, k);
  }
  const bool paused = paused_recording<T> != 0;
  // (foreign: some real is not of the tape's epoch; inside a pass it may be of a recording
  // around it, which accepts_all() looks up.)
  if (foreign != 0 && t != nullptr && !paused && !t->accepts_all(x))
    foreign_real_in_reduction<T>(x, t);
  if (lowest == 0)
    for (const real<T>& e : x) r.constants += e.epoch() == 0;
  r.any = r.constants != x.size() && !paused;
  return r;
}

/// What a reduction needs to know about its range of reals: is any on a tape, and are they
/// consecutive values of the tape t in its current epoch (x[k].index() == first + k, as
/// variables() makes them and as consecutive statements are), so that the statement can store
/// (first, length) instead of one index per element; if not, scan_scattered's answer (which
/// counts the constants and throws for a real of another tape or epoch). Branch-free;
/// visit(k, value, lane) is called for every element in order (a reduction's value loop rides
/// along), lane = k % sum_lanes as a std::integral_constant for the first n - n % sum_lanes
/// elements and 0 after them: a sum kept in sum_lanes accumulators, one per lane, is not bound
/// by the latency of one add per element.
template <class T, class Visit>
ETAD_ALWAYS_INLINE range_info scan_range(std::span<const real<T>> x, const basic_tape<T>* t,
                                         Visit&& visit) {
  range_info r;
  const std::size_t n = x.size();
  if (n == 0) return r;
  const real<T>* xs = x.data();
  // The values, then (a loop of its own) the fast path's test: element k's key is
  // key_of(x[0]) + k (consecutive indices, one epoch). In one loop, g++ 12 vectorized neither
  // part well: sum/10^4's scan took 3.6 us, against 1.2 us (values in 4 lanes) + 0.8 us (keys)
  // as two loops. Two loops read the reals twice, which pays while they stay in a cache: per
  // element, 0.38 (one loop) against 0.20, 0.26, 0.36 ns for 10^4, 10^5, 10^6 reals, but 0.50
  // against 0.80 ns for 4 * 10^6 (64 MB, past this machine's 32 MB L3). Past split_scan_limit
  // reals, one loop. Up to short_scan_limit reals, one scalar loop: a short range is usually
  // one that variables() (or statements) wrote just before, element by element, and g++'s
  // vector loads of it (several reals per load, permuted apart) waited for those stores (not
  // forwarded from the store buffer; perf put 37 % of sum/10's samples in sum()). Measured:
  // sum/10 812 -> 786 instructions; in time -7.5 % or -1 % depending on the host's state (both
  // versions in one program, interleaved; docs/performance-tape.md).
  // The check that the reals are of this tape and epoch rides on the same test: element k's key
  // must be key0 + k with key0 = (the tape's epoch, x[0]'s index). (With no tape, no range
  // passes: range_statement then reports the missing tape.)
  const std::uint64_t key0 =
      (std::uint64_t(t == nullptr ? 0 : t->epoch()) << 32) | std::uint64_t(xs[0].index());
  std::uint64_t gaps = 0;
  if (n <= short_scan_limit) {
    for_each_lane(n, [&](std::size_t k, auto lane) {
      no_vectorize();
      visit(k, xs[k].value(), lane);
      gaps |= key_of(xs[k]) ^ (key0 + k);
    });
  } else if (n <= split_scan_limit) {
    for_each_lane(n, [&](std::size_t k, auto lane) { visit(k, xs[k].value(), lane); });
    for (std::size_t k = 0; k < n; ++k) gaps |= key_of(xs[k]) ^ (key0 + k);
  } else {
    for_each_lane(n, [&](std::size_t k, auto lane) {
      visit(k, xs[k].value(), lane);
      gaps |= key_of(xs[k]) ^ (key0 + k);
    });
  }
  const index_t first = xs[0].index();
  if (gaps == 0 && first != 0 && n < range_flag) {
    r.any = paused_recording<T> == 0;
    r.contiguous = true;
    r.first = first;
    return r;
  }
  return scan_scattered<T>(x, t);
}

/// +infinity of T: a floating type's, or, for the reals of a nested tape (real<U>, for which
/// std::numeric_limits is not specialized and would give T() = 0), a constant holding U's.
template <class T>
T infinity_of() {
  if constexpr (std::numeric_limits<T>::is_specialized)
    return std::numeric_limits<T>::infinity();
  else
    return T(infinity_of<typename T::value_type>());
}

template <class T>
[[noreturn]] inline void no_tape_for_reduction() {
  throw error("etad: a reduction of reals was computed with no active tape; create an "
              "etad::tape first (or compute values only inside etad::stop_recording)");
}

/// The statement's inputs when some of the reals in parts are constants (index 0, counted by
/// scan_range): the (index, partial) pairs of the others, in order, from partials p that has one
/// per real. So a statement holds one partial per active element; where there is no constant
/// (the usual case) the callers write the pairs in their own loop instead.
template <class T, std::size_t K>
void write_active_inputs(const std::array<std::span<const real<T>>, K>& parts, const T* p,
                         T* partial, index_t* input) {
  std::size_t m = 0, q = 0;
  for (const auto& x : parts)
    for (const auto& r : x) {
      if (r.index() != 0) {
        input[m] = r.index();
        partial[m] = p[q];
        ++m;
      }
      ++q;
    }
}

/// A buffer for one partial per element, for statements that leave constants out (they compute
/// every element's partial, then keep the active ones'). One per thread; reused.
template <class T>
T* partials_buffer(std::size_t n) {
  thread_local std::vector<T> buffer;
  buffer.resize(n);
  return buffer.data();
}

/// Records one statement whose inputs are the reals of x (scanned into info by scan_range).
/// fill(p) writes one partial per element into p and returns the statement's value, so a loop
/// can compute both at once. Returns a constant when nothing is on a tape (fill then writes into
/// a scratch buffer, for the value). A contiguous x is stored as a range statement; otherwise
/// constant elements are left out of the statement (fill still writes their partials, into a
/// buffer from which the active ones are copied).
template <class T, class Fill>
ETAD_ALWAYS_INLINE real<T> range_statement(std::span<const real<T>> x, const range_info& info,
                                           Fill&& fill) {
  const std::size_t n = x.size();
  basic_tape<T>* t = basic_tape<T>::current();
  if (!info.any) {
    thread_local std::vector<T> scratch;  // reused: no allocation in steady state
    scratch.resize(n);
    return real<T>(T(fill(scratch.data())));  // (T first: on a nested tape, an outer real)
  }
  if (t == nullptr) no_tape_for_reduction<T>();
  index_t defined;
  T* p;
  if (info.contiguous) {
    p = t->record_range(0, info.first, n, false, T(0), defined).range;
  } else if (info.constants == 0) {
    auto slot = t->record(n, defined);
    for (std::size_t q = 0; q < n; ++q) slot.input[q] = x[q].index();
    p = slot.partial;
  } else {
    T* all = partials_buffer<T>(n);
    const T v = fill(all);
    auto slot = t->record(n - info.constants, defined);
    write_active_inputs<T, 1>({x}, all, slot.partial, slot.input);
    return recorded_real<T>(v, defined, t->epoch());
  }
  const T v = fill(p);
  return recorded_real<T>(v, defined, t->epoch());
}

/// The same when every partial is `scale` (sum, mean): a contiguous x stores no partials at all.
template <class T>
ETAD_ALWAYS_INLINE real<T> uniform_statement(std::span<const real<T>> x, const range_info& info,
                                             const T& v, const T& scale) {
  const std::size_t n = x.size();
  if (!info.any) return real<T>(v);
  basic_tape<T>* t = basic_tape<T>::current();
  if (t == nullptr) no_tape_for_reduction<T>();
  index_t defined;
  if (info.contiguous) {
    t->record_range(0, info.first, n, true, scale, defined);
  } else {
    auto slot = t->record(n - info.constants, defined);
    if (info.constants == 0) {
      for (std::size_t q = 0; q < n; ++q) {
        slot.input[q] = x[q].index();
        slot.partial[q] = scale;
      }
    } else {
      std::size_t m = 0;
      for (std::size_t q = 0; q < n; ++q)
        if (x[q].index() != 0) {
          slot.input[m] = x[q].index();
          slot.partial[m++] = scale;
        }
    }
  }
  return recorded_real<T>(v, defined, t->epoch());
}

/// Records one statement whose inputs are the reals of parts[0], parts[1], ... (in that order),
/// constants left out. fill(p) writes one partial per real into p and returns the statement's
/// value. Returns a constant when nothing is on a tape. A single contiguous part becomes a range
/// statement.
template <class T, std::size_t K, class Fill>
real<T> statement_over(const std::array<std::span<const real<T>>, K>& parts, Fill&& fill) {
  basic_tape<T>* t = basic_tape<T>::current();
  if constexpr (K == 1) {
    const range_info info = scan_range<T>(parts[0], t, [](auto&&...) {});
    return range_statement<T>(parts[0], info, fill);
  } else {
    std::size_t n = 0, constants = 0;
    bool any = false;
    for (const auto& x : parts) {
      n += x.size();
      const range_info info = scan_scattered<T>(x, t);
      any = info.any || any;
      constants += info.constants;
    }
    if (!any) {
      thread_local std::vector<T> scratch;  // reused: no allocation in steady state
      scratch.resize(n);
      return real<T>(T(fill(scratch.data())));  // (T first: on a nested tape, an outer real)
    }
    if (t == nullptr) no_tape_for_reduction<T>();
    index_t defined;
    if (constants != 0) {
      T* all = partials_buffer<T>(n);
      const T v = fill(all);
      auto slot = t->record(n - constants, defined);
      write_active_inputs<T, K>(parts, all, slot.partial, slot.input);
      return recorded_real<T>(v, defined, t->epoch());
    }
    auto slot = t->record(n, defined);
    std::size_t q = 0;
    for (const auto& x : parts)
      for (const auto& r : x) slot.input[q++] = r.index();
    const T v = fill(slot.partial);
    return recorded_real<T>(v, defined, t->epoch());
  }
}

/// checked_statement's rare path: the range statement just recorded over x (its partials in
/// slot.range) turned out not to be over consecutive reals. Rewritten in place as an ordinary
/// statement (the same slots: its partials are already where an ordinary statement's go); taken
/// back and recorded again without its constants when some elements are constants; taken back
/// before the error when some are reals of another tape or epoch. Returns the statement's index.
template <class T>
index_t unrange_statement(basic_tape<T>* t, std::span<const real<T>> x,
                          const typename statement_store<T>::range_slot& slot, index_t defined) {
  const std::size_t n = x.size();
  std::size_t constants = 0;
  bool foreign = false;
  for (const real<T>& e : x) {
    constants += e.epoch() == 0;
    foreign |= e.epoch() != 0 && !t->accepts(e.epoch());
  }
  if (foreign) {
    t->discard_last_statement();  // the error leaves the tape as it was
    foreign_real_in_reduction<T>(x, t);
  }
  if (constants == 0) {
    t->unrange_last_statement(slot);  // a range of length 0, then n ordinary (partial, input) pairs
    for (std::size_t k = 0; k < n; ++k) slot.input[k] = x[k].index();
    return defined;
  }
  T* all = partials_buffer<T>(n);
  std::copy_n(slot.range, n, all);
  t->discard_last_statement();
  const auto active = t->record(n - constants, defined);
  write_active_inputs<T, 1>({x}, all, active.partial, active.input);
  return defined;
}

/// checked_statement's check, called with each k in turn: gaps is nonzero unless element k's
/// key is key0 + k for every k. An object with the state as members, not a lambda capturing
/// local variables by reference: with the lambda, g++ reloaded `key0` and stored `gaps` at every
/// element of the fill's loop (log_sum_exp's scaling loop: 11 instructions per element; 10 with
/// `key0` in a register, `gaps` still being stored, as the fill gets the check by reference).
template <class T>
struct key_check {
  const real<T>* xs;
  std::uint64_t key0;
  std::uint64_t gaps = 0;
  ETAD_ALWAYS_INLINE void operator()(std::size_t k) noexcept { gaps |= key_of(xs[k]) ^ (key0 + k); }
};

/// Like statement_over for one range, with the range's check folded into the fill's own loop:
/// fill(p, visit) writes the partials, calls visit(k) for every element k in its main loop, and
/// returns the value. When x's ends are consecutive values of the tape, a range statement is
/// recorded first and the loop checks the elements in between as it goes (no separate pass over
/// x); should they not be consecutive after all, unrange_statement makes it an ordinary one.
template <class T, class Fill>
ETAD_ALWAYS_INLINE real<T> checked_statement(std::span<const real<T>> x, Fill&& fill) {
  const std::size_t n = x.size();
  basic_tape<T>* t = basic_tape<T>::current();
  if (n != 0 && t != nullptr && paused_recording<T> == 0 && n < range_flag) {
    const std::uint64_t key0 = key_of(x[0]);
    if (x[0].index() != 0 && x[0].epoch() == t->epoch() && key_of(x[n - 1]) == key0 + (n - 1)) {
      index_t defined;
      const auto slot = t->record_range(0, x[0].index(), n, false, T(0), defined);
      key_check<T> check{x.data(), key0};
      const T v = fill(slot.range, check);
      if (check.gaps != 0) [[unlikely]]
        defined = unrange_statement<T>(t, x, slot, defined);
      return recorded_real<T>(v, defined, t->epoch());
    }
  }
  return statement_over<T, 1>({x}, [&](T* p) { return fill(p, [](std::size_t) {}); });
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

/// A range of reals that is not contiguous (a std::list, a filtered view): the reductions read
/// their reals through one pointer, so it gets a sentence instead of "no matching function".
template <class R>
concept noncontiguous_real_range = std::ranges::range<R> && !real_range<R> &&
                                   is_real_v<std::remove_cv_t<std::ranges::range_value_t<R>>>;

template <class R>
int needs_contiguous_reals() {
  static_assert(sizeof(R) == 0,
                "etad: the reductions take a contiguous range of reals (std::vector, std::array, "
                "std::span, or a pointer and a length); copy the reals into a std::vector first");
  return 0;
}

/// Any range whose elements are reals, contiguous or not (the catch-alls' trigger: a call with
/// such a range that matches no form of the function gets a sentence).
template <class R>
concept range_of_reals = std::ranges::range<R> &&
                         is_real_v<std::remove_cv_t<std::ranges::range_value_t<R>>>;

/// The arguments dot's range forms take: two contiguous ranges, reals on one side or both,
/// numbers convertible to the reals' type on the other.
template <class X, class Y>
concept dot_arguments =
    (real_range<X> && (real_range<Y> || number_range<Y, typename real_of<X>::value_type>)) ||
    (real_range<Y> && number_range<X, typename real_of<Y>::value_type>);

/// The arguments quadratic_form, matvec and rows_times take: a contiguous range of numbers
/// convertible to the reals' type (the matrix) and a contiguous range of reals.
template <class M, class R>
concept matrix_arguments = real_range<R> && number_range<M, typename real_of<R>::value_type>;

/// The real type of the first of X, Y that is a range of reals (a catch-all's stand-in result,
/// so that its assertion is the only error).
template <class X, class Y>
auto real_of_either() {
  if constexpr (range_of_reals<X>)
    return std::remove_cv_t<std::ranges::range_value_t<X>>{};
  else
    return std::remove_cv_t<std::ranges::range_value_t<Y>>{};
}

/// The pointer forms' range: (p, n) as a span, and a sentence instead of a crash for a null
/// pointer with a length.
template <class E>
std::span<const E> pointer_range(const E* p, std::size_t n, const char* what) {
  if (p == nullptr && n != 0)
    throw error(std::string("etad: ") + what + "() got a null pointer with a length of " +
                std::to_string(n) + "; pass a pointer to " + std::to_string(n) +
                " elements, or a length of 0 for an empty range");
  return std::span<const E>(p, n);
}

/// A vector statement's error for a variable block of another tape or from before reset().
[[noreturn]] inline void foreign_block_in_reduction() {
  throw error("etad: a reduction uses a variable block made on another tape or before reset(); "
              "a block is valid only on the tape, and in the epoch, that made it");
}

/// What a statement over the (non-empty) block b needs: the tape it goes to (the active tape,
/// or nullptr while recording is paused: then the value is a constant) and the block's values.
/// etad::error for a block from before its tape's reset() (paused or not: its values are gone),
/// and, while recording, with no tape or for a block of another tape. The values are read
/// through `v` only after these checks (one check of the block's epoch per call, not one per
/// read of b.values()).
template <class T>
struct block_access {
  basic_tape<T>* t;
  const T* v;
};
template <class T>
ETAD_ALWAYS_INLINE block_access<T> access_block(const variable_block<T>& b) {
  const T* v = b.values().data();  // (checks the block's epoch against its own tape's)
  if (paused_recording<T> != 0) return {nullptr, v};
  basic_tape<T>* t = basic_tape<T>::current();
  if (t == nullptr) no_tape_for_reduction<T>();
  if (b.epoch() != t->epoch() && !t->accepts(b.epoch())) [[unlikely]]
    foreign_block_in_reduction();
  return {t, v};
}

/// The statement of a reduction over a non-empty variable block, on t (from access_block): a
/// range statement over its indices. fill(p) writes one partial per variable into p and returns
/// the value; with t == nullptr, into a scratch buffer, and the value is a constant. A block of
/// 2^31 values or more (longer than a range statement holds) goes through its reals:
/// over_reals(span of reals).
template <class T, class Fill, class Reals>
ETAD_ALWAYS_INLINE real<T> block_statement(basic_tape<T>* t, const variable_block<T>& b,
                                           Fill&& fill, Reals&& over_reals) {
  const std::size_t n = b.size();
  if (t == nullptr) {
    thread_local std::vector<T> scratch;  // reused: no allocation in steady state
    scratch.resize(n);
    return real<T>(T(fill(scratch.data())));  // (T first: on a nested tape, an outer real)
  }
  if (n >= range_flag) [[unlikely]] {
    const std::vector<real<T>> x = b.reals();
    return over_reals(std::span<const real<T>>(x));
  }
  index_t defined;
  T* p = t->record_range(0, b.first_index(), n, false, T(0), defined).range;
  const T v = fill(p);
  return recorded_real<T>(v, defined, t->epoch());
}

/// The same when every partial is `scale` (sum, mean): no partials stored.
template <class T>
ETAD_ALWAYS_INLINE real<T> block_uniform_statement(basic_tape<T>* t, const variable_block<T>& b,
                                                   const T& v, const T& scale) {
  if (t == nullptr) return real<T>(v);
  const std::size_t n = b.size();
  if (n >= range_flag) [[unlikely]] {
    const std::vector<real<T>> x = b.reals();
    return uniform_statement<T>(x, scan_scattered<T>(x, t), v, scale);
  }
  index_t defined;
  t->record_range(0, b.first_index(), n, true, scale, defined);
  return recorded_real<T>(v, defined, t->epoch());
}

/// Sum of v[0 .. n) in sum_lanes lanes, as scan_range sums.
template <class T>
ETAD_ALWAYS_INLINE T lane_total(const T* v, std::size_t n) {
  lane_sum<T> s;
  for_each_lane(n, [&](std::size_t k, auto lane) { s.add(lane, v[k]); });
  return s.total();
}

/// The values of a span of reals as a function of the index (the reductions' bodies are written
/// once, for reals and for variable blocks, over such a function).
template <class T>
ETAD_ALWAYS_INLINE auto values_of_reals(std::span<const real<T>> x) {
  return [xs = x.data()](std::size_t i) -> const T& { return xs[i].value(); };
}
/// The same for an array of values (a variable block's).
template <class T>
ETAD_ALWAYS_INLINE auto values_at(const T* v) {
  return [v](std::size_t i) -> const T& { return v[i]; };
}
/// visit for a variable block: nothing to check per element.
struct no_visit {
  ETAD_ALWAYS_INLINE void operator()(std::size_t) const noexcept {}
};

/// A reduction over a non-empty block whose partials and value come from fill(p, x), x(i) the
/// i-th value (squared_norm, dot, prod): access_block, then block_statement.
template <class T, class Fill, class Reals>
ETAD_ALWAYS_INLINE real<T> block_reduction(const variable_block<T>& b, Fill&& fill,
                                           Reals&& over_reals) {
  const block_access<T> acc = access_block(b);
  return block_statement<T>(
      acc.t, b, [&](T* p) { return fill(p, values_at(acc.v)); }, over_reals);
}

/// squared_norm's partials into p and its value, for n values x(0) .. x(n - 1).
template <class T, class X, class Visit>
ETAD_ALWAYS_INLINE T squared_norm_fill(std::size_t n, X&& x, T* p, Visit&& visit) {
  lane_sum<T> s;
  for_each_lane(n, [&](std::size_t i, auto lane) {
    const T v = x(i);
    visit(i);
    s.add(lane, v * v);
    p[i] = 2 * v;
  });
  return s.total();
}

/// dot's partials (the coefficients a) into p and its value, for n values x(0) .. x(n - 1).
template <class T, class A, class X, class Visit>
ETAD_ALWAYS_INLINE T dot_fill(std::size_t n, const A* a, X&& x, T* p, Visit&& visit) {
  lane_sum<T> s;
  for_each_lane(n, [&](std::size_t i, auto lane) {
    visit(i);
    p[i] = static_cast<T>(a[i]);
    s.add(lane, p[i] * x(i));
  });
  return s.total();
}

/// prod's partials into p and its value (see prod), for n values x(0) .. x(n - 1);
/// visit(k) is called for every k in the first pass.
template <class T, class X, class Visit>
ETAD_ALWAYS_INLINE T prod_fill(std::size_t n, X&& x, T* p, Visit&& visit) {
  constexpr std::size_t lanes = prod_lanes;
  if (n < 4 * lanes) {
    T prefix(1);
    for (std::size_t i = 0; i < n; ++i) {
      visit(i);
      p[i] = prefix;
      prefix *= x(i);
    }
    T suffix(1);
    for (std::size_t i = n; i-- > 0;) {
      p[i] *= suffix;
      suffix *= x(i);
    }
    return prefix;
  }
  // Parts [l q, (l + 1) q) for l < lanes - 1, and the last part [(lanes - 1) q, n).
  const std::size_t q = n / lanes, last = (lanes - 1) * q;
  std::array<T, lanes> pre, suf;
  pre.fill(T(1));
  suf.fill(T(1));
  // Every loop over the parts is unrolled at compile time (std::get<L>): the chains' products
  // then stay in registers.
  const auto each_part = [](auto&& f) {
    [&]<std::size_t... L>(std::index_sequence<L...>) {
      (f(std::integral_constant<std::size_t, L>{}), ...);
    }(std::make_index_sequence<detail::prod_lanes>{});
  };
  for (std::size_t i = 0; i < q; ++i)
    each_part([&](auto l) {
      const std::size_t k = l * q + i;
      visit(k);
      p[k] = std::get<l>(pre);
      std::get<l>(pre) *= x(k);
    });
  for (std::size_t k = last + q; k < n; ++k) {
    visit(k);
    p[k] = pre[lanes - 1];
    pre[lanes - 1] *= x(k);
  }
  for (std::size_t k = n; k-- > last + q;) {
    p[k] *= suf[lanes - 1];
    suf[lanes - 1] *= x(k);
  }
  for (std::size_t i = q; i-- > 0;)
    each_part([&](auto l) {
      const std::size_t k = l * q + i;
      p[k] *= std::get<l>(suf);
      std::get<l>(suf) *= x(k);
    });
  // Each part's partials times the product of the other parts, before and after it.
  T before(1);
  for (std::size_t l = 0; l < lanes; ++l) {
    T after(1);
    for (std::size_t m = l + 1; m < lanes; ++m) after *= suf[m];
    const T scale = before * after;
    const std::size_t from = l * q, to = l + 1 < lanes ? from + q : n;
    for (std::size_t k = from; k < to; ++k) p[k] *= scale;
    before *= pre[l];
  }
  return before;
}

/// log_sum_exp's maximum of x(0) .. x(n - 1), n >= 1, in 8 interleaved lanes (one dependent
/// compare per element is the latency bound otherwise); `v > m ? v : m` in every lane and in the
/// final combination, so NaN elements are skipped (and a NaN x(0) wins) exactly as in a plain
/// loop. The last n % 8 elements go into lanes too, before the lanes are combined, not one
/// after another after it (at n = 10 one dependent compare fewer, at n = 15 six).
template <class T, class X>
ETAD_ALWAYS_INLINE T max_of(std::size_t n, X&& x) {
  T lanes[8];
  for (T& l : lanes) l = x(0);
  const std::size_t n8 = n / 8 * 8;
  for (std::size_t i = 0; i < n8; i += 8)
    for (std::size_t l = 0; l < 8; ++l) {
      const T v = x(i + l);
      lanes[l] = v > lanes[l] ? v : lanes[l];
    }
  for (std::size_t i = n8; i < n; ++i) {
    const T v = x(i);
    lanes[i - n8] = v > lanes[i - n8] ? v : lanes[i - n8];
  }
  // The lanes are combined pairwise (4, 2, 1 apart), in registers: a loop over the stored lanes
  // made g++ store the vector of lanes and load it back element by element.
  for (std::size_t w = 4; w >= 1; w /= 2)
    for (std::size_t l = 0; l < w; ++l) lanes[l] = lanes[l + w] > lanes[l] ? lanes[l + w] : lanes[l];
  return lanes[0];
}
template <class T>
bool is_finite_max(const T& m) {
  const T inf = infinity_of<T>();
  if (m > -inf && m < inf) return true;  // (for nested reals, a comparison is an expression)
  return false;
}
/// log_sum_exp when the maximum is not finite (all -inf: the value is -inf; some +inf or NaN):
/// the shifted formula would be NaN, so the plain one, value and partials.
template <class T, class X>
T log_sum_exp_unshifted(std::size_t n, X&& x) {
  using std::exp, std::log;
  T s(0);
  for (std::size_t i = 0; i < n; ++i) s += exp(x(i));
  return log(s);
}
template <class T, class X>
void log_sum_exp_unshifted_partials(std::size_t n, X&& x, const T& v, T* p) {
  using std::exp;
  for (std::size_t i = 0; i < n; ++i) p[i] = exp(x(i) - v);
}
/// log_sum_exp's partials into p and its value, around a finite maximum m of x(0) .. x(n - 1).
/// For double, one exp per element by etad's branch-free kernel for x <= 0 (x_i - m <= 0 here,
/// and NaN for a NaN element), in a loop of its own that the compiler vectorizes; the shifted
/// exponentials are summed in lanes, then scaled by 1/s. With Buffered (a variable block: its
/// values sit on a cache line boundary), up to 16 exponentials go to an aligned local array
/// first, so that the sum reads back what whole-line stores wrote (forwarded from the store
/// buffer; p, the tape's partials, has no such alignment); then p = e / s in one pass.
/// Other types: std::exp, one loop.
template <class T, bool Buffered, class X, class Visit>
ETAD_ALWAYS_INLINE T log_sum_exp_fill(std::size_t n, X&& x, const T& m, T* p, Visit&& visit) {
  using std::exp, std::log;
  if constexpr (std::is_same_v<T, double>) {
    if constexpr (Buffered) {
      if (n <= 16) {
        alignas(64) T e[16];
        for (std::size_t i = 0; i < n; ++i) e[i] = exp_nonpositive(x(i) - m);
        lane_sum<T> sum;
        for_each_lane(n, [&](std::size_t i, auto lane) { sum.add(lane, e[i]); });
        const T s = sum.total();
        const T inv = T(1) / s;
        for (std::size_t i = 0; i < n; ++i) {
          visit(i);
          p[i] = e[i] * inv;
        }
        return m + log(s);
      }
    }
    for (std::size_t i = 0; i < n; ++i) p[i] = exp_nonpositive(x(i) - m);
    lane_sum<T> sum;
    for_each_lane(n, [&](std::size_t i, auto lane) { sum.add(lane, p[i]); });
    const T s = sum.total();
    // The range check rides on the scaling loop, not on the exp loop.
    const T inv = T(1) / s;
    for (std::size_t i = 0; i < n; ++i) {
      visit(i);
      p[i] *= inv;
    }
    return m + log(s);
  } else {
    // The shifted exponentials are written as partials while summing, then scaled in place by
    // 1/s.
    T s(0);
    for (std::size_t i = 0; i < n; ++i) {
      p[i] = exp(x(i) - m);
      s += p[i];
    }
    // The range check rides on the scaling loop, not on the exp loop (where its state would
    // be spilled around every call of exp).
    const T inv = T(1) / s;
    for (std::size_t i = 0; i < n; ++i) {
      visit(i);
      p[i] *= inv;
    }
    return m + log(s);
  }
}

}  // namespace detail

// sum, mean, squared_norm, prod and log_sum_exp of such a range: one sentence.
template <detail::noncontiguous_real_range R>
auto sum(const R&) {
  return detail::needs_contiguous_reals<R>();
}
template <detail::noncontiguous_real_range R>
auto mean(const R&) {
  return detail::needs_contiguous_reals<R>();
}
template <detail::noncontiguous_real_range R>
auto squared_norm(const R&) {
  return detail::needs_contiguous_reals<R>();
}
template <detail::noncontiguous_real_range R>
auto prod(const R&) {
  return detail::needs_contiguous_reals<R>();
}
template <detail::noncontiguous_real_range R>
auto log_sum_exp(const R&) {
  return detail::needs_contiguous_reals<R>();
}

/// sum of x_i. Partials 1. An empty range gives the constant 0. The value is summed in
/// detail::sum_lanes interleaved accumulators (x_0 + x_4 + ..., x_1 + x_5 + ..., ...), added
/// pairwise at the end: several times faster than one accumulator on long ranges, and no less
/// accurate, but rounded differently from a left-to-right loop.
template <detail::real_range R>
auto sum(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  detail::lane_sum<T> s;
  const auto info = detail::scan_range<T>(
      x, basic_tape<T>::current(), [&](std::size_t, const T& v, auto lane) { s.add(lane, v); });
  return detail::uniform_statement<T>(x, info, s.total(), T(1));
}

/// sum of a block's variables (see variable_block): as sum of a range.
template <class T>
ETAD_ALWAYS_INLINE real<T> sum(const variable_block<T>& b) {
  if (b.empty()) return real<T>(T(0));
  const detail::block_access<T> acc = detail::access_block(b);
  return detail::block_uniform_statement<T>(acc.t, b, detail::lane_total(acc.v, b.size()), T(1));
}

/// mean of x_i (at least one element). Partials 1/n. Summed as sum() sums.
template <detail::real_range R>
auto mean(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  if (x.empty()) throw error("etad: mean() of an empty range; give at least one element");
  detail::lane_sum<T> s;
  const auto info = detail::scan_range<T>(
      x, basic_tape<T>::current(), [&](std::size_t, const T& v, auto lane) { s.add(lane, v); });
  const T inv = T(1) / static_cast<T>(x.size());
  return detail::uniform_statement<T>(x, info, s.total() * inv, inv);
}

/// sum of x_i^2. Partials 2 x_i. Summed as sum() sums.
template <detail::real_range R>
auto squared_norm(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  return detail::checked_statement<T>(x, [&](T* p, auto&& visit) {
    return detail::squared_norm_fill<T>(x.size(), detail::values_of_reals(x), p, visit);
  });
}

/// sum of a_i x_i with constant coefficients a. Partials a_i. Summed as sum() sums.
template <detail::real_range R, class A>
  requires detail::number_range<A, typename detail::real_of<R>::value_type>
auto dot(const R& range, const A& coefficients) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  const auto* a = std::ranges::data(coefficients);
  detail::require_same_size<T>(x.size(), std::ranges::size(coefficients), "dot");
  return detail::checked_statement<T>(x, [&](T* p, auto&& visit) {
    return detail::dot_fill<T>(x.size(), a, detail::values_of_reals(x), p, visit);
  });
}
template <class A, detail::real_range R>
  requires detail::number_range<A, typename detail::real_of<R>::value_type>
auto dot(const A& coefficients, const R& range) {
  return dot(range, coefficients);
}

namespace detail {
/// dot of two ranges of reals of one type (see dot).
template <class T, class R1, class R2>
real<T> dot_of_reals(const R1& r1, const R2& r2) {
  const std::size_t n = std::ranges::size(r1);
  detail::require_same_size<T>(n, std::ranges::size(r2), "dot");
  std::span<const real<T>> x(std::ranges::data(r1), n), y(std::ranges::data(r2), n);
  return detail::statement_over<T, 2>({x, y}, [&](T* p) {
    detail::lane_sum<T> s;
    detail::for_each_lane(n, [&](std::size_t i, auto lane) {
      s.add(lane, x[i].value() * y[i].value());
      p[i] = y[i].value();
      p[n + i] = x[i].value();
    });
    return s.total();
  });
}
}  // namespace detail

/// sum of x_i y_i for two ranges of reals: one statement with 2n partials (y_i, then x_i).
/// Summed as sum() sums.
template <detail::real_range R1, detail::real_range R2>
auto dot(const R1& r1, const R2& r2) {
  using T = typename detail::real_of<R1>::value_type;
  if constexpr (!std::is_same_v<detail::real_of<R1>, detail::real_of<R2>>) {
    static_assert(std::is_same_v<detail::real_of<R1>, detail::real_of<R2>>,
                  "etad: dot() of ranges of reals needs the same real type on both sides");
    return real<T>();  // (a stand-in, so that the assertion is the only error)
  } else {
    return detail::dot_of_reals<T>(r1, r2);
  }
}

/// dot of anything else with a range of reals (a std::list or a std::deque on either side, a
/// range of something that is not a number): one sentence instead of "no matching function".
template <class X, class Y>
  requires(detail::range_of_reals<X> || detail::range_of_reals<Y>) &&
          (!detail::dot_arguments<X, Y>)
auto dot(const X&, const Y&) {
  static_assert(sizeof(X) == 0,
                "etad: dot() takes two contiguous ranges (std::vector, std::array, std::span), "
                "reals on one side or both and numbers convertible to the reals' type on the "
                "other, or two pointers and a length; copy a std::list, a std::deque or a view "
                "into a std::vector first");
  return detail::real_of_either<X, Y>();
}

// --- variable blocks -------------------------------------------------------------------------
// The reductions of a block's variables (see variable_block): the same values, partials and
// errors as of a range of its reals, b.reals(); one range statement over the block, its values
// read contiguously, no index checked but the block's epoch.

/// mean of a block's variables (at least one).
template <class T>
ETAD_ALWAYS_INLINE real<T> mean(const variable_block<T>& b) {
  if (b.empty()) throw error("etad: mean() of an empty range; give at least one element");
  const detail::block_access<T> acc = detail::access_block(b);
  const T inv = T(1) / static_cast<T>(b.size());
  return detail::block_uniform_statement<T>(acc.t, b, detail::lane_total(acc.v, b.size()) * inv,
                                            inv);
}

/// sum of squares of a block's variables.
template <class T>
ETAD_ALWAYS_INLINE real<T> squared_norm(const variable_block<T>& b) {
  if (b.empty()) return real<T>(T(0));
  return detail::block_reduction<T>(
      b,
      [&](T* p, auto x) {
        return detail::squared_norm_fill<T>(b.size(), x, p, detail::no_visit{});
      },
      [](std::span<const real<T>> x) { return squared_norm(x); });
}

/// sum of a_i x_i for a block's variables x and constant coefficients a.
template <class T, class A>
  requires detail::number_range<A, T>
ETAD_ALWAYS_INLINE real<T> dot(const variable_block<T>& b, const A& coefficients) {
  detail::require_same_size<T>(b.size(), std::ranges::size(coefficients), "dot");
  if (b.empty()) return real<T>(T(0));
  const auto* a = std::ranges::data(coefficients);
  return detail::block_reduction<T>(
      b, [&](T* p, auto x) { return detail::dot_fill<T>(b.size(), a, x, p, detail::no_visit{}); },
      [&](std::span<const real<T>> x) { return dot(x, coefficients); });
}
template <class A, class T>
  requires detail::number_range<A, T>
ETAD_ALWAYS_INLINE real<T> dot(const A& coefficients, const variable_block<T>& b) {
  return dot(b, coefficients);
}
/// dot of a block's variables with reals, or with another block's: through their reals.
template <class T, class Y>
  requires detail::real_range<Y> || std::is_same_v<Y, variable_block<T>>
real<T> dot(const variable_block<T>& b, const Y& y) {
  if constexpr (std::is_same_v<Y, variable_block<T>>)
    return dot(b.reals(), y.reals());
  else
    return dot(b.reals(), y);
}
template <detail::real_range X, class T>
real<T> dot(const X& x, const variable_block<T>& b) {
  return dot(x, b.reals());
}

/// product of a block's variables.
template <class T>
ETAD_ALWAYS_INLINE real<T> prod(const variable_block<T>& b) {
  if (b.empty()) return real<T>(T(1));
  return detail::block_reduction<T>(
      b, [&](T* p, auto x) { return detail::prod_fill<T>(b.size(), x, p, detail::no_visit{}); },
      [](std::span<const real<T>> x) { return prod(x); });
}

/// product of x_i. Partials prod_{j != i} x_j, by prefix and suffix products (no division, so
/// exact also when some x_i are zero). From 4 * prod_lanes elements on, the range is cut into
/// prod_lanes parts whose prefix (and suffix) products run as interleaved chains, then are
/// scaled by the products of the parts before (after) them: the scans are not bound by the
/// latency of one multiplication per element, and the products are grouped differently from a
/// left-to-right loop (equal up to rounding).
template <detail::real_range R>
auto prod(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  return detail::checked_statement<T>(x, [&](T* p, auto&& visit) {
    return detail::prod_fill<T>(x.size(), detail::values_of_reals(x), p, visit);
  });
}

/// log(sum exp x_i), computed stably around m = max x_i. Partials softmax(x)_i. An empty range
/// gives -inf; a -inf element gets weight 0 when some element is finite; a range of -inf only
/// gives -inf with NaN partials (0 / 0: softmax has no limit there; TensorFlow's
/// reduce_logsumexp gives NaN too); a range whose maximum is +inf gives +inf (partials NaN for
/// the +inf elements, 0 for the others, -inf ones included); a NaN element makes the value and
/// every partial NaN.
/// For double, the exponentials e^(x_i - m) come from detail::exp_nonpositive (within 0.65 ulp
/// of e^x, where std::exp is within about 0.5) in a loop the compiler vectorizes, and are summed
/// in detail::sum_lanes lanes as sum() sums. So values and partials are rounded differently from
/// a loop of std::exp: on seeded ranges of 1 to 2000 elements, by up to 4 ulps in the value and
/// 29 in the partials, the size of either summation order's own rounding error (measured against
/// long double with the same shifts x_i - m, the partials were within 10 ulps, the std::exp
/// loop's within 31). Other element types (float, long double, reals of a nested tape) use
/// std::exp in one loop, as do ranges whose maximum is not finite.
template <detail::real_range R>
auto log_sum_exp(const R& range) {
  using T = typename detail::real_of<R>::value_type;
  std::span<const real<T>> x(std::ranges::data(range), std::ranges::size(range));
  if (x.empty()) return real<T>(T(-detail::infinity_of<T>()));
  const auto val = detail::values_of_reals(x);
  const T m = detail::max_of<T>(x.size(), val);
  if (!detail::is_finite_max(m)) {
    const T v = detail::log_sum_exp_unshifted<T>(x.size(), val);
    return detail::vector_statement<T>(x, v, [&](T* p) {
      detail::log_sum_exp_unshifted_partials<T>(x.size(), val, v, p);
    });
  }
  return detail::checked_statement<T>(x, [&](T* p, auto&& visit) {
    return detail::log_sum_exp_fill<T, false>(x.size(), val, m, p, visit);
  });
}

/// log_sum_exp of a block's variables (see variable_block): as log_sum_exp of a range.
template <class T>
ETAD_ALWAYS_INLINE real<T> log_sum_exp(const variable_block<T>& b) {
  const std::size_t n = b.size();
  if (n == 0) return real<T>(T(-detail::infinity_of<T>()));
  const detail::block_access<T> acc = detail::access_block(b);
  basic_tape<T>* const t = acc.t;
  const T* const v = acc.v;
  const auto val = detail::values_at(v);
  // Up to 16 values, scalar loads: the values were just written (variable_block), and a
  // vector load of them waits unless it matches the stores' shape; 8-byte loads are forwarded.
  // In four interleaved lanes, as max_of, with `v > m ? v : m` throughout (NaN elements
  // skipped, a NaN val(0) wins): at n = 10, 5 dependent compares on the critical path instead
  // of 9.
  T m = val(0);
  if (n <= 16) {
    T m1 = m, m2 = m, m3 = m;
    std::size_t i = 1;
    for (; i + 4 <= n; i += 4) {
      detail::no_vectorize();
      const T v0 = val(i), v1 = val(i + 1), v2 = val(i + 2), v3 = val(i + 3);
      m = v0 > m ? v0 : m;
      m1 = v1 > m1 ? v1 : m1;
      m2 = v2 > m2 ? v2 : m2;
      m3 = v3 > m3 ? v3 : m3;
    }
    for (; i < n; ++i) {
      detail::no_vectorize();
      m = val(i) > m ? val(i) : m;
    }
    m2 = m3 > m2 ? m3 : m2;
    m = m1 > m ? m1 : m;
    m = m2 > m ? m2 : m;
  } else {
    m = detail::max_of<T>(n, val);
  }
  const auto over_reals = [](std::span<const real<T>> x) { return log_sum_exp(x); };
  if (!detail::is_finite_max(m)) {
    const T lse = detail::log_sum_exp_unshifted<T>(n, val);
    return detail::block_statement<T>(t, b, [&](T* p) {
      detail::log_sum_exp_unshifted_partials<T>(n, val, lse, p);
      return lse;
    }, over_reals);
  }
  return detail::block_statement<T>(t, b, [&](T* p) {
    return detail::log_sum_exp_fill<T, true>(n, val, m, p, detail::no_visit{});
  }, over_reals);
}

// --- pointer and length --------------------------------------------------------------------
// The same reductions of the n reals at p, for reals that are not in a container (a C array
// behind a pointer, memory of the caller's own). Each forwards to the range form; a null p with
// n != 0 throws etad::error (p may be null when n is 0: an empty range). For dot, x and y each
// point to n elements: reals and reals, reals and numbers, or numbers and reals (the forms of
// the range version); for a pointer with a range, wrap the pointer in a std::span.

/// sum of the n reals at p (see sum of a range).
template <class T>
auto sum(const real<T>* p, std::size_t n) {
  return sum(detail::pointer_range(p, n, "sum"));
}
/// mean of the n reals at p (n >= 1; see mean of a range).
template <class T>
auto mean(const real<T>* p, std::size_t n) {
  return mean(detail::pointer_range(p, n, "mean"));
}
/// sum of squares of the n reals at p (see squared_norm of a range).
template <class T>
auto squared_norm(const real<T>* p, std::size_t n) {
  return squared_norm(detail::pointer_range(p, n, "squared_norm"));
}
/// product of the n reals at p (see prod of a range).
template <class T>
auto prod(const real<T>* p, std::size_t n) {
  return prod(detail::pointer_range(p, n, "prod"));
}
/// log(sum exp x_i) of the n reals at p (see log_sum_exp of a range).
template <class T>
auto log_sum_exp(const real<T>* p, std::size_t n) {
  return log_sum_exp(detail::pointer_range(p, n, "log_sum_exp"));
}
/// sum of x_i y_i for the n reals at x and the n reals or numbers at y.
template <class T, class Y>
  requires detail::is_real_v<Y> || std::is_convertible_v<Y, T>
auto dot(const real<T>* x, const Y* y, std::size_t n) {
  return dot(detail::pointer_range(x, n, "dot"), detail::pointer_range(y, n, "dot"));
}
/// sum of a_i x_i for the n numbers at a and the n reals at x.
template <class N, class T>
  requires(!detail::is_real_v<N> && std::is_convertible_v<N, T>)
auto dot(const N* a, const real<T>* x, std::size_t n) {
  return dot(detail::pointer_range(a, n, "dot"), detail::pointer_range(x, n, "dot"));
}

}  // namespace etad
