// etad/tape/detail/storage.hpp — where a tape keeps its statements: flat arrays in blocks.
// Statement k defines value index k; its partials and input indices sit contiguously in one
// block. A full block is never copied or moved element-wise: the next statement goes to the next
// block (allocated once, kept across reset()), so growth never copies what was recorded.
// A *range statement* (flag bit in end[]) also has inputs that are a contiguous index range: it
// stores the range's first index and length instead of one index per input (see append_range).
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/ops/detail/numbers.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace etad::detail {

using index_t = std::uint32_t;

/// Placed in a loop's body, keeps the compiler from vectorizing the loop (an empty asm
/// statement, which emits nothing). For short loops over values that were just written
/// element by element (variables(), a reduction's partials): vector loads spanning several of
/// those stores are not forwarded from the store buffer and wait for the stores to reach the
/// cache, while 8-byte loads are forwarded.
ETAD_ALWAYS_INLINE void no_vectorize() noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __asm__("");
#endif
}

/// Set in end[s] for a range statement; the rest of end[s] is the offset. Blocks hold fewer than
/// 2^31 partials, so the bit is free.
inline constexpr index_t range_flag = index_t(1) << 31;
/// Slots a range statement's header takes before its scattered pairs: input[0] = first index of
/// the range, input[1] = its length (| range_flag when every partial equals partial[0]).
inline constexpr std::size_t range_header = 2;

template <class T>
struct block {
  std::unique_ptr<T[]> partial;
  std::unique_ptr<index_t[]> input;
  // end[s]: one past the last partial of statement s in here. end[-1] is a sentinel 0, so that
  // the sweep reads statement s's first partial from end[s - 1] with no test for s == 0.
  std::unique_ptr<index_t[]> end_storage;
  index_t* end;
  std::size_t partial_capacity = 0;
  std::size_t statement_capacity = 0;
  std::size_t partials = 0;
  std::size_t statements = 0;
  index_t first = 0;  // index defined by this block's first statement
  // Whether a range statement was recorded here since the block was last emptied: the sweep of
  // a block without one does not decode range flags (most scalar code records none).
  bool has_ranges = false;

  block(std::size_t pcap, std::size_t scap)
      : partial(new T[pcap]), input(new index_t[pcap]), end_storage(new index_t[scap + 1]),
        end(end_storage.get() + 1), partial_capacity(pcap), statement_capacity(scap) {
    end[-1] = 0;
  }

  std::size_t bytes() const {
    return partial_capacity * (sizeof(T) + sizeof(index_t)) +
           (statement_capacity + 1) * sizeof(index_t);
  }
};

/// A range statement's shape (see statement_store::append_range), from its inputs and slot count.
struct range_shape {
  index_t first;
  std::size_t length, scattered;
  bool uniform;
};
inline range_shape shape_of_range(const index_t* in, std::size_t m) {
  const bool uniform = (in[1] & range_flag) != 0;
  const std::size_t length = in[1] & ~range_flag;
  return {in[0], length, m - range_header - (uniform ? 0 : length), uniform};
}

/// Sets a[0 .. n) to zero: the adjoints before a sweep. For floating-point T through a zero the
/// optimizer cannot see, so that the loop stays an inline vectorized loop: vector::assign stores
/// one element per iteration with g++ 12 (this loop instead: chain/10^3 and the recurrence
/// measured 1-5 % faster), and a plain loop of T(0) becomes a call of memset (tried in an earlier
/// round: no faster than assign).
template <class T>
ETAD_ALWAYS_INLINE void zero_fill(T* a, std::size_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    T zero = T(0);
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+m"(zero));
#endif
    for (std::size_t k = 0; k < n; ++k) a[k] = zero;
  } else {
    std::fill_n(a, n, T(0));
  }
}

// acc + a * b rounded twice, in two statements: clang contracts `acc + a * b` within one
// expression (-ffp-contract=on), and folds constant operands fused even for a target without
// FMA, so the sum would round one way or the other depending on what the compiler sees.
template <class T>
ETAD_ALWAYS_INLINE T unfused_mul_add(const T& a, const T& b, const T& acc) {
  const T product = a * b;
  return acc + product;
}

/// acc + a * b as the sweeps accumulate: one fused multiply-add where the target has FMA (for
/// float and double), so that the sweep's critical path (an adjoint times a partial, added to
/// the next statement's adjoint) is one instruction. Written as a call, not as `acc + a * b`:
/// g++ hoists a product that both arms of a branch compute above the branch, and then cannot
/// fuse it with either addition (measured: vmulsd + vaddsd on the recurrence's critical path).
/// Every sweep uses it, so gradient() and gradients() still round alike.
template <class T>
ETAD_ALWAYS_INLINE T mul_add(const T& a, const T& b, const T& acc) {
#if defined(__FMA__)
  if constexpr (std::is_same_v<T, double>) {
    return __builtin_fma(a, b, acc);
  } else if constexpr (std::is_same_v<T, float>) {
    return __builtin_fmaf(a, b, acc);
  } else {
    return unfused_mul_add(a, b, acc);
  }
#else
  return unfused_mul_add(a, b, acc);
#endif
}

/// x, copied by a full-register move where the target has AVX (double only). The sweep's
/// loop-carried adjoint (`next`, which becomes the next statement's `a`) needs a copy per
/// statement; g++ 12 makes it `vmovsd %xmm1, %xmm1, %xmm0`, a merge of two registers with a
/// latency of a cycle on the sweep's critical path, where `vmovapd` is eliminated at register
/// renaming. The same value: only the instruction differs.
template <class T>
ETAD_ALWAYS_INLINE T carried(const T& x) {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__AVX__) && defined(__x86_64__)
  if constexpr (std::is_same_v<T, double>) {
    T r;
    __asm__("vmovapd %1, %0" : "=x"(r) : "x"(x));
    return r;
  }
#endif
  return x;
}

/// Whether the innermost number of a is finite.
template <class T>
ETAD_ALWAYS_INLINE bool finite_value(const T& a) {
  if constexpr (nested_real<T>)
    return finite_value(a.value());
  else
    return bool(a - a == T(0));  // false for inf and NaN
}

/// Whether a * p adds nothing to an input's adjoint, so that it is not pushed: never for
/// floating-point and other plain T (the sweeps push a * 0 as the plain loop does), and for the
/// reals of a nested tape when p is a constant zero (an untaken branch's partial) and a is
/// finite. Recorded, the product would make the input's adjoint a zero that is not constant
/// (see constant_zero), and the branch's infinite partials would then give NaN where the
/// double tape gives 0; an infinite a is pushed, so that inf * 0 is NaN as on a double tape.
template <class T>
ETAD_ALWAYS_INLINE bool contributes_nothing(const T& a, const T& p) {
  if constexpr (nested_real<T>)
    return constant_zero(p) && finite_value(a);
  else
    return false;
}

/// Pushes a * p[j] to adj[in[j]] for an ordinary statement of m partials, the contributions to
/// index `below` into `next` and those to index `below2` into `next2` (see
/// statement_store::sweep_adjoints and sweep_block), in the order j = 0, 1, ... Without a second
/// register, pass `next` and `below` again: the second test is then known false and folds away.
/// Statements of up to five partials (most scalar statements, the more so since record() merges
/// repeated inputs) are unrolled: no loop counter, and each position's branch is predicted on
/// its own.
template <class T>
ETAD_ALWAYS_INLINE void push_one(T* adj, T& next, T& next2, const T& a, const T* p,
                                 const index_t* in, index_t below, index_t below2, std::size_t j) {
  if (contributes_nothing(a, p[j])) return;  // (folds away for floating-point T)
  const index_t q = in[j];
  if (q == below) [[likely]]
    next = mul_add(a, p[j], next);
  else if (q == below2)
    next2 = mul_add(a, p[j], next2);
  else
    adj[q] = mul_add(a, p[j], adj[q]);
}
/// push_one for positions 0, ..., M - 1, unrolled.
template <class T, std::size_t... J>
ETAD_ALWAYS_INLINE void push_first(T* adj, T& next, T& next2, const T& a, const T* p,
                                   const index_t* in, index_t below, index_t below2,
                                   std::index_sequence<J...>) {
  (push_one(adj, next, next2, a, p, in, below, below2, J), ...);
}
template <class T>
ETAD_ALWAYS_INLINE void push_ordinary(T* adj, T& next, T& next2, const T& a, const T* p,
                                      const index_t* in, std::size_t m, index_t below,
                                      index_t below2) {
  switch (m) {
    case 0:
      return;
    case 1:
      return push_first(adj, next, next2, a, p, in, below, below2, std::make_index_sequence<1>{});
    case 2:
      return push_first(adj, next, next2, a, p, in, below, below2, std::make_index_sequence<2>{});
    case 3:
      return push_first(adj, next, next2, a, p, in, below, below2, std::make_index_sequence<3>{});
    case 4:
      return push_first(adj, next, next2, a, p, in, below, below2, std::make_index_sequence<4>{});
    case 5:
      return push_first(adj, next, next2, a, p, in, below, below2, std::make_index_sequence<5>{});
    default:
      for (std::size_t j = 0; j < m; ++j) push_one(adj, next, next2, a, p, in, below, below2, j);
  }
}

/// push_one for a position with a pending register (index h, sum hs): the adjoint of h is
/// adj[h] + hs. A contribution to h stays in the register (no store -> load round trip through
/// adj[] per statement); one to another index flushes the register and takes its place. Empty
/// registers hold index 0, the sink of constants' partials, with sum 0: flushing them is
/// harmless. See statement_store::sweep_block.
template <class T>
ETAD_ALWAYS_INLINE void push_held(T* adj, T& next, index_t& h, T& hs, const T& a, const T* p,
                                  const index_t* in, index_t below, std::size_t j) {
  const index_t q = in[j];
  if (q == below) {
    next = mul_add(a, p[j], next);
  } else if (q == h) [[likely]] {
    hs = mul_add(a, p[j], hs);
  } else {
    adj[h] += hs;
    h = q;
    hs = a * p[j];
  }
}

/// push_held for a statement of four or more partials, which also has `next2` for the index two
/// below (see sweep_block): the register is tested first, since a loop parameter there comes
/// back at every iteration. (The register holds neither below nor below2: those were flushed
/// when the statement began.)
template <class T>
ETAD_ALWAYS_INLINE void push_held_long(T* adj, T& next, T& next2, index_t& h, T& hs, const T& a,
                                       const T* p, const index_t* in, index_t below,
                                       index_t below2, std::size_t j) {
  const index_t q = in[j];
  if (q == h) [[likely]] {
    hs = mul_add(a, p[j], hs);
  } else if (q == below) {
    next = mul_add(a, p[j], next);
  } else if (q == below2) {
    next2 = mul_add(a, p[j], next2);
  } else {
    adj[h] += hs;
    h = q;
    hs = a * p[j];
  }
}

/// Adds a pending register's sum to its index's adjoint and empties it (index 0, sum 0).
template <class T>
ETAD_ALWAYS_INLINE void flush_held(T* adj, index_t& h, T& hs) {
  adj[h] += hs;
  h = 0;
  hs = T(0);
}

/// Pushes a * (a range statement's partials) to its inputs' adjoints.
template <class T>
ETAD_ALWAYS_INLINE void push_range(T* adj, const T& a, const T* p, const index_t* in,
                                   std::size_t m) {
  const range_shape r = shape_of_range(in, m);
  const T* q = p + range_header;
  const index_t* qi = in + range_header;
  for (std::size_t j = 0; j < r.scattered; ++j)
    if (!contributes_nothing(a, q[j])) adj[qi[j]] = mul_add(a, q[j], adj[qi[j]]);
  T* to = adj + r.first;
  if (r.uniform) {
    // Uniform partials (sum: 1, mean: 1/n): one product, then a contiguous add.
    if (contributes_nothing(a, p[0])) return;
    const T c = a * p[0];
    for (std::size_t k = 0; k < r.length; ++k) to[k] += c;
  } else if constexpr (nested_real<T>) {
    const T* q2 = q + r.scattered;
    for (std::size_t k = 0; k < r.length; ++k)
      if (!contributes_nothing(a, q2[k])) to[k] = mul_add(a, q2[k], to[k]);
  } else {
    // Stored partials: a contiguous AXPY (the range's adjoints do not overlap the partials).
    const T* __restrict q2 = q + r.scattered;
    T* __restrict to2 = to;
    for (std::size_t k = 0; k < r.length; ++k) to2[k] = mul_add(a, q2[k], to2[k]);
  }
}

/// The plain loop's step for statement i (the definition the register sweep must agree with):
/// a = adj[i]; unless a is exactly zero (not on a path from the targets: an infinite partial
/// there cannot make 0 * inf = NaN), adj[input] += a * partial for each input.
template <class T>
ETAD_ALWAYS_INLINE void push_plain(T* adj, index_t i, const T* p, const index_t* in,
                                   std::size_t m, bool ranged) {
  const T a = adj[i];
  if (constant_zero(a)) return;
  if (!ranged) {
    for (std::size_t j = 0; j < m; ++j)
      if (!contributes_nothing(a, p[j])) adj[in[j]] = mul_add(a, p[j], adj[in[j]]);
  } else {
    push_range(adj, a, p, in, m);
  }
}

/// The statements of one tape. Index 0 is reserved for "not on a tape" (constants), so
/// statement numbers start at 1.
template <class T>
class statement_store {
public:
  static constexpr std::size_t default_partials = std::size_t(1) << 16;
  static constexpr std::size_t default_statements = std::size_t(1) << 15;
  /// Sweeps of at most this many indices take the plain loop (see sweep_adjoints).
  static constexpr index_t short_sweep = 2;

  /// Room for one statement of n partials; returns pointers to fill and the new index.
  struct slot {
    T* partial;
    index_t* input;
  };

  ETAD_ALWAYS_INLINE slot append(std::size_t n, index_t& defined) {
    // (The last index is in the end limit: see load_cursor.)
    if (at_.end == at_.end_limit || at_.used + n > at_.capacity) [[unlikely]]
      make_room(n);
    defined = next_++;
    slot s{at_.partial + at_.used, at_.input + at_.used};
    at_.used += n;
    *at_.end++ = static_cast<index_t>(at_.used);
    return s;
  }

  /// Room for one range statement: `scattered` ordinary (partial, input) pairs, then inputs
  /// first, first + 1, ..., first + length - 1 with `length` partials stored contiguously (no
  /// indices), or, when uniform, all equal to `scale` (nothing stored). length < range_flag.
  struct range_slot {
    T* partial;     // the scattered pairs' partials
    index_t* input; // and their inputs
    T* range;       // the range's partials (nullptr when uniform)
  };
  ETAD_ALWAYS_INLINE range_slot append_range(std::size_t scattered, index_t first,
                                             std::size_t length, bool uniform, const T& scale,
                                             index_t& defined) {
    const std::size_t n = range_header + scattered + (uniform ? 0 : length);
    if (at_.end == at_.end_limit || at_.used + n > at_.capacity) [[unlikely]]
      make_room(n);
    defined = next_++;
    T* p = at_.partial + at_.used;
    index_t* in = at_.input + at_.used;
    in[0] = first;
    in[1] = static_cast<index_t>(length) | (uniform ? range_flag : 0);
    p[0] = scale;
    p[1] = T(0);
    at_.used += n;
    *at_.end++ = static_cast<index_t>(at_.used) | range_flag;
    cur_->has_ranges = true;
    implicit_ += (uniform ? std::ptrdiff_t(length) : 0) - std::ptrdiff_t(range_header);
    recent_ = {scattered == 0 ? defined : 0, first, static_cast<index_t>(length), uniform,
               uniform ? p : p + range_header};
    return {p + range_header, in + range_header,
            uniform ? nullptr : p + range_header + scattered};
  }

  /// Takes back the statement that append() or append_range() recorded last, when nothing was
  /// recorded since: a vector statement whose inputs fail a check only after it was recorded
  /// (an error must leave the tape as it was). Its block stays the current one, empty if the
  /// statement had opened it.
  void discard_last() noexcept {
    recent_ = {};
    const index_t raw = *--at_.end;
    const std::size_t begin = at_.end == cur_->end ? 0 : (at_.end[-1] & ~range_flag);
    if ((raw & range_flag) != 0) {
      const index_t* in = at_.input + begin;  // the range header, as it stands now
      const bool uniform = (in[1] & range_flag) != 0;
      implicit_ -= (uniform ? std::ptrdiff_t(in[1] & ~range_flag) : 0) -
                   std::ptrdiff_t(range_header);
    }
    at_.used = begin;
    --next_;
  }

  /// count statements with no partials (independent variables) at once; returns the first
  /// index defined. One capacity check per block instead of one per variable.
  ETAD_ALWAYS_INLINE index_t append_empty(std::size_t count) {
    // Variables before any statement (the usual case: a recording starts with its inputs), well
    // below the last block's worth of indices: inline, as append_variable. The rest (and the
    // checks) out of line.
    constexpr std::size_t limit = std::numeric_limits<index_t>::max() - default_statements;
    if (only_variables() && cur_ != nullptr && next_ <= limit && count <= limit - next_) {
      const index_t first_defined = next_;
      next_ += static_cast<index_t>(count);
      cur_->first = next_;
      return first_defined;
    }
    return append_empty_slow(count);
  }
  [[gnu::noinline]] index_t append_empty_slow(std::size_t count) {
    if (count > std::size_t(std::numeric_limits<index_t>::max() - next_))
      throw error("etad: the tape is full (2^32 - 2 values); call reset() between independent "
                  "computations");
    const index_t first_defined = next_;
    sync();
    if (only_variables()) {
      // Nothing but variables so far: they need no end[] entries (a sweep never visits them),
      // so the first block simply starts after them.
      next_ += static_cast<index_t>(count);
      if (cur_ != nullptr) {
        cur_->first = next_;
        // (The end limit depends on first in the last block's worth of indices: load_cursor.)
        if (next_ > std::numeric_limits<index_t>::max() - index_t(default_statements))
            [[unlikely]]
          load_cursor();
      }
      return first_defined;
    }
    while (count > 0) {
      if (cur_ == nullptr || !fits(*cur_, 0)) next_block(0);
      block<T>& b = blocks_[current_];
      const std::size_t k = std::min(count, b.statement_capacity - b.statements);
      std::fill_n(b.end + b.statements, k, static_cast<index_t>(b.partials));
      b.statements += k;
      next_ += static_cast<index_t>(k);
      count -= k;
    }
    load_cursor();
    return first_defined;
  }

  /// One statement with no partials (an independent variable); returns its index.
  ETAD_ALWAYS_INLINE index_t append_variable() {
    // The end limit (see load_cursor) depends on b.first only in the last block's worth of
    // indices: there it is recomputed, below them the capacity computed earlier still holds.
    if (only_variables() && next_ != std::numeric_limits<index_t>::max()) {
      const index_t i = next_++;
      if (cur_ != nullptr) {
        cur_->first = next_;
        if (next_ > std::numeric_limits<index_t>::max() - index_t(default_statements))
            [[unlikely]] {
          sync();
          load_cursor();
        }
      }
      return i;
    }
    index_t i;
    append(0, i);
    return i;
  }

  /// Number of indices handed out so far, plus one (index 0 is reserved).
  index_t size() const { return next_; }

  // (recent_, below: the range statement recorded last.)
  struct recent_range {
    index_t index = 0;
    index_t first = 0;
    index_t length = 0;
    bool uniform = false;
    const T* partial = nullptr;  // the range's first partial, or the one partial when uniform
  };

  /// A point of the recording to come back to (truncate): what a run-time custom gradient's
  /// forward pass and a recomputation record is taken back afterwards.
  struct mark {
    index_t next = 1;
    std::size_t current = 0;
    std::size_t partials = 0;
    std::size_t statements = 0;
    index_t first = 1;
    bool has_block = false;
    bool has_ranges = false;
    std::ptrdiff_t implicit = 0;
  };
  /// The input indices of what was recorded since m, when they lie in one array: still in m's
  /// block, and that block holds no range statement (so every statement's inputs are a plain
  /// list, stored one after another). Else {nullptr, 0}: use for_each_input. For the checks that
  /// scan what a callback's pass recorded, without visiting it statement by statement.
  std::span<const index_t> contiguous_inputs_since(const mark& m) const noexcept {
    if (cur_ == nullptr || !m.has_block || current_ != m.current || cur_->has_ranges)
      return {};
    return {at_.input + m.partials, at_.used - m.partials};
  }

  mark where() const noexcept {
    sync();
    mark m;
    m.next = next_;
    m.implicit = implicit_;
    if (cur_ != nullptr) {
      m.has_block = true;
      m.current = current_;
      m.partials = cur_->partials;
      m.statements = cur_->statements;
      m.first = cur_->first;
      m.has_ranges = cur_->has_ranges;
    }
    return m;
  }
  /// Forgets every statement recorded since m (indices from m.next on are handed out again);
  /// the blocks are kept.
  void truncate(const mark& m) noexcept {
    sync();
    // Empty the blocks the taken-back recording moved into (a later statement too large for the
    // current block would skip them, and the sweep would read their stale statements).
    {
      const std::size_t keep = m.has_block ? m.current : 0;
      for (std::size_t i = keep + 1; i <= current_ && i < blocks_.size(); ++i) {
        blocks_[i].partials = blocks_[i].statements = 0;
        blocks_[i].has_ranges = false;
      }
    }
    if (m.has_block) {
      current_ = m.current;
      cur_ = &blocks_[current_];
      cur_->partials = m.partials;
      cur_->statements = m.statements;
      cur_->first = m.first;
      cur_->has_ranges = m.has_ranges;
    } else if (!blocks_.empty()) {
      // No block then: variables only, which are not stored; the first block starts after them.
      current_ = 0;
      cur_ = &blocks_[0];
      cur_->partials = cur_->statements = 0;
      cur_->first = m.next;
      cur_->has_ranges = false;
    }
    next_ = m.next;
    implicit_ = m.implicit;
    recent_ = {};  // (the fast path of a reduction's gradient is taken only for the newest)
    load_cursor();
  }

  /// Calls f(i) for every input index i of the statements with index in (lo, hi] (a range
  /// statement's range index by index).
  template <class F>
  void for_each_input(index_t hi, index_t lo, F&& f) const {
    sweep_down(hi, lo, [&f](index_t, const T*, const index_t* in, std::size_t m, bool ranged) {
      if (!ranged) {
        for (std::size_t j = 0; j < m; ++j) f(in[j]);
      } else {
        const range_shape r = shape_of_range(in, m);
        for (std::size_t j = 0; j < r.scattered; ++j) f(in[range_header + j]);
        for (std::size_t k = 0; k < r.length; ++k) f(r.first + static_cast<index_t>(k));
      }
    });
  }

  void clear() {
    // Only the blocks this recording used: those past current_ were not touched since the last
    // clear() (next_block() resets a block's counts when it moves into it), so a tape that once
    // grew to many blocks does not pay for all of them on every reset().
    for (std::size_t i = 0; i <= current_ && i < blocks_.size(); ++i) {
      blocks_[i].partials = blocks_[i].statements = 0;
      blocks_[i].has_ranges = false;
    }
    current_ = 0;
    next_ = 1;
    implicit_ = 0;
    recent_ = {};
    if (!blocks_.empty()) blocks_[0].first = 1;
    cur_ = blocks_.empty() ? nullptr : &blocks_[0];
    load_cursor();
  }

  std::size_t reserved_bytes() const {
    std::size_t r = 0;
    for (const auto& b : blocks_) r += b.bytes();
    return r;
  }

  /// Partials of the statements recorded: one per input (those of a range statement included,
  /// stored or not).
  std::size_t partial_count() const {
    sync();
    std::size_t r = 0;
    for (std::size_t i = 0; i <= current_ && i < blocks_.size(); ++i) r += blocks_[i].partials;
    return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(r) + implicit_);
  }

  /// Bytes of the blocks in use: a T and an index per stored partial (range statements store no
  /// indices for their range, nor partials when uniform, but their slots are allocated in both
  /// arrays), an end offset per stored statement (leading variables have none).
  std::size_t used_bytes() const { return partial_bytes() + statement_bytes(); }
  /// used_bytes() without sync() and with one pass over the earlier blocks (none while the
  /// recording fits one block): what reset() and truncate() note for the tape's peak memory.
  std::size_t bytes_in_use() const noexcept {
    if (cur_ == nullptr) return 0;
    std::size_t partials = at_.used;
    std::size_t statements = static_cast<std::size_t>(at_.end - cur_->end);
    for (std::size_t i = 0; i < current_; ++i) {
      partials += blocks_[i].partials;
      statements += blocks_[i].statements;
    }
    return partials * (sizeof(T) + sizeof(index_t)) + statements * sizeof(index_t);
  }
  /// The partials' share of used_bytes(): a T and an index per stored partial.
  std::size_t partial_bytes() const {
    sync();
    std::size_t r = 0;
    for (std::size_t i = 0; i <= current_ && i < blocks_.size(); ++i)
      r += blocks_[i].partials * (sizeof(T) + sizeof(index_t));
    return r;
  }
  /// The statements' share: an end offset per stored statement.
  std::size_t statement_bytes() const {
    sync();
    std::size_t r = 0;
    for (std::size_t i = 0; i <= current_ && i < blocks_.size(); ++i)
      r += blocks_[i].statements * sizeof(index_t);
    return r;
  }

  /// The newest block holding statements at or below hi, or blocks_.size() when there is nothing
  /// to sweep in (lo, hi] (hi is then one of the leading variables, which are not stored).
  std::size_t top_block(index_t hi, index_t lo) const noexcept {
    sync();
    if (blocks_.empty() || hi <= lo) return blocks_.size();
    std::size_t bi = std::min(current_, blocks_.size() - 1);
    while (bi > 0 && blocks_[bi].first > hi) --bi;
    return blocks_[bi].first > hi ? blocks_.size() : bi;
  }

  /// The statements of block b to visit for (lo, hi]: local positions stop <= p < s (those
  /// below lo are not visited).
  static std::pair<std::size_t, std::size_t> visited(const block<T>& b, index_t hi,
                                                     index_t lo) noexcept {
    const std::size_t s = std::min<std::size_t>(b.statements, hi - b.first + 1);
    return {s, lo >= b.first ? std::min<std::size_t>(lo - b.first + 1, s) : 0};
  }

  /// Calls f(index, partials, inputs, n, ranged) for every statement with index in (lo, hi],
  /// newest first (ranged: a range statement, laid out as append_range describes). A loop over
  /// flat arrays: no recursion, whatever the tape's length.
  template <class F>
  ETAD_ALWAYS_INLINE void sweep_down(index_t hi, index_t lo, F&& f) const {
    std::size_t bi = top_block(hi, lo);
    if (bi == blocks_.size()) return;
    for (;;) {
      const block<T>& b = blocks_[bi];
      if (b.statements != 0) {
        auto [s, stop] = visited(b, hi, lo);
        const T* partial = b.partial.get();
        const index_t* input = b.input.get();
        const index_t* end = b.end;
        index_t e = end[s - 1];
        while (s-- > stop) {
          const index_t idx = b.first + static_cast<index_t>(s);
          const std::size_t begin = s == 0 ? 0 : (end[s - 1] & ~range_flag);
          const std::size_t last = e & ~range_flag;
          f(idx, partial + begin, input + begin, last - begin, (e & range_flag) != 0);
          if (s != 0) e = end[s - 1];
        }
        if (stop != 0) return;
      }
      if (bi == 0) return;
      --bi;
    }
  }

  /// The backward sweep without stop_gradients or reached-flags: for every statement with index
  /// in (lo, hi], newest first, adj[inputs] += adj[i] * partials (a statement whose adjoint is
  /// exactly zero pushes nothing: not on a path from the targets, and an infinite partial there
  /// cannot make 0 * inf = NaN). Statements are swept in index order i, i - 1, ..., and scalar
  /// code mostly feeds each statement into the next (t = f(t)): contributions to index i - 1 go
  /// to the register `next` instead of through a store that statement i - 1 would load at once
  /// (a store -> load round trip per statement on the critical path). `next` starts from the
  /// adjoint in memory and adds the contributions in sweep order, so its sums are exactly those
  /// of the plain loop `adj[in[j]] += a * p[j]`. Positions 1 and 2 of statements of 2 or more
  /// partials also have pending registers (see sweep_block): a loop parameter's contributions
  /// are summed in a register and added to its adjoint when the index changes there, when it is
  /// read, or at the end; that equals the plain loop's sum whenever the parameter gets all its
  /// contributions in one run, as in a loop, and may differ in the last bits otherwise.
  /// (Tried and dropped in an earlier round: two more register accumulators, compared with
  /// every input, for inputs far below the statement; with g++ 12, chain and recurrence got
  /// 5-10 % slower. The pending registers compare only at their position.)
  ETAD_ALWAYS_INLINE void sweep_adjoints(T* adj, index_t hi, index_t lo) const {
    // A sweep of one or two statements (a reduction's gradient: variables, then one range
    // statement) takes the plain loop: the pending registers' set-up and flushes, and the call
    // of sweep_block, cost more than they save there (measured: one range statement of 10
    // inputs, 16.6 -> 11.7 ns per gradient; 3 scalar statements break even). When those
    // statements are the current block's, as they are right after recording, they are read
    // through the recording cursor: no sync() and no search for the block, which with the
    // general sweep's entry were most of such a sweep's instructions.
    if (hi > lo && hi - lo <= short_sweep)
      sweep_short(adj, hi, lo);
    else if (in_current_block(hi, lo))
      sweep_current(adj, hi, lo);
    else
      sweep_long(adj, hi, lo);
  }

  /// Statement i's partials with respect to the indices first .. first + m - 1 (m > 0), when i
  /// is the range statement recorded last (read from recent_, not through the block's arrays)
  /// without scattered inputs, and its range holds those indices: `partial` points at the
  /// partial of index `first`, or, when `uniform`, at the one partial of every input.
  /// Otherwise `partial` is nullptr.
  struct range_partials {
    const T* partial;
    bool uniform;
  };
  ETAD_ALWAYS_INLINE range_partials partials_over(index_t i, index_t first, std::size_t m) const {
    const recent_range& r = recent_;
    if (i != r.index || first < r.first || first - r.first + m > r.length)
      return {nullptr, false};
    return {r.uniform ? r.partial : r.partial + (first - r.first), r.uniform};
  }

  /// Makes the range statement recorded last by append_range (no scattered inputs, not
  /// uniform), whose slot is s, an ordinary statement over s.input's slots: a range of length 0,
  /// then the pairs. The caller writes the inputs.
  void unrange_last(const range_slot& s) noexcept {
    index_t* header = s.input - range_header;
    header[0] = 0;
    header[1] = 0;
    recent_ = {};
  }

private:
  // Both kinds of sweep are out of line: with either inlined, gradient() grew past what g++
  // inlines into its caller, and chain/10 took 65 more instructions per gradient.
  [[gnu::noinline]] void sweep_short(T* adj, index_t hi, index_t lo) const {
    if (!sweep_recent(adj, hi, lo))
      sweep_down(hi, lo, [adj](index_t i, const T* p, const index_t* in, std::size_t m,
                               bool ranged) { push_plain(adj, i, p, in, m, ranged); });
  }

  /// The plain loop over statements (lo, hi] when all of them are in the current block (the
  /// one being recorded into); false, having done nothing, otherwise.
  ETAD_ALWAYS_INLINE bool sweep_recent(T* adj, index_t hi, index_t lo) const {
    // Every index from the current block's first up to the newest is in that block.
    if (cur_ == nullptr || lo + 1 < cur_->first) return false;
    const index_t f = cur_->first;
    const index_t* end = cur_->end;
    for (index_t i = hi; i > lo; --i) {
      const std::ptrdiff_t s = std::ptrdiff_t(i) - std::ptrdiff_t(f);
      const index_t e = end[s];
      const std::size_t begin = end[s - 1] & ~range_flag;  // (end[-1] is a sentinel 0)
      push_plain(adj, i, at_.partial + begin, at_.input + begin, (e & ~range_flag) - begin,
                 (e & range_flag) != 0);
    }
    return true;
  }

  // Whether every statement of a sweep of (lo, hi] is in the block being recorded into.
  ETAD_ALWAYS_INLINE bool in_current_block(index_t hi, index_t lo) const {
    return cur_ != nullptr && hi > lo && hi >= cur_->first &&
           (lo + 1 >= cur_->first || current_ == 0);
  }
  // The register sweep of such a sweep: straight to that block's sweep_block, through the
  // recording cursor, with no sync(), no search for the block and no carry of the pending
  // registers between blocks (every tape shorter than a block, right after recording, and in
  // the first block whatever lo; chain/10: 77 instructions fewer per gradient than through
  // sweep_long).
  ETAD_ALWAYS_INLINE void sweep_current(T* adj, index_t hi, index_t lo) const {
    const index_t f = cur_->first;
    const std::size_t s = hi - f + 1, stop = lo >= f ? lo - f + 1 : 0;
    const T next = cur_->has_ranges
                       ? sweep_block<true>(adj, adj[hi], at_.partial, at_.input, cur_->end, s,
                                           stop, hi, nullptr, nullptr)
                       : sweep_block<false>(adj, adj[hi], at_.partial, at_.input, cur_->end, s,
                                            stop, hi, nullptr, nullptr);
    adj[f + static_cast<index_t>(stop) - 1] = next;  // the index below the last one visited
  }

  // sweep_adjoints past the short sweeps: the register sweep, block by block.
  [[gnu::noinline]] void sweep_long(T* adj, index_t hi, index_t lo) const {
    std::size_t bi = top_block(hi, lo);
    if (bi == blocks_.size()) return;
    T next = adj[hi];
    index_t last = 0;
    // The pending registers go from block to block through `carry`; a sweep within one block
    // (every small tape) keeps them in registers from start to flush.
    sweep_state carry;
    const sweep_state* from = nullptr;
    for (;;) {
      const block<T>& b = blocks_[bi];
      if (b.statements != 0) {
        auto [s, stop] = visited(b, hi, lo);
        if (s > stop) {
          const bool last_block = stop != 0 || bi == 0;
          const index_t i_top = b.first + static_cast<index_t>(s - 1);
          sweep_state* to = last_block ? nullptr : &carry;
          next = b.has_ranges ? sweep_block<true>(adj, next, b.partial.get(), b.input.get(), b.end,
                                                  s, stop, i_top, from, to)
                              : sweep_block<false>(adj, next, b.partial.get(), b.input.get(),
                                                   b.end, s, stop, i_top, from, to);
          from = last_block ? nullptr : &carry;
          last = b.first + static_cast<index_t>(stop);
        }
        if (stop != 0) break;
      }
      if (bi == 0) break;
      --bi;
    }
    if (from != nullptr) {  // the last block swept was not the final one (empty blocks below)
      if (carry.h1 != 0) flush_held(adj, carry.h1, carry.hs1);
      if (carry.h2 != 0) flush_held(adj, carry.h2, carry.hs2);
    }
    if (last != 0) adj[last - 1] = next;
  }

  // The pending registers (see sweep_block) as they pass from one block to the next.
  struct sweep_state {
    index_t h1 = 0, h2 = 0;
    T hs1 = T(0), hs2 = T(0);
  };

  // Statements stop <= s < top of one block (top > stop), newest first; `next` is the adjoint of
  // statement top - 1 (index i_top), and the result that of the index below statement stop. Its
  // own function, so that the compiler allocates registers for this loop alone (inlined into
  // sweep_adjoints, g++ 12 kept the statement index in memory). Each statement loads one end[]
  // entry, its start: its end is the start of the statement above (end[-1] is a sentinel 0).
  // The pending registers start from *from (empty when null) and end in *to, or, when `to` is
  // null (the last block of the sweep), are flushed to adj[].
  // Aligned to a cache line, so that where its loop falls relative to the fetch blocks does not
  // depend on the code around it: the same loop measured 3.1 and 3.4 us (recurrence/1000, whole
  // gradient) at two 16-byte-aligned addresses of otherwise identical programs.
  // Ranges: whether the block holds range statements (flags to decode in end[]).
  template <bool Ranges>
  [[gnu::noinline, gnu::aligned(64)]] static T sweep_block(T* adj, T next, const T* partial,
                                                           const index_t* input,
                                                           const index_t* end, std::size_t top,
                                                           std::size_t stop, index_t i_top,
                                                           const sweep_state* from,
                                                           sweep_state* to) {
    const index_t* e = end + top - 1;         // statement i's end
    const index_t* const e_stop = end + stop - 1;
    index_t i = i_top;
    index_t raw = *e;
    // Pending registers for positions 1 and 2 of statements of 2 or more partials (floating-point
    // T only: for a nested tape's reals, a flush would record statements on the outer tape). In
    // a loop such as z = z * y + c every statement adds into adj[y] and adj[c]; through memory
    // that is a load that waits for the previous statement's store, twice per statement, and it
    // bounded the sweep. Held in registers, the contributions to one index are summed first and
    // added to adj[] once: (adj + (v1 + v2 + ...)) rather than ((adj + v1) + v2) + ...; the
    // same on every run, not the same rounding as the plain loop. (Position 0 is usually the
    // value the loop carries, i - 1, which goes to `next`.) Statements of 4 or more partials use
    // the same two registers at positions 1 and 2 (chain's long statement has the parameters y
    // and z there; its other statement, tt = t * t, has one partial and leaves them alone), and
    // test the register before below and below2 (push_held_long). Tried: a third register for
    // a long statement's last position (x in chain): g++ 12 ran out of general registers and
    // spilled (+3 instructions per statement on the recurrence); and one test of the largest
    // held index per statement instead of one per register: spills with -march=native.
    // The registers carry over from block to block, and are flushed only when their index
    // changes, when it is about to be read (it becomes `below`, or `below - 1` for next2, see
    // below), or at the end of the whole sweep: a loop's parameter then gets all its
    // contributions in one register, summed in the plain loop's order, and adding that sum to
    // its adjoint (zero until then) gives the plain loop's result exactly.
    constexpr bool held = std::is_floating_point_v<T>;
    index_t h1 = 0, h2 = 0;
    T hs1 = T(0), hs2 = T(0);
    if (from != nullptr) {
      h1 = from->h1;
      h2 = from->h2;
      hs1 = from->hs1;
      hs2 = from->hs2;
    }
    // The adjoint two below the statement, for statements of four or more partials (floating-
    // point T, as the pending registers): in chain's long statement t = f(t, tt, ...) the value
    // t is two below, past tt = t * t, and its contribution went through a store that the
    // statement after next loaded at once (a store -> load round trip on the sweep's critical
    // path, once per iteration). `two` says that next2 holds the adjoint of the index below the
    // next statement; that statement then takes it instead of loading it (a pending register
    // holding index below - 1 is flushed before next2 loads it). Only the long
    // statements pay for it: one register for all (tried earlier) cost the one-statement
    // recurrence 10 %.
    T next2 = T(0);
    bool two = false;
    do {
      const index_t raw_below = *--e;
      const std::size_t begin = Ranges ? raw_below & ~range_flag : raw_below;
      const std::size_t m = (Ranges ? raw & ~range_flag : raw) - begin;
      const bool ranged = Ranges && (raw & range_flag) != 0;
      raw = raw_below;
      const T* p = partial + begin;
      const index_t* in = input + begin;
      const T a = carried(next);
      adj[i] = a;  // the adjoint as memory holds it (sources may be intermediates)
      const index_t below = i - 1;
      i = below;
      if constexpr (held) {
        // adj[below] is read now: contributions held for it go to memory first. (A held index
        // is never `below` afterwards: those go to `next`.)
        if (h1 == below) [[unlikely]] flush_held(adj, h1, hs1);
        if (h2 == below) [[unlikely]] flush_held(adj, h2, hs2);
      }
      if constexpr (held) {
        if (two) {
          next = carried(next2);
          two = false;
        } else {
          next = adj[below];
        }
      } else {
        next = adj[below];
      }
      if (constant_zero(a)) continue;
      if (!ranged) [[likely]] {
        if constexpr (held) {
          // Tested in the order of the statements that loops record most: 3 partials (the
          // recurrence's z * y + c), 4 or more (etad::call of a loop body, chain's 4: one test
          // of m == 4 there rather than three; chain/10 -52 instructions), then 2, then the rest.
          if (m == 3) {
            push_one(adj, next, next, a, p, in, below, below, 0);
            push_held(adj, next, h1, hs1, a, p, in, below, 1);
            push_held(adj, next, h2, hs2, a, p, in, below, 2);
          } else if (m >= 4) {
            // adj[below - 1] is read now: contributions held for it go to memory first. (At
            // below == 0, below2 == below, whose contributions go to `next`: a statement at
            // index 1 has only constants' index 0 as inputs, which real<T> and the vector
            // statements never record, but record() would take it.)
            const index_t below2 = below - index_t(below != 0);
            if (h1 == below2) [[unlikely]] flush_held(adj, h1, hs1);
            if (h2 == below2) [[unlikely]] flush_held(adj, h2, hs2);
            next2 = adj[below2];
            two = true;
            push_one(adj, next, next2, a, p, in, below, below2, 0);
            push_held_long(adj, next, next2, h1, hs1, a, p, in, below, below2, 1);
            push_held_long(adj, next, next2, h2, hs2, a, p, in, below, below2, 2);
            if (m == 4) {
              push_one(adj, next, next2, a, p, in, below, below2, 3);
            } else if (m == 5) {
              push_one(adj, next, next2, a, p, in, below, below2, 3);
              push_one(adj, next, next2, a, p, in, below, below2, 4);
            } else {
              for (std::size_t j = 3; j < m; ++j)
                push_one(adj, next, next2, a, p, in, below, below2, j);
            }
          } else if (m == 2) {
            push_one(adj, next, next, a, p, in, below, below, 0);
            push_held(adj, next, h1, hs1, a, p, in, below, 1);
          } else {
            push_ordinary(adj, next, next, a, p, in, m, below, below);
          }
        } else {
          push_ordinary(adj, next, next, a, p, in, m, below, below);
        }
      } else {
        // A range may cover `below`: its adjoint goes through memory (`next` may hold
        // contributions that memory does not have yet: see next2).
        adj[below] = next;
        push_range(adj, a, p, in, m);
        next = adj[below];
      }
    } while (e != e_stop);
    if constexpr (held) {
      if (two) adj[i - index_t(i != 0)] = next2;  // (the adjoint two below the last statement)
    }
    if (to != nullptr) {
      *to = {h1, h2, hs1, hs2};
    } else if constexpr (held) {
      if (h1 != 0) flush_held(adj, h1, hs1);
      if (h2 != 0) flush_held(adj, h2, hs2);
    }
    return next;
  }

  // The cold path of append(), kept out of line so that append() inlines into recording loops.
  [[gnu::cold, gnu::noinline]] void make_room(std::size_t n) {
    if (next_ == std::numeric_limits<index_t>::max())
      throw error("etad: the tape is full (2^32 - 2 values); call reset() between independent "
                  "computations");
    if (n >= range_flag)
      throw error("etad: one statement of " + std::to_string(n) + " partials is more than a tape "
                  "holds (2^31 - 1); split the reduction into smaller ones");
    sync();
    if (cur_ == nullptr || !fits(*cur_, n)) next_block(n);
  }

  // True while every index handed out since clear() is a variable: those are not stored.
  bool only_variables() const {
    return cur_ == nullptr || (current_ == 0 && at_.end == cur_->end);
  }

  static bool fits(const block<T>& b, std::size_t n) {
    return b.statements < b.statement_capacity && b.partials + n <= b.partial_capacity;
  }

  void next_block(std::size_t n) {
    std::size_t i = blocks_.empty() ? 0 : current_ + (blocks_[current_].statements != 0);
    // Reuse the blocks kept by clear() when they are large enough; a statement larger than a
    // standard block (a long vector reduction) gets a block of its own size.
    while (i < blocks_.size() && blocks_[i].partial_capacity < n) {
      // (Blocks past current_ are empty whatever their stale counts say: see clear().)
      if ((i > current_ || blocks_[i].statements == 0) && i + 1 == blocks_.size()) break;
      ++i;
    }
    if (i == blocks_.size() || blocks_[i].partial_capacity < n) {
      const std::size_t pcap = std::max(default_partials, n);
      if (i == blocks_.size())
        blocks_.emplace_back(pcap, default_statements);
      else
        blocks_[i] = block<T>(pcap, default_statements);
    }
    blocks_[i].first = next_;
    blocks_[i].partials = blocks_[i].statements = 0;
    blocks_[i].has_ranges = false;
    current_ = i;
    cur_ = &blocks_[i];  // blocks_ may have grown: refresh the cached pointer
    load_cursor();
  }

  // The current block's counts live in at_ while recording; sync() writes them back to the
  // block before anything reads blocks_ (the sweeps, the counts, a block change).
  void sync() const noexcept {
    if (cur_ == nullptr) return;
    cur_->partials = at_.used;
    cur_->statements = static_cast<std::size_t>(at_.end - cur_->end);
  }
  void load_cursor() noexcept {
    if (cur_ == nullptr) {
      at_ = cursor{};
      return;
    }
    block<T>& b = *cur_;
    // The end limit is also where the next statement would define index 2^32 - 1, which is never
    // handed out: append() then tests one limit, not the index too (statements of a block have
    // consecutive indices from b.first, so next_ == b.first + b.statements). Variables recorded
    // before any statement move b.first: append_empty and append_variable keep this up to date.
    const std::size_t left = std::numeric_limits<index_t>::max() - b.first;
    at_ = {b.partial.get(), b.input.get(), b.partials, b.partial_capacity,
           b.end + b.statements, b.end + std::min(b.statement_capacity, left)};
  }

  std::vector<block<T>> blocks_;
  std::size_t current_ = 0;
  block<T>* cur_ = nullptr;  // &blocks_[current_], or nullptr before the first block
  // The current block as append() uses it: its arrays, the partials used and their capacity,
  // the next end[] slot and one past the last. append() reads and writes these every statement,
  // so they are plain members, not the block's counts through cur_; and `used` and `end` are not
  // adjacent, so that the compiler does not merge their two stores into one 16-byte store, from
  // whose upper half the next statement's 8-byte load is not forwarded (measured: a stall of
  // about a third of the recording loop of a one-operation statement, on AMD Zen).
  struct cursor {
    T* partial = nullptr;
    index_t* input = nullptr;
    std::size_t used = 0;
    std::size_t capacity = 0;
    index_t* end = nullptr;
    index_t* end_limit = nullptr;
  } at_;
  index_t next_ = 1;
  std::ptrdiff_t implicit_ = 0;  // partials of range statements minus the slots they take
  // The range statement recorded last, when it has no scattered inputs (else index 0): what
  // partials_over reads, one load from the store instead of a chain of dependent loads through
  // the block's end offsets and range header (gradient()'s fast path for a reduction).
  recent_range recent_;
};

}  // namespace etad::detail
