// etad/custom/detail/entry_arguments.hpp — what custom_gradient, recompute_grad and
// checkpointed_loop share: their arguments (reals, numbers, contiguous ranges of reals), a forward
// pass recorded and taken back to find the reals it read, and the recording state of a callback.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/reduce.hpp>
#include <etad/tape/tape.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <ranges>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace etad {

/// A real of the tape that a run-time custom gradient's forward pass read without taking it as
/// an argument (TensorFlow's `variables`): custom_gradient hands the gradient function a span of
/// them, in the order they were recorded, to say which gradient goes to which. It tells which
/// real it is (`variables[k] == w`), not its value: the tape keeps indices, not values.
template <class T = double>
class captured {
public:
  captured() = default;
  captured(detail::index_t index, std::uint32_t epoch) : index_(index), epoch_(epoch) {}
  detail::index_t index() const noexcept { return index_; }
  std::uint32_t epoch() const noexcept { return epoch_; }
  friend bool operator==(const captured& c, const real<T>& r) noexcept {
    return c.index_ == r.index() && c.epoch_ == r.epoch();
  }
  friend bool operator==(const captured&, const captured&) = default;

private:
  detail::index_t index_ = 0;
  std::uint32_t epoch_ = 0;
};

namespace detail {

/// An argument of custom_gradient / recompute_grad: a real, a number (a constant), or a
/// contiguous range of reals (std::vector, std::array, std::span).
template <class A>
inline constexpr bool entry_argument_v = is_real_v<A> || arithmetic<A> || real_range<A>;

template <class A>
struct entry_scalar {
  using type = void;
};
template <class T>
struct entry_scalar<real<T>> {
  using type = T;
};
template <class A>
  requires real_range<A>
struct entry_scalar<A> {
  using type = typename real_of<A>::value_type;
};
/// The value type of the first real (or range of reals) among A, or void.
template <class... A>
struct entry_value;
template <>
struct entry_value<> {
  using type = void;
};
template <class A, class... R>
struct entry_value<A, R...> {
  using type = std::conditional_t<std::is_void_v<typename entry_scalar<A>::type>,
                                  typename entry_value<R...>::type,
                                  typename entry_scalar<A>::type>;
};
/// Whether every real among A (alone or in a range) is a real<T>.
template <class T, class... A>
inline constexpr bool entry_reals_of_v =
    ((std::is_void_v<typename entry_scalar<A>::type> ||
      std::is_same_v<typename entry_scalar<A>::type, T>) &&
     ...);

/// How many reals argument a contributes to the entry's inputs (a number: one, a constant).
template <class A>
std::size_t input_count(const A& a) {
  if constexpr (real_range<A>)
    return std::ranges::size(a);
  else
    return 1;
}
/// Appends a's tape indices (0 for a number or a constant real).
template <class A>
void append_indices(std::vector<index_t>& out, const A& a) {
  if constexpr (real_range<A>) {
    for (const auto& r : a) out.push_back(r.index());
  } else if constexpr (is_real_v<A>) {
    out.push_back(a.index());
  } else {
    out.push_back(0);
  }
}
/// Throws unless every real in a is a constant or a real tape t accepts (basic_tape::accepts).
template <class T, class A>
void check_epoch(const A& a, const basic_tape<T>& t, const char* who) {
  auto one = [&](std::uint32_t e) {
    if (e != 0 && !t.accepts(e))
      throw error(foreign_real_message<T>(
          e, (std::string(who) + " was given").c_str(),
          (std::string("etad: ") + who +
           " was given a real recorded on another tape or before reset(); reals are valid only "
           "on the tape, and in the epoch, that made them (a real made inside a "
           "custom_gradient, recompute_grad or checkpointed_loop function is valid only inside "
           "it)").c_str()));
  };
  if constexpr (real_range<A>) {
    for (const auto& r : a) one(r.epoch());
  } else if constexpr (is_real_v<A>) {
    one(a.epoch());
  }
}

/// The value of something a user's function returned for a tape of values T: a number, a real
/// of T (its value), or an expression (computed: recording is paused where this is called for
/// a tape of T; for a nested tape's values, reals of the outer tape, an expression of those is
/// recorded there, which is what makes second derivatives through it).
template <class T, class X>
T value_of(const X& x) {
  if constexpr (std::is_same_v<X, real<T>>) {
    return x.value();
  } else if constexpr (expression<X>) {
    using R = decltype(real(x));  // the real the expression is assigned to
    if constexpr (std::is_same_v<typename R::value_type, T>) {
      return R(x).value();
    } else if constexpr (std::is_same_v<R, T>) {
      return T(x);  // an expression of an outer tape's reals, for a nested tape: recorded there
    } else {
      static_assert(sizeof(X) == 0,
                    "etad: a custom gradient's function returned an expression of reals of "
                    "another type than the tape's; return values of the tape's type");
      return T{};
    }
  } else if constexpr (std::is_convertible_v<const X&, T>) {
    return T(x);
  } else {
    static_assert(sizeof(X) == 0,
                  "etad: a custom gradient's function must return numbers, reals or "
                  "expressions of reals (one per output or input)");
    return T{};
  }
}

/// A value of what a user's function returned, and its index when it is a real (0 otherwise).
template <class T, class X>
std::pair<T, index_t> value_and_index(const X& x) {
  if constexpr (std::is_same_v<X, real<T>>) {
    return {x.value(), x.index()};
  } else if constexpr (expression<X>) {
    using R = decltype(real(x));
    if constexpr (std::is_same_v<typename R::value_type, T>) {
      const R r(x);
      return {r.value(), r.index()};
    } else {
      return {value_of<T>(x), 0};
    }
  } else {
    return {value_of<T>(x), 0};
  }
}

template <class X>
inline constexpr bool tuple_like_v = requires { std::tuple_size<X>::value; };

/// Outputs given as a range of reals whose length is known at run time (a std::vector, a span);
/// a std::array of reals is tuple-like: as many outputs as its size, known at compile time.
template <class Out>
concept output_range = real_range<Out> && !tuple_like_v<Out>;

/// The outputs a forward function returned: one value (a real, an expression or a number), a
/// tuple-like of those (std::array, std::tuple, std::pair: as many outputs, known at compile
/// time), or a contiguous range of reals (as many as it holds, known at run time).
template <class Out>
constexpr std::size_t static_output_count() {
  if constexpr (tuple_like_v<Out>)
    return std::tuple_size_v<Out>;
  else
    return 1;
}

/// Visits the outputs in order: f(output).
template <class Out, class F>
void for_each_output(const Out& out, F&& f) {
  if constexpr (output_range<Out>) {
    for (const auto& r : out) f(r);
  } else if constexpr (tuple_like_v<Out>) {
    std::apply([&](const auto&... o) { (f(o), ...); }, out);
  } else {
    f(out);
  }
}

/// Appends to `reads` the indices below the mark, 0 excluded, that what was recorded since m
/// takes as inputs, and those of `extra` (unsorted, with repeats; variables_of sorts what it
/// keeps): the reals a forward pass read.
template <class T>
void collect_reads(const basic_tape<T>& t, const typename callback_access<T>::mark& m,
                   const std::vector<index_t>& extra, std::vector<index_t>& reads) {
  const index_t below = m.store.next;
  callback_access<T>::for_each_input_since(t, m, [&](index_t i) {
    if (i != 0 && i < below) reads.push_back(i);
  });
  for (index_t i : extra)
    if (i != 0 && i < below) reads.push_back(i);
}

/// The entries of `reads` that are not in `inputs`, sorted and without repeats, into `out`
/// (cleared first). Few inputs (the usual call) are searched as they are: no sort, no copy.
inline void variables_of(std::vector<index_t>& reads, const std::vector<index_t>& inputs,
                         std::vector<index_t>& out) {
  out.clear();
  if (inputs.size() <= 16) {
    for (index_t i : reads)
      if (std::find(inputs.begin(), inputs.end(), i) == inputs.end()) out.push_back(i);
  } else {
    std::vector<index_t> sorted(inputs);
    std::sort(sorted.begin(), sorted.end());
    for (index_t i : reads)
      if (!std::binary_search(sorted.begin(), sorted.end(), i)) out.push_back(i);
  }
  if (out.size() > 1) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

/// "index 3", "indices 3, 5 and 9": for messages.
inline std::string index_list(const std::vector<index_t>& v) {
  std::string s = v.size() == 1 ? "index " : "indices ";
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (k != 0) s += k + 1 == v.size() ? " and " : ", ";
    s += std::to_string(v[k]);
  }
  return s;
}

/// A pass on tape t while it lives: a forward pass or a recomputation, recorded in an epoch of
/// its own (callback_access::begin_pass) and taken back when it leaves scope or at end() (also
/// when it throws). A real or block made in the pass and used after it is then an error, as one
/// from before reset() is, not a handle on whatever the tape records next at its index.
template <class T>
class recording_pass {
public:
  explicit recording_pass(basic_tape<T>& t) : t_(&t), m_(callback_access<T>::begin_pass(t)) {}
  recording_pass(const recording_pass&) = delete;
  recording_pass& operator=(const recording_pass&) = delete;
  ~recording_pass() {
    if (t_ != nullptr) callback_access<T>::end_pass(*t_, m_);
  }
  /// Where the pass began.
  const typename callback_access<T>::mark& mark() const noexcept { return m_; }
  void end() noexcept {
    callback_access<T>::end_pass(*t_, m_);
    t_ = nullptr;
  }

private:
  basic_tape<T>* t_;
  typename callback_access<T>::mark m_;
};

/// While it lives, tape t records expressions of reals of T on this thread, whatever tape was
/// active and whether recording was paused (a recomputation in the backward sweep, which may run
/// inside stop_recording or while a newer tape is active); the state before comes back after.
template <class T>
class recording_on {
public:
  explicit recording_on(basic_tape<T>& t)
      : paused_(paused_recording<T>), active_(callback_access<T>::swap_active(&t)) {
    paused_recording<T> = 0;
    ++swapped_active<T>;
    refresh_recording_tape<T>();
  }
  recording_on(const recording_on&) = delete;
  recording_on& operator=(const recording_on&) = delete;
  ~recording_on() {
    --swapped_active<T>;
    callback_access<T>::swap_active(active_);
    paused_recording<T> = paused_;
    refresh_recording_tape<T>();
  }

private:
  int paused_;
  basic_tape<T>* active_;
};

[[noreturn]] inline void entry_without_tape(const char* who) {
  throw error(std::string("etad: ") + who +
              " was given a real with no active tape; create an etad::tape first (or compute "
              "values only inside etad::stop_recording)");
}

}  // namespace detail
}  // namespace etad
