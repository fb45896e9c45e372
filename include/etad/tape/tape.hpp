// etad/tape/tape.hpp — the run-time tape: GradientTape semantics for dynamic control flow.
// One statement per assignment of an expression to a real (its local partials derived at compile
// time); the backward sweep is a loop over flat arrays. One active tape per thread and scalar
// type, set by RAII; a tape of real<double> nested in a tape of double gives second derivatives.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/tape/detail/callbacks.hpp>
#include <etad/tape/detail/storage.hpp>
#include <etad/tape/detail/value_arena.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace etad {

template <class T>
class real;
template <class T>
class variable_block;

namespace detail {
template <class T>
std::uint64_t key_of(const real<T>& r) noexcept;  // real.hpp
template <class T>
struct callback_access;  // below: what custom_gradient and its kin use of a tape
template <class T>
real<T> recorded_real(const T& v, index_t i, std::uint32_t epoch);  // real.hpp
}  // namespace detail

/// Tag for a tape that answers several gradient calls: etad::tape t{etad::persistent};
inline constexpr struct persistent_t {
  explicit persistent_t() = default;
} persistent{};

/// What gradients() returns for a source the targets do not depend on (TensorFlow's
/// unconnected_gradients): no value, or zero.
enum class unconnected { none, zero };

/// A tape's memory in bytes, by kind (basic_tape::memory()): statement offsets, partials with
/// their input indices, the values of variable blocks, and callback entries (run-time custom
/// gradients, recomputed functions and checkpointed loops: their objects, the copies etad makes
/// for them (a recomputed function's range arguments, a loop's stored states) and their input
/// lists). Not counted: heap memory that a user's function object owns (a gradient function's
/// captured std::vector), the adjoints of a sweep (one T per index, kept across sweeps) and the
/// reals the program holds.
struct memory_use {
  std::size_t statements = 0;
  std::size_t partials = 0;
  std::size_t values = 0;
  std::size_t callbacks = 0;
  std::size_t total() const noexcept { return statements + partials + values + callbacks; }
};

/// Options of basic_tape::gradients, after tf.GradientTape.gradient / tf.gradients.
template <class T>
struct gradient_options {
  /// Seeds, one per target (TF's output_gradients / grad_ys); empty means 1 for every target.
  std::span<const T> output_gradients = {};
  /// Values treated as constants: their own gradient is reported, none flows through them.
  std::span<const real<T>> stop_gradients = {};
  unconnected unconnected_gradients = unconnected::none;
};

template <class T>
class basic_tape;

namespace detail {
// Every tape, and every reset of one, gets a fresh epoch; reals remember the epoch they were
// recorded in, so a handle from another tape or from before reset() is caught.
// Each thread takes epochs from the shared counter in batches, so that reset() (a new epoch per
// evaluation in a record -> gradient -> reset loop) costs no atomic read-modify-write.
inline std::atomic<std::uint32_t> next_epoch{1};
inline constexpr std::uint32_t epoch_batch = 256;
inline std::uint32_t new_epoch() {
  thread_local std::uint32_t next = 0, left = 0;
  for (;;) {
    if (left == 0) {
      next = next_epoch.fetch_add(epoch_batch, std::memory_order_relaxed);
      left = epoch_batch;
    }
    const std::uint32_t e = next++;
    --left;
    if (e != 0) return e;  // 0 means "constant" (the counter wrapped)
  }
}

/// An address unique to the calling thread (while it runs): tapes and stop_recording remember
/// their thread's, since what they change when they go (the active tape, the pause count) is
/// that thread's own.
inline const void* this_thread_mark() noexcept {
  thread_local const char mark = 0;
  return &mark;
}
/// Called by a tape or stop_recording destroyed on another thread than the one that made it:
/// the making thread would keep a dangling active tape (or stay paused), so this ends the
/// program with a message, as std::thread's destructor does for a joinable thread.
[[noreturn]] inline void destroyed_on_another_thread(const char* what) noexcept {
  std::fputs(what, stderr);
  std::terminate();
}

template <class T>
inline thread_local int paused_recording = 0;
// The tape that records expressions of reals now: the active tape while recording is not
// paused, else nullptr. Kept beside paused_recording and the active tape so that recording a
// statement loads one thread-local pointer and tests it once (it was two loads and two tests,
// on a path of ~40 instructions per scalar statement).
template <class T>
inline thread_local basic_tape<T>* recording_tape = nullptr;
template <class T>
void refresh_recording_tape() noexcept;
/// How many callback runs have made a tape active without linking it (recording_on) on this
/// thread: activate() then throws (it relinks the chain from the tape made active).
template <class T>
inline thread_local int swapped_active = 0;
}  // namespace detail

/// basic_tape<T>: records statements on reals with values of type T while it is the thread's
/// active tape (from construction to destruction; tapes nest, the newest is active).
template <class T>
class basic_tape {
  static_assert(std::is_floating_point_v<T> || detail::nested_real<T>,
                "etad: a tape's values must be floating-point numbers (float, double, long "
                "double) or, for a nested tape, reals of an outer tape; an integer type cannot "
                "be differentiated");

public:
  using value_type = T;

  basic_tape()
      : epoch_(detail::new_epoch()), previous_(active()), thread_(detail::this_thread_mark()) {
    active() = this;
    detail::refresh_recording_tape<T>();
  }
  explicit basic_tape(persistent_t) : basic_tape() { persistent_ = true; }
  basic_tape(const basic_tape&) = delete;
  basic_tape& operator=(const basic_tape&) = delete;
  /// Destroy a tape on the thread that made it (it is that thread's active tape); on another
  /// thread the program ends with a message (std::terminate).
  ~basic_tape() {
    if (thread_ != detail::this_thread_mark()) [[unlikely]]
      detail::destroyed_on_another_thread(
          "etad: a tape was destroyed on another thread than the one that made it; a tape is "
          "its thread's active tape, so destroy it on that thread\n");
    // Usually the newest tape goes first; if not, unlink this one from the chain of tapes that
    // were active before, so that no dangling tape becomes active again.
    if (active() == this) {
      active() = previous_;
    } else {
      for (basic_tape* p = active(); p != nullptr; p = p->previous_)
        if (p->previous_ == this) {
          p->previous_ = previous_;
          break;
        }
    }
    detail::refresh_recording_tape<T>();
  }

  /// Makes this tape the thread's active tape (the one expressions record on), as if it had
  /// been made last: for a program that keeps several tapes (one per model, say), where the
  /// newest is active. The others stay as they are; when this tape is destroyed, the tape that
  /// was active before this call is active again if it still lives. Call it on the thread that
  /// made the tape (else etad::error).
  void activate() {
    if (thread_ != detail::this_thread_mark()) [[unlikely]]
      throw error("etad: activate() was called on another thread than the one that made the "
                  "tape; a tape records on its own thread only");
    if (detail::swapped_active<T> != 0) [[unlikely]]
      throw error("etad: activate() was called inside a custom_gradient, recompute_grad or "
                  "checkpointed_loop function while it ran; call it outside them");
    if (active() == this) return;
    for (basic_tape* p = active(); p != nullptr; p = p->previous_)
      if (p->previous_ == this) {
        p->previous_ = previous_;  // (unlinked from where it was)
        break;
      }
    previous_ = active();
    active() = this;
    detail::refresh_recording_tape<T>();
  }

  /// For the errors about a real of another tape or epoch: whether epoch e is that of a live
  /// tape of this thread other than the active one (its reals cannot record while a newer tape
  /// is active: the error then names that cause).
  static bool of_inactive_tape(std::uint32_t e) noexcept {
    const basic_tape* a = active();
    if (a == nullptr) return false;
    for (const basic_tape* p = a->previous_; p != nullptr; p = p->previous_)
      if (e != 0 && p->accepts(e)) return true;
    return false;
  }

  /// A new independent variable (a watched source) with value v.
  ETAD_ALWAYS_INLINE real<T> variable(const T& v) {
    const detail::index_t i = store_.append_variable();
    if (i == leading_ + 1) leading_ = i;
    return real<T>(v, i, epoch_);
  }

  /// One new variable per value, written to out (out.size() == values.size()); cheaper than a
  /// loop of variable() and consecutive on the tape.
  void variables(std::span<const T> values, std::span<real<T>> out) {
    if (values.size() != out.size()) [[unlikely]]
      variables_size_mismatch(values.size(), out.size());
    const detail::index_t first = store_.append_empty(values.size());
    if (first == leading_ + 1) leading_ = first + static_cast<detail::index_t>(values.size()) - 1;
    if constexpr (std::is_same_v<T, double> && sizeof(real<T>) == 16 &&
                  std::endian::native == std::endian::little) {
      // Two 8-byte halves per real (value; index | epoch << 32, written over the adjacent index_
      // and epoch_), so that the loop vectorizes into full-width stores; field by field, g++ 12
      // stores the three members one at a time.
      write_variables(values.data(), out.data(), values.size(), first, epoch_);
    } else {
      for (std::size_t k = 0; k < values.size(); ++k)
        out[k] = real<T>(values[k], first + static_cast<detail::index_t>(k), epoch_);
    }
  }
  /// The same, returning a new vector.
  std::vector<real<T>> variables(std::span<const T> values) {
    std::vector<real<T>> out(values.size());
    variables(values, out);
    return out;
  }

  /// One new variable per value, as one block (etad::variable_block): consecutive on the tape,
  /// their values kept by the tape (a copy, made here, on a cache-line boundary) until reset().
  /// Cheaper than variables() for array code: no real is written per value, the reductions
  /// read the values contiguously, and they and gradient() know the indices without checking
  /// them.
  ETAD_ALWAYS_INLINE etad::variable_block<T> variable_block(std::span<const T> values);

  /// Forgets every statement and invalidates every real of this tape; keeps the memory, so a
  /// loop of record -> gradient -> reset allocates nothing after its first rounds.
  void reset() {
    if (!enclosing_.empty() || in_callback_ != 0) [[unlikely]] reset_in_pass();
    if (!callbacks_.empty()) callbacks_.clear();  // (destroys their objects, newest first)
    peak_ = 0;                                    // (a new recording: its own peak)
    store_.clear();
    block_values_.clear();
    leading_ = 0;
    epoch_ = detail::new_epoch();
    used_ = false;
  }
  void clear() { reset(); }

  bool is_persistent() const noexcept { return persistent_; }
  /// Statements recorded (variables included).
  std::size_t statements() const noexcept { return store_.size() - 1; }
  /// The index the next statement gets: every input of a statement must be below it (a stale
  /// or foreign real's index may not be; the recording paths check it in every build, so that
  /// no handle makes the sweep write outside the adjoints).
  ETAD_ALWAYS_INLINE detail::index_t next_index() const noexcept { return store_.size(); }
  /// Partials recorded: one per input of each statement (a range statement's included, although
  /// it stores its inputs as one index range, and no partials at all when they are all equal).
  std::size_t partials() const noexcept { return store_.partial_count(); }
  /// Bytes of statement storage in use now (at most reserved_bytes()).
  std::size_t used_bytes() const noexcept { return store_.used_bytes(); }
  /// Bytes reserved for statements (kept across reset()).
  std::size_t reserved_bytes() const noexcept {
    return store_.reserved_bytes() + block_values_.reserved_bytes() +
           callbacks_.reserved_bytes() + adjoints_.capacity() * sizeof(T) + flags_.capacity();
  }
  /// The memory the recording holds now, by kind (see memory_use).
  memory_use memory() const noexcept {
    return {store_.statement_bytes(), store_.partial_bytes(), block_values_.used_bytes(),
            callbacks_.used_bytes()};
  }
  /// The largest memory().total() of this recording: since the last reset() (or the tape's
  /// construction, or reset_peak_memory()), counting what recomputations (recompute_grad,
  /// checkpointed_loop) and the forward passes of custom gradients record for a while and then
  /// take back. Exact: the recording only grows between the points where something is taken
  /// back, and the total is noted there (not at every statement).
  std::size_t peak_memory() const noexcept { return std::max(peak_, memory().total()); }
  void reset_peak_memory() noexcept { peak_ = memory().total(); }

  /// d(target)/d(sources...): the total derivatives, zero for an unconnected source.
  ///   auto [dx, dy] = t.gradient(z, x, y);
  template <class... Sources>
    requires(sizeof...(Sources) > 0 && (std::is_convertible_v<Sources, real<T>> && ...))
  std::array<T, sizeof...(Sources)> gradient(const real<T>& target, const Sources&... sources) {
    const real<T> srcs[] = {sources...};
    std::array<T, sizeof...(Sources)> r;
    gradient(target, std::span<const real<T>>(srcs), std::span<T>(r));
    return r;
  }

  /// d(target)/d(sources[i]) written into out[i] (zero for an unconnected source); allocates
  /// nothing once the tape's buffers have grown, so it suits loops over many sources. On an
  /// error (etad::error) the tape is as it was, but out's contents are unspecified.
  ETAD_ALWAYS_INLINE void gradient(const real<T>& target, std::span<const real<T>> sources,
                                   std::span<T> out) {
    if constexpr (std::is_floating_point_v<T>) {
      if (gradient_of_range(target, sources, out)) return;
    }
    gradient_swept(target, sources, out);
  }

  /// d(target)/d(sources[k]) written into out[k], for the variables of a block (zero for one the
  /// target does not depend on); as gradient() of a range of reals, with no check of the
  /// sources beyond the block's own (one tape, one epoch).
  ETAD_ALWAYS_INLINE void gradient(const real<T>& target, const etad::variable_block<T>& sources,
                                   std::span<T> out);
  /// The same into a new vector.
  std::vector<T> gradient(const real<T>& target, const etad::variable_block<T>& sources) {
    std::vector<T> out(sources.size());
    gradient(target, sources, out);
    return out;
  }

  /// The sum over targets t_k, weighted by seeds w_k (default 1), of d t_k / d source_i: for each
  /// source, the total derivative (sources may be variables or intermediate values), or no value
  /// / zero for a source the targets do not depend on (options.unconnected_gradients).
  std::vector<std::optional<T>> gradients(std::span<const real<T>> targets,
                                          std::span<const real<T>> sources,
                                          const gradient_options<T>& options = {});

  /// The thread's active tape for T, or nullptr.
  static basic_tape* current() noexcept { return active(); }
  /// The tape that records now: current(), or nullptr while a stop_recording<T> lives.
  static basic_tape* recording() noexcept { return detail::recording_tape<T>; }

  /// gradients() with the variables of a block as the sources.
  std::vector<std::optional<T>> gradients(std::span<const real<T>> targets,
                                          const etad::variable_block<T>& sources,
                                          const gradient_options<T>& options = {}) {
    const std::vector<real<T>> reals = sources.reals();  // (throws for a block from before reset())
    return gradients(targets, reals, options);
  }

  /// Records a statement of n partials defining a new index; used by real<T> and by vector
  /// statements. Fill the returned arrays with the partials and their inputs' indices. Every
  /// input must be a value recorded before (an index below `defined`): the sweeps and
  /// gradient() rely on it.
  ETAD_ALWAYS_INLINE typename detail::statement_store<T>::slot record(std::size_t n,
                                                                      detail::index_t& defined) {
    return store_.append(n, defined);
  }
  /// Records a range statement (detail::statement_store::append_range): `scattered` ordinary
  /// inputs, then the consecutive indices first .. first + length - 1, whose partials are stored
  /// contiguously, or all equal to `scale` when uniform. As for record(), every input is below
  /// `defined`: first + length <= defined.
  ETAD_ALWAYS_INLINE typename detail::statement_store<T>::range_slot record_range(
      std::size_t scattered, detail::index_t first, std::size_t length, bool uniform,
      const T& scale, detail::index_t& defined) {
    return store_.append_range(scattered, first, length, uniform, scale, defined);
  }
  /// Takes back the statement record() or record_range() made last (nothing recorded since):
  /// for vector statements whose inputs fail a check after recording, so that the error leaves
  /// the tape as it was.
  void discard_last_statement() noexcept { store_.discard_last(); }
  /// Makes the range statement record_range() made last (no scattered inputs, not uniform; its
  /// slot is s) an ordinary statement of as many inputs as its range had, whose indices the
  /// caller writes into s.input: for a range whose elements turn out not to be consecutive.
  void unrange_last_statement(const typename detail::statement_store<T>::range_slot& s) noexcept {
    store_.unrange_last(s);
  }
  std::uint32_t epoch() const noexcept { return epoch_; }
  /// True when a real of epoch e (not 0: a constant) may be used on this tape now: e is the
  /// tape's epoch or, while a custom_gradient's forward pass or a recomputation records (each in
  /// an epoch of its own, so that the reals it makes are caught if they are used after it has
  /// been taken back), the epoch of a recording around it.
  ETAD_ALWAYS_INLINE bool accepts(std::uint32_t e) const noexcept {
    return e == epoch_ || (!enclosing_.empty() && accepts_enclosing(e));
  }
  /// accepts() for every real of x that is not a constant (off the hot paths: for a range that
  /// failed the one-epoch test).
  [[gnu::noinline]] bool accepts_all(std::span<const real<T>> x) const noexcept {
    for (const real<T>& r : x)
      if (r.epoch() != 0 && !accepts(r.epoch())) return false;
    return true;
  }

private:
  static basic_tape*& active() noexcept { return active_; }
  static inline thread_local basic_tape* active_ = nullptr;

  template <class U>
  friend struct detail::callback_access;

  // A point of the recording to come back to (the callback entries' forward passes and
  // recomputations record, then take it back).
  struct mark {
    typename detail::statement_store<T>::mark store;
    typename detail::value_arena<T>::position values;
    typename detail::callback_store<T>::position callbacks;
    detail::index_t leading;
  };
  mark where() const noexcept {
    return {store_.where(), block_values_.where(), callbacks_.where(), leading_};
  }
  void truncate(const mark& m) noexcept {
    if (store_.size() == m.store.next && callbacks_.size() == m.callbacks.entries &&
        block_values_.where().chunk == m.values.chunk &&
        block_values_.where().used == m.values.used) [[likely]] {
      leading_ = m.leading;  // nothing recorded since m (a forward pass on values alone)
      return;
    }
    note_peak();
    callbacks_.truncate_to(m.callbacks);  // (destroys their objects, newest first)
    store_.truncate(m.store);
    block_values_.truncate_to(m.values);
    leading_ = m.leading;
  }
  void note_peak() noexcept {
    peak_ = std::max(peak_, store_.bytes_in_use() + block_values_.used_bytes() +
                                callbacks_.used_bytes());
  }

  // The sweep of (lo, hi] when the tape holds callback entries: the store's sweep between them,
  // and each entry's function when the sweep reaches its outputs (Flags: with sweep()'s stop and
  // reach flags). A callback may record and sweep on this tape past its end (a recomputation),
  // which may move adjoints_: every segment reads its address afresh.
  template <bool Flags>
  [[gnu::noinline]] void sweep_with_callbacks(detail::index_t hi, detail::index_t lo);
  template <bool Flags>
  void run_callback(const detail::callback_entry<T>& e);
  // Seeds the adjoints of the indices recorded since m (zeroed first) with seeds[k] at outs[k],
  // and sweeps them, down to m: their contributions land on the adjoints of what was recorded
  // before m, which the sweep in progress then carries on with.
  void sweep_since(const mark& m, const real<T>* outs, const T* seeds, std::size_t count);
  // One step of the flagged sweep (sweep()): a stopped statement pushes nothing, a reached one
  // marks its inputs reached.
  static ETAD_ALWAYS_INLINE void flagged_push(T* adj, unsigned char* fl, detail::index_t i,
                                              const T* p, const detail::index_t* in,
                                              std::size_t m, bool ranged) {
    if (fl[i] & 1) return;
    if (fl[i] & 2) {
      if (!ranged) {
        for (std::size_t j = 0; j < m; ++j) fl[in[j]] |= 2;
      } else {
        const detail::range_shape r = detail::shape_of_range(in, m);
        for (std::size_t j = 0; j < r.scattered; ++j) fl[in[detail::range_header + j]] |= 2;
        for (std::size_t k = 0; k < r.length; ++k) fl[r.first + k] |= 2;
      }
    }
    detail::push_plain(adj, i, p, in, m, ranged);
  }

  // Throws unless r is a constant or a real of this tape's current epoch (or of a recording
  // around the pass in progress: accepts()).
  ETAD_ALWAYS_INLINE void check(const real<T>& r, const char* what) const {
    if (r.epoch() != 0 && !accepts(r.epoch())) [[unlikely]] foreign(what);
  }
  [[gnu::noinline]] bool accepts_enclosing(std::uint32_t e) const noexcept {
    for (const auto& p : enclosing_)
      if (p.epoch == e) return true;
    return false;
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void reset_in_pass() {
    throw error("etad: reset() was called inside a custom_gradient, recompute_grad or "
                "checkpointed_loop function (or its gradient function) while it ran on this "
                "tape; reset the tape after the call or the gradient");
  }
  // A pass (see detail::callback_access::begin_pass): the recording from here on gets a new
  // epoch; end_pass() takes it back and returns to the epoch before.
  mark begin_pass() {
    enclosing_.push_back({epoch_, store_.size()});  // (first: should it throw, nothing changed)
    epoch_ = detail::new_epoch();
    return where();
  }
  void end_pass(const mark& m) noexcept {
    truncate(m);
    epoch_ = enclosing_.back().epoch;
    enclosing_.pop_back();
  }
  // The epoch in which index i was recorded (i recorded before the pass in progress, if any):
  // the current one, or that of the recording around a pass begun after i.
  std::uint32_t epoch_at(detail::index_t i) const noexcept {
    std::uint32_t e = epoch_;
    for (std::size_t k = enclosing_.size(); k-- > 0;) {
      if (i >= enclosing_[k].first) return e;
      e = enclosing_[k].epoch;
    }
    return e;
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void foreign(const char* what);
  [[noreturn, gnu::noinline, gnu::cold]] static void foreign_block() {
    throw error("etad: a source block was made on another tape or before this tape's reset(); "
                "take gradients on the tape that made it, before resetting it");
  }
  // The size errors of variables() and gradient(), out of line: a message built in place took
  // stack space (and a realigned frame) in every call.
  [[noreturn, gnu::noinline, gnu::cold]] static void variables_size_mismatch(std::size_t values,
                                                                            std::size_t outs) {
    throw error("etad: variables() got " + std::to_string(values) + " values and " +
                std::to_string(outs) + " output reals; give one output per value");
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void gradient_size_mismatch(std::size_t outs,
                                                                           std::size_t sources) {
    throw error("etad: gradient() got " + detail::count_of(outs, "output slot") + " for " +
                detail::count_of(sources, "source") + "; give one slot per source");
  }
  // variables()'s loop for double; restrict parameters (not locals) are what g++ 12 honours.
  static void write_variables(const T* __restrict v, real<T>* __restrict o, std::size_t n,
                              detail::index_t first, std::uint32_t epoch) {
    static_assert(std::is_trivially_copyable_v<real<T>> &&
                  offsetof(real<T>, epoch_) == offsetof(real<T>, index_) + 4);
    const std::uint64_t high = std::uint64_t(epoch) << 32;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t key = std::uint64_t(first + static_cast<detail::index_t>(k)) | high;
      std::memcpy(&o[k].value_, v + k, sizeof(T));  // (both halves by memcpy, or g++ 12 stores
      std::memcpy(&o[k].index_, &key, sizeof key);   // them element by element)
    }
  }
  // gradient() of a reduction with respect to its inputs (inline): true when done, false when
  // the general path (gradient_swept) must answer, which makes every check.
  ETAD_ALWAYS_INLINE bool gradient_of_range(const real<T>& target,
                                            std::span<const real<T>> sources, std::span<T> out);
  // gradient()'s general path: the checks, the sweep and the read-out (out of line).
  [[gnu::noinline]] void gradient_swept(const real<T>& target, std::span<const real<T>> sources,
                                        std::span<T> out);
  // Checks the targets, sources and options, seeds the targets and sweeps down to the lowest
  // source; leaves the adjoints in adjoints_ (and, for "none", the reached-from-target bits in
  // flags_). gradient()'s common case has a path of its own (sweep_one).
  void sweep(std::span<const real<T>> targets, std::span<const real<T>> sources,
             const gradient_options<T>& options);

  // A non-persistent tape answers one gradient call: throws on the second.
  void claim_gradient() const {
    if (used_ && !persistent_) [[unlikely]]
      throw error("etad: gradient() was already called on this non-persistent tape; construct "
                  "it as etad::tape{etad::persistent} to take several gradients");
  }
  // The lowest index a sweep for these sources must reach (n when there are none), and their
  // first index when they are consecutive values of this tape as variables() makes them (else
  // 0, after each source was checked). One branch-free, vectorizable pass for the common case.
  struct source_scan {
    detail::index_t lo;
    detail::index_t contiguous;
  };
  // Nonzero unless src[0 .. m) are consecutive values of one tape (key k is key 0 + k); m > 0.
  ETAD_ALWAYS_INLINE static std::uint64_t key_gaps(const real<T>* src, std::size_t m) {
    const std::uint64_t key0 = detail::key_of(src[0]);
    std::uint64_t gaps = 0;
    for (std::size_t k = 0; k < m; ++k) gaps |= detail::key_of(src[k]) ^ (key0 + k);
    return gaps;
  }
  ETAD_ALWAYS_INLINE source_scan scan_sources(std::span<const real<T>> sources,
                                              detail::index_t n) const {
    source_scan r{n, 0};
    if (sources.empty()) return r;
    const real<T>* src = sources.data();
    const std::uint64_t gaps = key_gaps(src, sources.size());
    const detail::index_t first = src[0].index();
    if (gaps == 0 && first != 0 && src[0].epoch() == epoch_) return {first, first};
    for (const auto& s : sources) {
      check(s, "a source");
      r.lo = std::min(r.lo, s.index() == 0 ? n : s.index());
    }
    return r;
  }

  // gradient()'s read-out of consecutive sources: o[k] = a[k], and the keys checked (key k must
  // be key 0 + k; returns nonzero if not). A function of its own with restrict parameters:
  // inlined into gradient(), g++ 12 reloaded `o` from the stack in every iteration, and
  // sum/10^4 took 1 us longer.
  [[gnu::noinline]] static std::uint64_t copy_consecutive(const T* __restrict a,
                                                          T* __restrict o,
                                                          const real<T>* __restrict src,
                                                          std::size_t m) {
    const std::uint64_t key0 = detail::key_of(src[0]);
    std::uint64_t gaps = 0;
    for (std::size_t k = 0; k < m; ++k) {
      o[k] = a[k];
      gaps |= detail::key_of(src[k]) ^ (key0 + k);
    }
    return gaps;
  }
  // gradient()'s read-out of one range statement's partials, for sources that are its inputs:
  // o[k] = 0 + p[k] (p[0] when uniform), k < m, what the sweep would leave in their adjoints
  // (0 + 1 * p: -0 becomes +0, inf and NaN pass through).
  ETAD_ALWAYS_INLINE static void copy_partials(const T* __restrict p, bool uniform,
                                               T* __restrict o, std::size_t m) {
    if (uniform) {
      const T c = T(0) + p[0];
      for (std::size_t k = 0; k < m; ++k) o[k] = c;
    } else if (m <= 16) {
      // Partials a reduction has just written element by element (prod's scans): read them by
      // 8-byte loads, which the store buffer forwards; a vector load spanning several of those
      // stores waits until they reach the cache.
      for (std::size_t k = 0; k < m; ++k) {
        detail::no_vectorize();
        o[k] = T(0) + p[k];
      }
    } else {
      for (std::size_t k = 0; k < m; ++k) o[k] = T(0) + p[k];
    }
  }
  // The same for a few sources (m <= 16) whose keys were not checked, in one loop that copies
  // as it checks: nonzero if they are not consecutive, and then o holds partials the caller
  // overwrites (gradient()'s general path writes every slot).
  ETAD_ALWAYS_INLINE static std::uint64_t copy_partials_if_consecutive(
      const T* __restrict p, bool uniform, T* __restrict o, const real<T>* __restrict src,
      std::size_t m) {
    const std::uint64_t key0 = detail::key_of(src[0]);
    std::uint64_t gaps = 0;
    const T c = T(0) + p[0];
    for (std::size_t k = 0; k < m; ++k) {
      o[k] = uniform ? c : T(0) + p[k];
      gaps |= detail::key_of(src[k]) ^ (key0 + k);
    }
    return gaps;
  }
  // The same for many sources: the keys first (key_gaps), then the copy, each a loop of its
  // own; nonzero, and nothing written, if they are not consecutive.
  [[gnu::noinline]] static std::uint64_t copy_partials_checked(const T* __restrict p, bool uniform,
                                                               T* __restrict o,
                                                               const real<T>* __restrict src,
                                                               std::size_t m) {
    const std::uint64_t gaps = key_gaps(src, m);
    if (gaps == 0) copy_partials(p, uniform, o, m);
    return gaps;
  }
  // gradient()'s sweep: adjoints zeroed, target hi seeded with 1, swept down to lo.
  ETAD_ALWAYS_INLINE const T* sweep_one(detail::index_t hi, detail::index_t lo, detail::index_t n) {
    if (!callbacks_.empty()) [[unlikely]]
      return sweep_one_with_callbacks(hi, lo, n);
    T* adj = zeroed_adjoints(n);
    if (hi != 0) adj[hi] = T(1);
    store_.sweep_adjoints(adj, hi, lo);
    adj[0] = T(0);  // the sink of constants' partials: never an answer (a constant source reads 0)
    return adj;
  }
  // The same when the tape holds callback entries (out of line: a tape without them pays one
  // test). A callback may grow adjoints_: the address is read after the sweep.
  [[gnu::noinline, gnu::cold]] const T* sweep_one_with_callbacks(detail::index_t hi,
                                                                  detail::index_t lo,
                                                                  detail::index_t n) {
    T* adj = zeroed_adjoints(n);
    if (hi != 0) adj[hi] = T(1);
    try {
      sweep_with_callbacks<false>(hi, lo);
    } catch (...) {
      // A callback threw (an etad::error on a wrong count, or the user's own): the call did not
      // happen, so a non-persistent tape can still answer one (what it recorded meanwhile was
      // taken back by the callback's guard).
      if (!persistent_) used_ = false;
      throw;
    }
    adj = adjoints_.data();
    adj[0] = T(0);
    return adj;
  }

  // adjoints_[0 .. n) set to zero (the vector only grows: its tail past n is not used; to
  // exactly n, as assign() did, not to the doubled capacity that resize() alone would take).
  T* zeroed_adjoints(std::size_t n) {
    if (adjoints_.size() < n) {
      adjoints_.reserve(n);
      adjoints_.resize(n);
    }
    T* adj = adjoints_.data();
    detail::zero_fill(adj, n);
    return adj;
  }

  detail::statement_store<T> store_;
  detail::value_arena<T> block_values_;
  detail::callback_store<T> callbacks_;
  std::size_t peak_ = 0;  // see peak_memory()
  std::vector<T> adjoints_;
  std::vector<unsigned char> flags_;
  std::uint32_t epoch_;
  // The recordings around the passes in progress, innermost last: the epoch each had, and the
  // first index the pass it encloses recorded. Empty but inside a custom_gradient's forward pass
  // or a recomputation.
  struct enclosing_pass {
    std::uint32_t epoch;
    detail::index_t first;
  };
  std::vector<enclosing_pass> enclosing_;
  // Callback entries running now (run_callback): reset() then would destroy the running one.
  int in_callback_ = 0;
  basic_tape* previous_;
  const void* thread_;  // detail::this_thread_mark() of the thread that made the tape
  // Statements 1..leading_ are variables (no partials): the sweep never needs to visit them.
  detail::index_t leading_ = 0;
  bool persistent_ = false;
  bool used_ = false;
};

using tape = basic_tape<double>;

/// While a stop_recording<T> lives, expressions of reals are computed but not recorded: the
/// results are constants (tf.GradientTape.stop_recording).
template <class T = double>
class stop_recording {
public:
  stop_recording() : thread_(detail::this_thread_mark()) {
    ++detail::paused_recording<T>;
    detail::refresh_recording_tape<T>();
  }
  stop_recording(const stop_recording&) = delete;
  stop_recording& operator=(const stop_recording&) = delete;
  /// Like a tape, destroyed on the thread that made it (std::terminate otherwise).
  ~stop_recording() {
    if (thread_ != detail::this_thread_mark()) [[unlikely]]
      detail::destroyed_on_another_thread(
          "etad: a stop_recording was destroyed on another thread than the one that made it; "
          "it pauses its own thread, so destroy it on that thread\n");
    --detail::paused_recording<T>;
    detail::refresh_recording_tape<T>();
  }

private:
  const void* thread_;
};

namespace detail {
template <class T>
void refresh_recording_tape() noexcept {
  recording_tape<T> = paused_recording<T> == 0 ? basic_tape<T>::current() : nullptr;
}

/// The message of an error about a real of epoch e that the active tape does not accept: `usual`
/// (another tape, or before reset()), unless e is the epoch of a live tape of this thread that a
/// newer tape keeps from being active: then that cause, and what to do.
template <class T>
[[gnu::cold]] std::string foreign_real_message(std::uint32_t e, const char* who,
                                               const char* usual) {
  if (basic_tape<T>::of_inactive_tape(e))
    return std::string("etad: ") + who +
           " a real of a tape that is not the active one: a tape made after it is active on "
           "this thread, and statements record on the active tape; call activate() on the "
           "real's tape first (or keep one tape per thread)";
  return usual;
}
}  // namespace detail

}  // namespace etad

#include <etad/tape/real.hpp>

namespace etad {

/// variable_block<T>: n independent variables made at once by basic_tape<T>::variable_block,
/// with consecutive indices on that tape; the tape keeps their values (contiguous, from a
/// cache-line boundary) until it is reset. A handle, cheap to copy, valid while its tape lives
/// and until its reset(): after that, every use (b[k], values(), reals(), a reduction, a
/// gradient) throws etad::error. b[k] is the k-th variable as a real; the reductions (sum,
/// mean, dot, squared_norm, prod, log_sum_exp), quadratic_form, matvec, map_sum and
/// basic_tape::gradient take the block itself. Array code gets the most from it: making a
/// block writes n values (not n reals of 16 bytes), and a reduction over it reads the values
/// contiguously and records its range without checking n indices.
template <class T>
class variable_block {
public:
  using value_type = real<T>;

  /// An empty block (on no tape).
  variable_block() = default;

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// The k-th variable; etad::error unless k < size() (in every build: a real past the block
  /// would name another statement, or an index past the recording).
  real<T> operator[](std::size_t k) const {
    check();
    if (k >= size_) [[unlikely]]
      out_of_range(k, size_);
    return detail::recorded_real<T>(values_[k], first_ + static_cast<detail::index_t>(k), epoch_);
  }
  /// The values, as given to variable_block().
  std::span<const T> values() const {
    check();
    return {values_, size_};
  }
  /// The first variable's index (the k-th has first_index() + k); 0 for an empty block.
  detail::index_t first_index() const noexcept { return first_; }
  /// The epoch of the tape that made the block (see real::epoch).
  std::uint32_t epoch() const noexcept { return epoch_; }
  /// The variables as reals, in a new vector: for the functions that take a range of reals and
  /// not a block (the reductions over a block need none).
  std::vector<real<T>> reals() const {
    check();
    std::vector<real<T>> r;
    r.reserve(size_);
    for (std::size_t k = 0; k < size_; ++k)
      r.push_back(detail::recorded_real<T>(values_[k], first_ + static_cast<detail::index_t>(k), epoch_));
    return r;
  }
  /// Throws etad::error unless the block's tape is in the epoch that made the block (not reset
  /// since): its values are then still the block's. Nothing to check for an empty block.
  void check() const {
    if (tape_ != nullptr && tape_->epoch() != epoch_ && !tape_->accepts(epoch_)) [[unlikely]]
      stale();
  }

private:
  friend class basic_tape<T>;
  variable_block(const T* values, detail::index_t first, std::size_t n, std::uint32_t epoch,
                 const basic_tape<T>* owner)
      : values_(values), first_(first), epoch_(epoch), size_(n), tape_(owner) {}
  [[noreturn, gnu::noinline, gnu::cold]] static void out_of_range(std::size_t k, std::size_t n) {
    throw error("etad: variable block index " + std::to_string(k) + " is past its end (it holds " +
                std::to_string(n) + (n == 1 ? " variable)" : " variables)"));
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void stale() {
    throw error("etad: a variable block was used after its tape's reset(); its values are "
                "gone, so make a new block after each reset() (a block made inside a "
                "custom_gradient, recompute_grad or checkpointed_loop function is gone when that "
                "call returns)");
  }

  const T* values_ = nullptr;
  detail::index_t first_ = 0;
  std::uint32_t epoch_ = 0;
  std::size_t size_ = 0;
  const basic_tape<T>* tape_ = nullptr;
};

namespace detail {
template <class A>
inline constexpr bool is_variable_block_v = false;
template <class T>
inline constexpr bool is_variable_block_v<variable_block<T>> = true;
}  // namespace detail

template <class T>
variable_block<T> basic_tape<T>::variable_block(std::span<const T> values) {
  const std::size_t n = values.size();
  if (n == 0) return {};
  T* __restrict v = block_values_.allocate(n);  // (first: should it throw, nothing is recorded)
  const detail::index_t first = store_.append_empty(n);
  if (first == leading_ + 1) leading_ = first + static_cast<detail::index_t>(n) - 1;
  const T* __restrict from = values.data();
  for (std::size_t k = 0; k < n; ++k) v[k] = from[k];
  return etad::variable_block<T>(v, first, n, epoch_, this);
}

template <class T>
void basic_tape<T>::gradient(const real<T>& target, const etad::variable_block<T>& sources,
                             std::span<T> out) {
  const std::size_t m = sources.size();
  if (out.size() != m) [[unlikely]]
    gradient_size_mismatch(out.size(), m);
  const detail::index_t f = sources.first_index();
  if constexpr (std::is_floating_point_v<T>) {
    // A reduction of the block's variables, taken right after it was recorded (see
    // gradient_of_range): its partials are the answer.
    if (m != 0 && !(used_ && !persistent_) && target.epoch() == epoch_ &&
        sources.epoch() == epoch_ && target.index() == std::max(f, leading_) + 1) {
      const auto r = store_.partials_over(target.index(), f, m);
      if (r.partial != nullptr) {
        copy_partials(r.partial, r.uniform, out.data(), m);
        used_ = true;
        return;
      }
    }
  }
  claim_gradient();
  check(target, "a target");
  if (m != 0 && sources.epoch() != epoch_ && !accepts(sources.epoch())) [[unlikely]]
    foreign_block();
  used_ = true;
  const detail::index_t n = store_.size();
  const detail::index_t lo = m == 0 ? n : std::max(f, leading_);
  const T* adj = sweep_one(target.index(), lo, n);
  const T* __restrict a = adj + f;
  T* __restrict o = out.data();
  for (std::size_t k = 0; k < m; ++k) o[k] = a[k];
}

template <class T>
void basic_tape<T>::foreign(const char* what) {
  throw error(std::string("etad: ") + what +
              " is a real recorded on another tape or before this tape's reset(); take "
              "gradients on the tape that recorded it, before resetting it (a real made inside a "
              "custom_gradient, recompute_grad or checkpointed_loop function is valid only "
              "inside it)");
}

template <class T>
bool basic_tape<T>::gradient_of_range(const real<T>& target, std::span<const real<T>> sources,
                                      std::span<T> out) {
  // The sweep would visit one statement, and it is a range statement over the sources (a
  // reduction's gradient with respect to its inputs): its partials are the answer, read
  // without zeroing the adjoints, sweeping and copying them out. Tried first, before any pass
  // over the sources: one pass then checks their keys (consecutive, of this epoch: key k is
  // key 0 + k) as it copies. The target follows the sources' first index f or the leading
  // variables directly, so every source is a leading variable (no partials) or the one
  // source right below the target: nothing else adds to their adjoints. (Nested tapes sweep,
  // which records on the outer tape.) Inline, so that a reduction's gradient makes no call.
  // Nothing here throws: a call it does not answer (sizes that differ, a used non-persistent
  // tape, a constant or foreign target or source, ...) goes to gradient_swept, which checks.
  const std::size_t m = sources.size();
  if (m == 0 || out.size() != m || (used_ && !persistent_)) return false;
  if (target.epoch() != epoch_) return false;  // (a constant target: the general path)
  const real<T>* src = sources.data();
  const detail::index_t hi = target.index();
  const detail::index_t f = src[0].index();
  if (f == 0 || hi != std::max(f, leading_) + 1 || src[0].epoch() != epoch_) return false;
  const auto r = store_.partials_over(hi, f, m);
  if (r.partial == nullptr ||
      (m <= 16 ? copy_partials_if_consecutive(r.partial, r.uniform, out.data(), src, m)
               : copy_partials_checked(r.partial, r.uniform, out.data(), src, m)) != 0)
    return false;
  used_ = true;
  return true;
}

template <class T>
void basic_tape<T>::gradient_swept(const real<T>& target, std::span<const real<T>> sources,
                                   std::span<T> out) {
  // The common call (one target, seed 1, no stop_gradients, zero for unconnected sources) on a
  // path of its own: sweep() serves every option of gradients(), and its general set-up (the
  // targets' loops, the options, the flags) was a third of a small evaluation's instructions.
  // The checks are sweep()'s, in the same order.
  if (out.size() != sources.size()) [[unlikely]]
    gradient_size_mismatch(out.size(), sources.size());
  claim_gradient();
  check(target, "a target");
  const std::size_t m = sources.size();
  const real<T>* src = sources.data();
  const detail::index_t n = store_.size();
  const detail::index_t hi = target.index();
  // Many sources (a gradient w.r.t. a vector of inputs): rather than a pass over them before the
  // sweep (for the lowest index and the epoch checks) and a second one after it, the sweep goes
  // down to the leading variables (always enough) and ONE pass after it checks them and copies
  // their adjoints out. (A foreign source is then reported after the sweep.)
  const bool many = m > 16;
  detail::index_t lo = leading_, contiguous = 0;
  if (!many) {
    const source_scan scan = scan_sources(sources, n);
    lo = scan.lo;
    contiguous = scan.contiguous;
  }
  const bool was_used = used_;
  used_ = true;
  lo = std::max(lo, leading_);  // the leading variables have no partials to push
  const T* adj = sweep_one(hi, lo, n);
  if (many) {
    const detail::index_t f = src[0].index();
    if (f != 0 && std::size_t(f) + m <= n && src[0].epoch() == epoch_) {
      // Consecutive sources of this tape, as variables() makes them: a contiguous copy, checked
      // as it goes (key k must be key 0 + k).
      if (copy_consecutive(adj + f, out.data(), src, m) == 0) return;
    }
    // A foreign source, found after the sweep: the call did not happen (a non-persistent tape
    // can still answer), although out may have been written.
    used_ = was_used;
    for (const auto& s : sources) check(s, "a source");
    used_ = true;
  } else if (contiguous != 0) {
    // Consecutive sources: a contiguous copy (a loop: rep movsb is slower at these sizes).
    const T* __restrict a = adj + contiguous;
    T* __restrict o = out.data();
    for (std::size_t k = 0; k < m; ++k) o[k] = a[k];
    return;
  }
  for (std::size_t k = 0; k < m; ++k) out[k] = adj[src[k].index()];
}

template <class T>
void basic_tape<T>::sweep(std::span<const real<T>> targets, std::span<const real<T>> sources,
                          const gradient_options<T>& options) {
  claim_gradient();
  if (!options.output_gradients.empty() && options.output_gradients.size() != targets.size())
    throw error("etad: gradients() got " + std::to_string(options.output_gradients.size()) +
                " output gradients for " + std::to_string(targets.size()) +
                " targets; give one seed per target, or none");
  for (const auto& t : targets) check(t, "a target");
  for (const auto& s : options.stop_gradients) check(s, "a stop_gradients entry");
  const detail::index_t n = store_.size();
  detail::index_t hi = 0;
  detail::index_t lo = scan_sources(sources, n).lo;
  used_ = true;

  for (const auto& t : targets) hi = std::max(hi, t.index());
  lo = std::max(lo, leading_);  // the leading variables have no partials to push

  zeroed_adjoints(n);
  for (std::size_t k = 0; k < targets.size(); ++k)
    if (targets[k].index() != 0)
      adjoints_[targets[k].index()] += options.output_gradients.empty() ? T(1) : options.output_gradients[k];

  // flags_: bit 1 = stopped, bit 2 = reached from a target (only when "none" must be told
  // apart from a zero that was computed).
  const bool stops = !options.stop_gradients.empty();
  const bool reach = options.unconnected_gradients == unconnected::none;
  if (stops || reach) {
    flags_.assign(n, 0);
    for (const auto& s : options.stop_gradients) flags_[s.index()] |= 1;
    flags_[0] = 0;
    if (reach)
      for (const auto& t : targets) flags_[t.index()] |= 2;
  }

  if (!callbacks_.empty()) {
    try {
      if (!stops && !reach)
        sweep_with_callbacks<false>(hi, lo);
      else
        sweep_with_callbacks<true>(hi, lo);
    } catch (...) {
      if (!persistent_) used_ = false;  // (as in sweep_one_with_callbacks)
      throw;
    }
  } else if (!stops && !reach) {
    // The hot loop. A statement whose adjoint is exactly zero pushes nothing: it is not on a path
    // from the targets (or its contributions cancelled), and skipping it keeps an infinite
    // partial off the path (log at 0 in an unused branch) from making 0 * inf = NaN.
    store_.sweep_adjoints(adjoints_.data(), hi, lo);
  } else {
    T* adj = adjoints_.data();
    unsigned char* fl = flags_.data();
    store_.sweep_down(hi, lo, [adj, fl](detail::index_t i, const T* p, const detail::index_t* in,
                                        std::size_t m, bool ranged) {
      flagged_push(adj, fl, i, p, in, m, ranged);
    });
  }
  adjoints_[0] = T(0);  // the sink of constants' partials: never an answer
}

template <class T>
template <bool Flags>
void basic_tape<T>::sweep_with_callbacks(detail::index_t hi, detail::index_t lo) {
  auto statements = [this](detail::index_t h, detail::index_t l) {
    if (h <= l) return;
    T* adj = adjoints_.data();
    if constexpr (!Flags) {
      store_.sweep_adjoints(adj, h, l);
    } else {
      unsigned char* fl = flags_.data();
      store_.sweep_down(h, l, [adj, fl](detail::index_t i, const T* p, const detail::index_t* in,
                                        std::size_t m, bool ranged) {
        flagged_push(adj, fl, i, p, in, m, ranged);
      });
    }
  };
  detail::index_t top = hi;
  for (std::size_t k = callbacks_.upper_bound(hi); k > 0; --k) {
    // A copy: running the entry may add entries past the end (a recomputation) and move them.
    const detail::callback_entry<T> e = callbacks_[k - 1];
    if (e.first_output <= lo) break;
    const detail::index_t last = e.first_output + e.outputs - 1;
    if (top > last) statements(top, last);
    run_callback<Flags>(e);
    top = e.first_output - 1;
  }
  statements(top, lo);
}

template <class T>
template <bool Flags>
void basic_tape<T>::run_callback(const detail::callback_entry<T>& e) {
  const std::size_t m = e.outputs, k = e.input_count;
  // The outputs' adjoints (zero for a stopped output), and the inputs' gradients to come: on the
  // stack for small entries, else on the heap (a callback may sweep this tape again, and the
  // entries it runs then need buffers of their own).
  constexpr std::size_t small = 8;
  std::array<T, small> local{};
  std::vector<T> heap;
  T* buffer = local.data();
  if (m + k > small) {
    heap.assign(m + k, T(0));
    buffer = heap.data();
  }
  T* upstream = buffer;
  T* grads = buffer + m;
  const T* adj = adjoints_.data();
  bool any = false;
  bool reached = false;
  for (std::size_t j = 0; j < m; ++j) {
    const detail::index_t o = e.first_output + static_cast<detail::index_t>(j);
    if constexpr (Flags) {
      if (flags_[o] & 1) continue;  // stopped: nothing flows back through it
      reached = reached || (flags_[o] & 2) != 0;
    }
    upstream[j] = adj[o];
    any = any || !detail::constant_zero(upstream[j]);
  }
  if constexpr (Flags) {
    if (reached) {
      const detail::index_t* in = callbacks_.inputs(e);
      for (std::size_t j = 0; j < k; ++j) flags_[in[j]] |= 2;
    }
  }
  // As for a statement: an entry whose outputs' adjoints are all exactly zero pushes nothing
  // (its function is not called).
  if (!any) return;
  {
    struct running {  // (reset() throws while an entry's function runs)
      int& n;
      explicit running(int& c) : n(++c) {}
      ~running() { --n; }
    } guard(in_callback_);
    e.run(e.object, *this, e, upstream, grads);
  }
  T* a = adjoints_.data();  // (afresh: the callback may have moved both arrays)
  const detail::index_t* in = callbacks_.inputs(e);
  for (std::size_t j = 0; j < k; ++j)
    if (!detail::constant_zero(grads[j])) a[in[j]] = a[in[j]] + grads[j];
}

template <class T>
void basic_tape<T>::sweep_since(const mark& m, const real<T>* outs, const T* seeds,
                                std::size_t count) {
  const detail::index_t from = m.store.next, n = store_.size();
  if (adjoints_.size() < n) adjoints_.resize(n);
  detail::zero_fill(adjoints_.data() + from, n - from);
  T* adj = adjoints_.data();
  detail::index_t hi = 0;
  for (std::size_t j = 0; j < count; ++j) {
    const detail::index_t o = outs[j].index();
    // An output a recomputed function or a loop's step returned as it was: a real of another
    // tape or from before reset() must not index the adjoints (in any build).
    if (o >= n || (outs[j].epoch() != 0 && !accepts(outs[j].epoch()))) [[unlikely]]
      foreign("an output of a recomputed function or of a checkpointed loop's step");
    if (o == 0 || detail::constant_zero(seeds[j])) continue;
    adj[o] = adj[o] + seeds[j];
    hi = std::max(hi, o);
  }
  adj[0] = T(0);
  if (hi < from) return;  // outputs recorded before m (inputs passed through): seeded directly
  if (callbacks_.empty() || callbacks_[callbacks_.size() - 1].first_output < from)
    store_.sweep_adjoints(adj, hi, from - 1);
  else
    sweep_with_callbacks<false>(hi, from - 1);
  adjoints_[0] = T(0);
}

namespace detail {
/// What etad's callback entries (custom_gradient, recompute_grad, checkpointed_loop) use of a
/// tape: marks, truncation, recording an entry, and sweeping a recomputation. Not for users.
template <class T>
struct callback_access {
  using mark = typename basic_tape<T>::mark;
  /// Begins a pass (a forward pass or a recomputation, recorded and then taken back): what is
  /// recorded from here on gets an epoch of its own, in which the reals recorded before remain
  /// valid, so that a real made in the pass and used after end_pass() is caught as a stale one.
  static mark begin_pass(basic_tape<T>& t) { return t.begin_pass(); }
  /// Takes back what was recorded since begin_pass() returned m, and ends the pass.
  static void end_pass(basic_tape<T>& t, const mark& m) noexcept { t.end_pass(m); }
  /// The epoch in which index i was recorded (see begin_pass).
  static std::uint32_t epoch_at(const basic_tape<T>& t, index_t i) noexcept {
    return t.epoch_at(i);
  }
  /// Calls f(i) for each input index i of what was recorded since m (statements and entries).
  template <class F>
  static void for_each_input_since(const basic_tape<T>& t, const mark& m, F&& f) {
    const index_t n = t.store_.size();
    if (n > m.store.next) t.store_.for_each_input(n - 1, m.store.next - 1, f);
    for (std::size_t k = m.callbacks.entries; k < t.callbacks_.size(); ++k) {
      const callback_entry<T>& e = t.callbacks_[k];
      const index_t* in = t.callbacks_.inputs(e);
      for (std::size_t j = 0; j < e.input_count; ++j) f(in[j]);
    }
  }
  /// The input indices of the statements recorded since m as one array when they are one (see
  /// statement_store::contiguous_inputs_since), else {nullptr, 0}; entries' inputs not included.
  static std::span<const index_t> contiguous_inputs_since(const basic_tape<T>& t,
                                                           const mark& m) noexcept {
    if (t.callbacks_.size() != m.callbacks.entries) return {};
    return t.store_.contiguous_inputs_since(m.store);
  }
  /// Records an entry with the object O made from args, the given inputs and `outputs` new
  /// indices; returns the first of them. If it throws, nothing is recorded and the object is
  /// destroyed (or was never made).
  template <class O, class... A>
  static index_t record(basic_tape<T>& t, std::span<const index_t> inputs, std::size_t outputs,
                        typename callback_entry<T>::run_fn run, std::size_t extra_bytes,
                        A&&... args) {
    if (outputs == 0 || outputs > std::size_t(std::numeric_limits<index_t>::max() - t.store_.size()))
      throw error("etad: the tape is full (2^32 - 2 values); call reset() between independent "
                  "computations");
    const index_t first = t.store_.size();
    const auto before = t.callbacks_.where();
    O* o = t.callbacks_.template make_object<O>(std::forward<A>(args)...);
    t.callbacks_.add(o, first, static_cast<index_t>(outputs), inputs.data(), inputs.size(), run,
                     extra_bytes);
    try {
      t.store_.append_empty(outputs);
    } catch (...) {
      t.callbacks_.truncate_to(before);
      throw;
    }
    return first;
  }
  static void sweep_since(basic_tape<T>& t, const mark& m, const real<T>* outs, const T* seeds,
                          std::size_t count) {
    t.sweep_since(m, outs, seeds, count);
  }
  static std::uint32_t epoch(const basic_tape<T>& t) noexcept { return t.epoch_; }
  /// The adjoint of index i as the sweep in progress holds it.
  static T adjoint(const basic_tape<T>& t, index_t i) { return t.adjoints_[i]; }
  static const index_t* inputs(const basic_tape<T>& t, const callback_entry<T>& e) noexcept {
    return t.callbacks_.inputs(e);
  }
  /// Makes t the thread's active tape for T (unlinked: for a while, restored by the caller);
  /// returns the one before.
  static basic_tape<T>* swap_active(basic_tape<T>* t) noexcept {
    basic_tape<T>* before = basic_tape<T>::active();
    basic_tape<T>::active() = t;
    return before;
  }
};
}  // namespace detail

template <class T>
std::vector<std::optional<T>> basic_tape<T>::gradients(std::span<const real<T>> targets,
                                                       std::span<const real<T>> sources,
                                                       const gradient_options<T>& options) {
  sweep(targets, sources, options);
  const bool reach = options.unconnected_gradients == unconnected::none;
  std::vector<std::optional<T>> result(sources.size());
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const detail::index_t i = sources[k].index();
    const bool connected = i != 0 && (!reach || (flags_[i] & 2));
    if (connected)
      result[k] = adjoints_[i];
    else if (options.unconnected_gradients == unconnected::zero)
      result[k] = T(0);
  }
  return result;
}

}  // namespace etad
