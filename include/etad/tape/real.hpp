// etad/tape/real.hpp — real<T>: a value recorded on a tape, and a leaf of etad's expressions.
// Arithmetic on reals builds the same expression types as the static layer; assigning an
// expression to a real records ONE statement whose local partials the static sweep derived at
// compile time (one partial per real leaf), not one entry per operator.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/core/expression.hpp>
#include <etad/static/detail/sweep.hpp>
#include <etad/static/evaluate.hpp>
#include <etad/tape/tape.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <type_traits>

namespace etad {

namespace detail {

template <class E>
inline constexpr std::size_t active_leaf_count = is_active_leaf_v<E> ? 1 : 0;
template <class Op, class... C>
inline constexpr std::size_t active_leaf_count<node<Op, C...>> = (active_leaf_count<C> + ... + 0);

// Visits every active leaf occurrence of e with the adjoint its frame accumulated.
template <class E, class S, class F>
constexpr void for_each_active_leaf(const E& e, const frame<E, S>& fr, F& f) {
  if constexpr (is_active_leaf_v<E>) {
    f(e, fr.adjoint);
  } else if constexpr (is_node_v<E> && active_leaf_count<E> != 0) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      in_order({(for_each_active_leaf(get<I>(e.children), get<I>(fr.kids), f), 0)...});
    }(std::make_index_sequence<E::arity>{});
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
  /// Records e on the active tape: one statement, one partial per real leaf of e.
  template <expression E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, real> && !std::is_same_v<std::remove_cvref_t<E>, T>)
  real(const E& e) : real(detail::record<T>(e)) {}

  real(const real&) = default;
  real& operator=(const real&) = default;
  /// Alias-safe: `z = z * z` computes from the old z, then rebinds z to the new statement.
  template <expression E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, real>)
  real& operator=(const E& e) {
    return *this = detail::record<T>(e);
  }
  real& operator=(const T& v) { return *this = real(v); }

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

/// Value and local partials of e by the static sweep, then one statement on the active tape.
/// Always inlined: otherwise the caller must store the expression (built with 8-byte stores) to
/// pass it by reference, and record's wide loads of it stall on store forwarding — measured 1.4x
/// on the chain benchmark. Inlined, the expression never reaches memory.
template <class T, class E>
ETAD_ALWAYS_INLINE real<T> record(const E& e) {
  using S = T;
  constexpr std::size_t leaves = active_leaf_count<E>;
  sweep_for<S, 0, E> sw{};
  frame<E, S> fr{};
  sw.forward_slots();
  const S v = static_cast<S>(sw.forward(e, fr));
  if constexpr (leaves == 0) {
    return real<T>(v);
  } else {
    // Constants in, constant out: nothing is recorded when no leaf is on a tape, or while
    // recording is stopped.
    // t: nullptr with no tape and while recording is paused (told apart below, off the hot path).
    basic_tape<T>* t = basic_tape<T>::recording();
    bool any = false;
    auto scan = [&](const auto& leaf, const S&) {
      any = any || leaf.index() != 0;
#if ETAD_CHECKED
      if (t != nullptr && leaf.epoch() != 0 && leaf.epoch() != t->epoch())
        throw error("etad: an expression uses a real recorded on another tape or before "
                    "reset(); reals are valid only on the tape, and in the epoch, that made them");
#endif
    };
    for_each_active_leaf(e, fr, scan);
    if (!any) return real<T>(v);
    if (t == nullptr) [[unlikely]] {
      if (paused_recording<T> != 0) return real<T>(v);
      throw error("etad: an expression of reals was assigned with no active tape; create an "
                  "etad::tape first (or compute values only inside etad::stop_recording)");
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
    for_each_active_leaf(e, fr, write);
    return real<T>(v, defined, t->epoch());
  }
}

}  // namespace detail

}  // namespace etad
