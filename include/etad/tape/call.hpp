// etad/tape/call.hpp — call(f, a, b, ...): a fixed formula inside dynamic code as ONE tape
// statement. f is an ordinary etad function (a generic lambda), differentiated at compile time
// with respect to its arguments, so the statement holds one partial per active real argument,
// however large f is, however often it uses an argument and whatever subexpressions it shares:
//   t = etad::call([](auto t, auto y) { const auto tt = t * t; return sin(tt) / (1 + y * tt); },
//                  t, y);    // one statement of 2 partials, tt computed once
// Assigning the same formula to a real records one statement too, but its inputs are the leaf
// occurrences (t appears 4 times), merged only where the optimizer proves them one real, and a
// shared subexpression must be a real of its own (a second statement) to be computed once.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/static/gradient.hpp>
#include <etad/tape/map_reduce.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/reduce.hpp>
#include <etad/tape/tape.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <type_traits>
#include <utility>

namespace etad {

namespace detail {

template <class A>
inline constexpr bool call_argument_v = is_real_v<A> || arithmetic<A>;

/// Whether every real among A is a real<T>.
template <class T, class... A>
inline constexpr bool call_reals_of_v = ((!is_real_v<A> || std::is_same_v<A, real<T>>) && ...);

template <class T, class A>
ETAD_ALWAYS_INLINE T call_value(const A& a) {
  if constexpr (is_real_v<A>)
    return a.value();
  else
    return T(a);
}
template <class A>
ETAD_ALWAYS_INLINE index_t call_index(const A& a) {
  if constexpr (is_real_v<A>)
    return a.index();
  else
    return 0;
}
template <class A>
ETAD_ALWAYS_INLINE std::uint32_t call_epoch(const A& a) {
  if constexpr (is_real_v<A>)
    return a.epoch();
  else
    return 0;
}

[[noreturn, gnu::noinline, gnu::cold]] inline void call_without_tape() {
  throw error("etad: call() was given a real with no active tape; create an etad::tape first "
              "(or compute values only inside etad::stop_recording)");
}
template <class T, class... E>
[[noreturn, gnu::noinline, gnu::cold]] void call_foreign_real(const basic_tape<T>* t,
                                                              E... epochs) {
  std::uint32_t e = 0;
  ((e == 0 && epochs != 0 && !t->accepts(epochs) ? (e = epochs, 0) : 0), ...);
  throw error(foreign_real_message<T>(
      e, "call() was given",
      "etad: call() was given a real recorded on another tape or before reset(); reals are "
      "valid only on the tape, and in the epoch, that made them (a real made inside a "
      "custom_gradient, recompute_grad or checkpointed_loop function is valid only inside it)"));
}

/// The statement of call(f, args...) (J: 0 .. k - 1). Listed inputs: the real arguments that f
/// reaches through differentiable rules (reaches_input, as for map_sum and as a scalar
/// statement's leaves); the statement is recorded when any real argument is on the tape, listed
/// or not (as map_sum does: the value may depend on it without a derivative), with the listed
/// ones that are not constants as inputs.
// The function's program takes its partials early, as the static front doors do, also where
// no statement is then recorded (constants in, or recording paused), so that a user's
// partials() runs there too. Values only on that path, the version tried first, changed g++'s
// code for the loop of call()s in chain/10 (it split the loop in two and no longer merged
// sin(t) with its partial cos(t) into one sincos): 6.5 % more instructions, 8 % more time.
// Where nothing is recorded for want of a tape (none, or recording paused) the value alone, out
// of line: a
// loop that runs a call() with recording paused (a checkpointed loop's steps on values) skips
// the partials its rules compute with their values (sincos for sin), and the recording path's
// code is what it was (chain/10: the same instruction count, tools/call_sites.sh).
template <class T, class F, class... A>
[[gnu::noinline]] real<T> call_unrecorded(F& f, const A&... args) {
  constexpr std::size_t k = sizeof...(A);
  if (((call_index(args) != 0) || ...)) {
    if (paused_recording<T> == 0) call_without_tape();
  }
  auto prog = make_program<T, k>(f);
  return real<T>(prog.template forward<false>({call_value<T>(args)...})[0]);
}

template <class T, class F, class... A, std::size_t... J>
ETAD_ALWAYS_INLINE real<T> call_statement(F& f, std::index_sequence<J...>, const A&... args) {
  constexpr std::size_t k = sizeof...(A);
  using P = decltype(make_program<T, k>(f));
  constexpr bool listed[k] = {(is_real_v<A> && P::template reaches_input<J>)...};
  constexpr std::size_t listed_count = (std::size_t(listed[J]) + ...);
  basic_tape<T>* t = basic_tape<T>::recording();
  if (t == nullptr) [[unlikely]]
    return call_unrecorded<T>(f, args...);
  auto prog = make_program<T, k>(f);
  const T v = prog.forward({call_value<T>(args)...})[0];
  const index_t in[k] = {call_index(args)...};
  if ((in[J] | ...) == 0) return real<T>(v);  // constants in, a constant out
  // Memory safety in every build: an input at or past the next index (a stale or foreign real)
  // would make the sweep write outside the adjoints. (Whether a real below it is stale is
  // checked with ETAD_CHECKED, below: an epoch compare per argument cost chain/10 4.5 % of its
  // instructions, this one 1.5 %.)
  {
    const index_t next = t->next_index();
    if (((in[J] >= next) | ...)) [[unlikely]]
      call_foreign_real<T>(t, call_epoch(args)...);
  }
#if ETAD_CHECKED
  // As for scalar statements: a real of another tape or epoch, caught in checked builds.
  if (((call_epoch(args) != 0 && !t->accepts(call_epoch(args))) || ...))
    call_foreign_real<T>(t, call_epoch(args)...);
#endif
  const std::array<T, k> g = prog.backward_one();
  index_t defined;
  std::size_t q = 0;
  if (((!listed[J] || in[J] != 0) && ...)) [[likely]] {  // no constant among the listed reals
    auto slot = t->record(listed_count, defined);
    ((listed[J] ? (slot.partial[q] = g[J], slot.input[q] = in[J], ++q) : q), ...);
  } else {
    auto slot = t->record((std::size_t(listed[J] && in[J] != 0) + ...), defined);
    ((listed[J] && in[J] != 0 ? (slot.partial[q] = g[J], slot.input[q] = in[J], ++q) : q), ...);
  }
  return recorded_real<T>(v, defined, t->epoch());
}

/// The same, with every call in it inlined (for programs of at most ETAD_FLATTEN_LIMIT nodes,
/// as the static front doors do: the sweep's storage then lives in registers). Not through
/// detail::run<P>, whose flattened lambda stays a function of its own: called once per
/// statement, its entry and exit cost chain/10 about 20 instructions per iteration.
template <class T, class F, class... A, std::size_t... J>
ETAD_FLATTEN ETAD_ALWAYS_INLINE real<T> call_statement_flat(F& f, std::index_sequence<J...> j,
                                                            const A&... args) {
  return call_statement<T>(f, j, args...);
}

/// call's function object: one object, not a function template, so that an unqualified
/// `call(...)` in user code (a helper of the user's own) is not matched through an etad::real
/// argument by argument-dependent lookup.
struct call_fn {
  template <class F, class... A>
  ETAD_ALWAYS_INLINE auto operator()(F f, const A&... args) const {
    constexpr std::size_t k = sizeof...(A);
    // Each mistake with its own sentence, and nothing after it.
    if constexpr (k == 0) {
      static_assert(k > 0, "etad: call needs at least one argument after the function");
      return 0;
    } else if constexpr ((std::ranges::range<A> || ...)) {
      static_assert(sizeof(F) == 0,
                    "etad: call takes reals and numbers, not ranges; map a function over "
                    "ranges with map_sum, or use a reduction (sum, dot, log_sum_exp, ...)");
      return 0;
    } else if constexpr ((expression_argument<A> || ...)) {
      static_assert(sizeof(F) == 0,
                    "etad: call takes reals and numbers as arguments, not expressions; assign "
                    "the expression to a real first (etad::real s = mu * 2.0) and pass s");
      return 0;
    } else if constexpr (!(call_argument_v<A> && ...)) {
      static_assert(sizeof(F) == 0,
                    "etad: call's arguments must be reals (etad::real) or numbers");
      return 0;
    } else if constexpr (!call_reals_of_v<typename map_scalar<A...>::type, A...>) {
      static_assert(sizeof(F) == 0,
                    "etad: call's reals must all be of one type (all real<double>, say); "
                    "convert the others first");
      return 0;
    } else if constexpr (!traced_own_leaves_v<F, k, 0>) {
      static_assert(sizeof(F) == 0,
                    "etad: call's function used a real it did not get as an argument (a "
                    "captured real would count as a constant and its gradient would be lost); "
                    "pass the real to call after the function and take it as a parameter");
      return 0;
    } else {
      using T = typename map_scalar<A...>::type;
      using P = decltype(make_program<T, k>(f));
      if constexpr (P::outputs != 1) {
        static_assert(P::outputs == 1,
                      "etad: call's function must return one value (a std::tuple of several is "
                      "not one statement); call it once per output");
        return 0;
      } else if constexpr (P::size <= ETAD_FLATTEN_LIMIT) {
        return call_statement_flat<T>(f, std::index_sequence_for<A...>{}, args...);
      } else {
        return call_statement<T>(f, std::index_sequence_for<A...>{}, args...);
      }
    }
  }
};

}  // namespace detail

/// call(f, a, b, ...): f(a, b, ...) recorded as ONE statement, with f's partials with respect to
/// its arguments derived at compile time. Arguments are reals and numbers (a number, or a
/// constant real, is a constant of f); the statement has one partial per real argument on the
/// tape that f reaches through differentiable rules (an argument used only under stop_gradient,
/// floor or a comparison stays unconnected, as in TensorFlow), however often f uses it. f is a
/// generic callable returning one value; it must take every real it uses as an argument (a
/// captured real would be a constant: a compile error). With no real on a tape, or while
/// recording is paused, the result is a constant; a real with no active tape throws
/// etad::error. Like a scalar statement, a real of another tape or epoch throws with
/// ETAD_CHECKED.
inline constexpr detail::call_fn call{};

}  // namespace etad
