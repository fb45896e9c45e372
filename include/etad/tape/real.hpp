// etad/tape/real.hpp — real<T>: a value recorded on a tape, and a leaf of etad's expressions.
// Arithmetic on reals builds the same expression types as the static layer; assigning an
// expression to a real records ONE statement whose local partials the static sweep derived at
// compile time (one partial per real leaf, repeats merged where the optimizer can tell), not one
// entry per operator.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/core/expression.hpp>
#include <etad/core/rule.hpp>
#include <etad/static/detail/sweep.hpp>
#include <etad/static/evaluate.hpp>
#include <etad/tape/tape.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <type_traits>
#include <utility>

namespace etad {

namespace detail {

template <class E>
inline constexpr std::size_t active_leaf_count = is_active_leaf_v<E> ? 1 : 0;
template <class Op, class... C>
inline constexpr std::size_t active_leaf_count<node<Op, C...>> =
    sum_of({active_leaf_count<C>...});

/// The active leaves that are a statement's inputs: those reached through differentiable rules
/// only. A leaf under stop_gradient, floor (any rule with differentiable = false) or a
/// comparison (select's condition) gets no gradient, so the statement does not list it: an
/// input with partial 0 would be "connected" for unconnected::none, where TensorFlow (whose
/// ops give no gradient there) says None.
template <class E>
inline constexpr std::size_t input_leaf_count = is_active_leaf_v<E> ? 1 : 0;
template <class Op, class... C>
inline constexpr std::size_t input_leaf_count<node<Op, C...>> =
    is_differentiable_v<Op> ? sum_of({input_leaf_count<C>...}) : 0;

// Visits every active leaf occurrence of e (Inputs: only those input_leaf_count counts) with
// the adjoint its frame accumulated.
template <bool Inputs, class E, class S, class F>
constexpr void for_each_active_leaf(const E& e, const frame<E, S>& fr, F& f) {
  if constexpr (is_active_leaf_v<E>) {
    f(e, fr.adjoint);
  } else if constexpr (is_node_v<E> &&
                       (Inputs ? input_leaf_count<E> : active_leaf_count<E>) != 0) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      in_order({(for_each_active_leaf<Inputs>(detail::get<I>(e.children),
                                              detail::get<I>(fr.kids), f),
                 0)...});
    }(std::make_index_sequence<E::arity>{});
  }
}

// The ordinal of child I's first input leaf among its node's (a prefix sum of the children's
// input leaf counts).
template <class E, std::size_t I>
inline constexpr std::size_t leaves_before = 0;
template <class Op, class... C, std::size_t I>
inline constexpr std::size_t leaves_before<node<Op, C...>, I> = [] {
  constexpr std::size_t count[] = {input_leaf_count<C>...};
  std::size_t s = 0;
  for (std::size_t i = 0; i < I; ++i) s += count[i];
  return s;
}();

// for_each_active_leaf<true> (the input leaves) with each leaf's ordinal (0, 1, ... in visiting
// order) as a constant:
// f(std::integral_constant<std::size_t, K>{}, leaf, adjoint). Always inlined, and f is a
// functor rather than a lambda for the same reason: record() relies on the optimizer seeing
// every leaf's index where the expression was built (known_equal). It is used only for the
// statements record() may merge (at most max_merged_leaves leaves); the plain visit above stays
// for the rest, since forcing inlining through large expressions is what made g++ compile a
// 1000-term sum 13x slower (docs/compile-time.md).
template <std::size_t Base, class E, class S, class F>
ETAD_ALWAYS_INLINE void for_each_active_leaf_at(const E& e, const frame<E, S>& fr, F& f);

template <std::size_t Base, class E, class S, class F, std::size_t... I>
ETAD_ALWAYS_INLINE void for_each_child_leaf_at(const E& e, const frame<E, S>& fr, F& f,
                                                std::index_sequence<I...>) {
  in_order({(for_each_active_leaf_at<Base + leaves_before<E, I>>(detail::get<I>(e.children),
                                                                 detail::get<I>(fr.kids), f),
             0)...});
}

template <std::size_t Base, class E, class S, class F>
ETAD_ALWAYS_INLINE void for_each_active_leaf_at(const E& e, const frame<E, S>& fr, F& f) {
  if constexpr (is_active_leaf_v<E>) {
    f(std::integral_constant<std::size_t, Base>{}, e, fr.adjoint);
  } else if constexpr (is_node_v<E> && input_leaf_count<E> != 0) {
    for_each_child_leaf_at<Base>(e, fr, f, std::make_index_sequence<E::arity>{});
  }
}

template <class T, class E>
real<T> record(const E& e);

template <class T>
real<T> recorded_real(const T& v, index_t i, std::uint32_t epoch);

template <class T>
std::uint64_t key_of(const real<T>& r) noexcept;

}  // namespace detail

/// real<T>: a value of type T with its index on the tape that recorded it (index 0: a constant,
/// on no tape). 16 bytes for T = double. Copying a real copies the handle, not the statement.
template <class T = double>
class real {
public:
  using etad_expression = void;
  using value_type = T;
  static constexpr bool input_only = false;
  static constexpr bool active_leaf = true;

  /// A constant 0 (on no tape).
  constexpr real() = default;
  /// A constant (on no tape): its gradient is zero.
  constexpr real(const T& v) : value_(v) {}
  template <arithmetic A>
    requires(!std::is_same_v<A, T> && std::is_convertible_v<A, T>)
  constexpr real(A v) : value_(static_cast<T>(v)) {}
  /// Records e on the active tape: one statement, one partial per real leaf of e (occurrences
  /// the optimizer proves to be one real share one partial, their sum).
  /// Always inlined, as record() is: the optimizer must see where e was built to tell which of
  /// its leaves are one real (called, the expression is read back from memory: no merges).
  template <expression E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, real> && !std::is_same_v<std::remove_cvref_t<E>, T>)
  ETAD_ALWAYS_INLINE real(const E& e) : real(detail::record<T>(e)) {}

  real(const real&) = default;
  real& operator=(const real&) = default;
  /// Alias-safe: `z = z * z` computes from the old z, then rebinds z to the new statement.
  template <expression E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, real>)
  ETAD_ALWAYS_INLINE real& operator=(const E& e) {
    return *this = detail::record<T>(e);
  }
  real& operator=(const T& v) { return *this = real(v); }
  /// A number of another type that converts to T (for real<real<double>>, a double): without
  /// it, `y = 0.25` was ambiguous between the two assignments above.
  template <arithmetic A>
    requires(!std::is_same_v<A, T> && std::is_convertible_v<A, T>)
  real& operator=(A v) {
    return *this = real(v);
  }

  template <operand R> real& operator+=(const R& r) { return *this = *this + r; }
  template <operand R> real& operator-=(const R& r) { return *this = *this - r; }
  template <operand R> real& operator*=(const R& r) { return *this = *this * r; }
  template <operand R> real& operator/=(const R& r) { return *this = *this / r; }

  constexpr const T& value() const noexcept { return value_; }
  constexpr detail::index_t index() const noexcept { return index_; }
  constexpr std::uint32_t epoch() const noexcept { return epoch_; }
  /// True for a constant (no tape index): nothing flows back through it.
  constexpr bool is_constant() const noexcept { return index_ == 0; }

  friend std::ostream& operator<<(std::ostream& os, const real& r) { return os << r.value_; }

private:
  friend class basic_tape<T>;
  template <class U, class E>
  friend real<U> detail::record(const E& e);
  friend real detail::recorded_real<T>(const T& v, detail::index_t i, std::uint32_t epoch);
  friend std::uint64_t detail::key_of<T>(const real& r) noexcept;
  real(const T& v, detail::index_t i, std::uint32_t epoch) : value_(v), index_(i), epoch_(epoch) {}

  T value_{};
  detail::index_t index_ = 0;
  std::uint32_t epoch_ = 0;
};

template <expression E>
real(const E&) -> real<scalar_t<E>>;

namespace detail {

template <class T>
real<T> recorded_real(const T& v, index_t i, std::uint32_t epoch) {
  return real<T>(v, i, epoch);
}

/// index | epoch << 32: a real's place on a tape as one number, so that loops over ranges of
/// reals (is it k consecutive indices of one epoch?) compare one 8-byte word per element, which
/// vectorizes well, rather than two 4-byte fields.
template <class T>
ETAD_ALWAYS_INLINE std::uint64_t key_of(const real<T>& r) noexcept {
  if constexpr (std::endian::native == std::endian::little &&
                offsetof(real<T>, epoch_) == offsetof(real<T>, index_) + sizeof(index_t)) {
    std::uint64_t k;
    std::memcpy(&k, &r.index_, sizeof k);  // index_ and epoch_, adjacent
    return k;
  } else {
    return std::uint64_t(r.index_) | (std::uint64_t(r.epoch_) << 32);
  }
}

/// True when the optimizer proves a == b once record() is inlined into the code that built the
/// expression (both are copies of one real's index); false when it cannot tell, without
/// optimization, and without __builtin_constant_p. Never a run-time comparison: what it
/// decides folds away.
ETAD_ALWAYS_INLINE bool known_equal(index_t a, index_t b) noexcept {
#if ETAD_HAS_CONSTANT_P
  return __builtin_constant_p(a == b) && a == b;
#else
  (void)a;
  (void)b;
  return false;
#endif
}

/// Statements of at most this many leaf occurrences merge their known repeated inputs
/// (record()); longer ones keep one partial per occurrence. The plan is L (L - 1) / 2 candidate
/// pairs, all decided at compile time, so the bound is on compile time, not run time.
inline constexpr std::size_t max_merged_leaves = 16;

/// known_equal as a function object: the equality plan_merge asks by default.
struct known_equal_fn {
  ETAD_ALWAYS_INLINE bool operator()(index_t a, index_t b) const noexcept {
    return known_equal(a, b);
  }
};

/// The first leaf J < K whose index eq says equals leaf K's, or K itself when there is none.
template <std::size_t K, std::size_t L, class Equal, std::size_t... J>
ETAD_ALWAYS_INLINE std::size_t first_equal(const index_t (&in)[L], const Equal& eq,
                                           std::index_sequence<J...>) {
  std::size_t into = K;
  (void)((eq(in[J], in[K]) ? (into = J, true) : false) || ...);
  return into;
}

/// Plans the merge of a statement's leaves, in leaf order: leaf K goes into the leaf that its
/// first equal leaf J went into (into[J], a kept leaf: the compiler's answers need not be
/// transitive, so J itself may have been merged into an earlier leaf that K is not known equal
/// to; each answer is also a true equality, so all of them are one index), or stays (into[K] =
/// K, keep[K]). Returns how many leaves are kept. With eq = known_equal_fn (record()),
/// everything here folds to constants in an optimized build.
template <std::size_t L, class Equal, std::size_t... K>
ETAD_ALWAYS_INLINE std::size_t plan_merge(const index_t (&in)[L], std::size_t (&into)[L],
                                          bool (&keep)[L], const Equal& eq,
                                          std::index_sequence<K...>) {
  ((into[K] = K, into[K] = into[first_equal<K>(in, eq, std::make_index_sequence<K>{})],
    keep[K] = into[K] == K),
   ...);
  return (std::size_t(keep[K]) + ...);
}

/// Adds each merged leaf's partial to its kept leaf's (into[K]), in leaf order.
template <class S, std::size_t L, std::size_t... K>
ETAD_ALWAYS_INLINE void apply_merge(S (&p)[L], const std::size_t (&into)[L],
                                    std::index_sequence<K...>) {
  ((into[K] != K ? (p[into[K]] += p[K], 0) : 0), ...);
}

/// Writes the kept leaves' partials and inputs to a statement's slot, in leaf order.
template <class S, std::size_t L, class Slot, std::size_t... K>
ETAD_ALWAYS_INLINE void write_kept(const Slot& slot, const index_t (&in)[L], const S (&p)[L],
                                   const bool (&keep)[L], std::index_sequence<K...>) {
  std::size_t j = 0;
  ((keep[K] ? (slot.partial[j] = p[K], slot.input[j] = in[K], ++j) : j), ...);
}

// Collects leaves' indices (and their partials, once the sweep has them) at their ordinals
// (for_each_active_leaf_at).
template <std::size_t L>
struct index_gather {
  index_t (&in)[L];
  template <std::size_t K, class Leaf, class S>
  ETAD_ALWAYS_INLINE void operator()(std::integral_constant<std::size_t, K>, const Leaf& leaf,
                                     const S&) const {
    in[K] = leaf.index();
  }
};
template <class S, std::size_t L>
struct partial_gather {
  S (&p)[L];
  template <std::size_t K, class Leaf>
  ETAD_ALWAYS_INLINE void operator()(std::integral_constant<std::size_t, K>, const Leaf&,
                                     const S& partial) const {
    p[K] = partial;
  }
};

/// The error for a real of another tape or epoch in an expression (e: its epoch, or 0 where
/// only its index is known to be wrong).
template <class T>
[[noreturn, gnu::noinline, gnu::cold]] void expression_foreign_real(std::uint32_t e) {
  throw error(foreign_real_message<T>(
      e, "an expression uses",
      "etad: an expression uses a real recorded on another tape or before reset(); reals are "
      "valid only on the tape, and in the epoch, that made them (a real made inside a "
      "custom_gradient, recompute_grad or checkpointed_loop function is valid only inside "
      "it)"));
}

/// The tape to record a statement on, or null when nothing is recorded: constants in, constant
/// out (no leaf on a tape: `any` false), and nothing while recording is paused. A missing tape
/// (when some leaf is on one) and, in checked builds, a leaf of another tape or epoch throw.
template <class T, class E, class S>
ETAD_ALWAYS_INLINE basic_tape<T>* active_recording(const E& e, const frame<E, S>& fr,
                                                   bool any) {
  // nullptr with no tape and while recording is paused (told apart below, off the hot path).
  basic_tape<T>* t = basic_tape<T>::recording();
#if ETAD_CHECKED
  auto check = [&](const auto& leaf, const S&) {
    if (t != nullptr && leaf.epoch() != 0 && !t->accepts(leaf.epoch()))
      expression_foreign_real<T>(leaf.epoch());
  };
  for_each_active_leaf<false>(e, fr, check);
#else
  (void)e;
  (void)fr;
#endif
  if (!any) return nullptr;
  if (t == nullptr) [[unlikely]] {
    if (paused_recording<T> != 0) return nullptr;
    throw error("etad: an expression of reals was assigned with no active tape; create an "
                "etad::tape first (or compute values only inside etad::stop_recording)");
  }
  return t;
}

/// Value and local partials of e by the static sweep, then one statement on the active tape.
/// Always inlined: otherwise the caller must store the expression (built with 8-byte stores) to
/// pass it by reference, and record's wide loads of it stall on store forwarding — measured 1.4x
/// on the chain benchmark. Inlined, the expression never reaches memory.
/// Whether every active leaf of e is a real<T>: a real of another scalar type (a real<float> in
/// an expression assigned to a real<double>, an outer tape's real<double> used as it is in a
/// nested tape's expression) is not an input the active tape can have.
template <class E, class T>
inline constexpr bool leaves_of_tape_v = !is_active_leaf_v<E> || std::is_same_v<E, real<T>>;
template <class Op, class... C, class T>
inline constexpr bool leaves_of_tape_v<node<Op, C...>, T> = all_v<leaves_of_tape_v<C, T>...>;

template <class T, class E>
ETAD_ALWAYS_INLINE real<T> record(const E& e) {
  static_assert(leaves_of_tape_v<E, T>,
                "etad: an expression mixes reals of different types (real<float> with "
                "real<double>, or a nested tape's reals with its outer tape's); an outer real p "
                "enters a nested tape's expression as etad::real<etad::real<double>>(p), a "
                "constant there whose value keeps its outer derivatives");
  using S = T;
  constexpr std::size_t leaves = input_leaf_count<E>;     // the statement's inputs
  constexpr std::size_t all_leaves = active_leaf_count<E>;  // on a tape: a statement
  sweep_for<S, 0, E> sw{};
  frame<E, S> fr{};
  if constexpr (ETAD_MERGE_REPEATED_INPUTS && std::is_floating_point_v<S> && leaves >= 2 &&
                leaves <= max_merged_leaves) {
    // One partial per distinct input where the compiler can tell: in `t * t`, or in
    // sin(t) * cos(y * t), both leaves are copies of one real, so the optimizer knows their
    // indices are equal, and the statement gets one input, t, with the two partials' sum.
    // Fewer partials to store and sweep, and no chain of read-modify-writes of one adjoint in
    // the sweep. Leaves it cannot tell apart at compile time (two reals that may or may not be
    // one) stay separate: still exact, and no run-time search. (The sweep computes
    // a * (p1 + p2) rather than a * p1 + a * p2, so a gradient may round differently between
    // builds that merge and builds that do not, e.g. with and without optimization; define
    // ETAD_MERGE_REPEATED_INPUTS=0 to never merge.)
    index_t in[leaves];
    index_gather<leaves> indices{in};
    for_each_active_leaf_at<0>(e, fr, indices);
    std::size_t into[leaves];
    bool keep[leaves];
    const std::size_t n =
        plan_merge(in, into, keep, known_equal_fn{}, std::make_index_sequence<leaves>{});
    sw.forward_slots();
    const S v = static_cast<S>(sw.forward(e, fr));
    index_t any = 0;
    for (std::size_t k = 0; k < leaves; ++k) any |= in[k];
    if constexpr (all_leaves != leaves) {
      auto scan = [&](const auto& leaf, const S&) { any |= leaf.index(); };
      for_each_active_leaf<false>(e, fr, scan);
    }
    basic_tape<T>* t = active_recording<T>(e, fr, any != 0);
    if (t == nullptr) return real<T>(v);
    // Memory safety in every build: no input at or past the next index (see call()).
    {
      const index_t next = t->next_index();
      bool past = false;
      for (std::size_t k = 0; k < leaves; ++k) past |= in[k] >= next;
      if (past) [[unlikely]]
        expression_foreign_real<T>(0);
    }
    sw.backward(e, fr, S(1));
    S p[leaves];
    partial_gather<S, leaves> partials{p};
    for_each_active_leaf_at<0>(e, fr, partials);
    apply_merge(p, into, std::make_index_sequence<leaves>{});
    index_t defined;
    write_kept(t->record(n, defined), in, p, keep, std::make_index_sequence<leaves>{});
    return real<T>(v, defined, t->epoch());
  } else {
    sw.forward_slots();
    const S v = static_cast<S>(sw.forward(e, fr));
    if constexpr (all_leaves == 0) {
      return real<T>(v);
    } else {
      bool any = false;
      auto scan = [&](const auto& leaf, const S&) { any = any || leaf.index() != 0; };
      for_each_active_leaf<false>(e, fr, scan);
      basic_tape<T>* t = active_recording<T>(e, fr, any);
      if (t == nullptr) return real<T>(v);
      {
        // Memory safety in every build: no input at or past the next index (see call()).
        const index_t next = t->next_index();
        bool past = false;
        auto bound = [&](const auto& leaf, const S&) { past |= leaf.index() >= next; };
        for_each_active_leaf<false>(e, fr, bound);
        if (past) [[unlikely]]
          expression_foreign_real<T>(0);
      }
      sw.backward(e, fr, S(1));
      index_t defined;
      auto slot = t->record(leaves, defined);
      std::size_t k = 0;
      auto write = [&](const auto& leaf, const S& partial) {
        slot.partial[k] = partial;
        slot.input[k] = leaf.index();
        ++k;
      };
      for_each_active_leaf<true>(e, fr, write);
      return real<T>(v, defined, t->epoch());
    }
  }
}

}  // namespace detail

}  // namespace etad
