// etad/static/loop.hpp — loops with a run-time trip count as one node of an expression:
//   loop(k, body, init, params...)          s = init; k times: s = body(s, params...)
//   while_loop(cond, body, init, params...) s = init; while cond(s, params...): s = body(...)
// The body is a generic function like any other etad function; its gradient is derived at
// compile time, and the loop's partials (d s_final / d init, d s_final / d param_j) are
// accumulated forwards, iteration by iteration, next to the value: no tape, no heap, memory
// independent of the trip count. The node is usable wherever expressions are: etad::gradient,
// jvp, vjp, jacobian, evaluate, and assignment to a real on a tape (one statement). Why forward
// accumulation, and the checks on the body: docs/design.md, "Loops with a run-time trip count".
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/core/expression.hpp>
#include <etad/core/rule.hpp>
#include <etad/ops/detail/numbers.hpp>
#include <etad/static/gradient.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <string_view>
#include <type_traits>
#include <utility>

namespace etad {

namespace detail {

constexpr std::size_t max_of(std::initializer_list<std::size_t> n) noexcept {
  std::size_t m = 0;
  for (std::size_t v : n) m = v > m ? v : m;
  return m;
}

/// The highest level of the placeholders in E (0 when it has none).
template <class E>
inline constexpr std::size_t arg_level_v = 0;
template <std::size_t I, std::size_t L, class O>
inline constexpr std::size_t arg_level_v<arg<I, L, O>> = L;
template <class Op, class... C>
inline constexpr std::size_t arg_level_v<node<Op, C...>> = max_of({arg_level_v<C>...});

// Named so that the compiler's note on a failing assertion shows the body's type. The body is
// called as const (loop_op holds it in a const rule): a mutable lambda does not qualify.
template <class Body, std::size_t N, std::size_t Level>
inline constexpr bool loop_body_takes_state_and_parameters_v =
    invocable_with_placeholders_v<const Body, std::make_index_sequence<N>, Level>;

/// What the body returns when traced at level L (void when it cannot be called so).
template <class Body, std::size_t N, std::size_t L,
          bool = loop_body_takes_state_and_parameters_v<Body, N, L>>
struct traced_body {
  using type = void;
};
template <class Body, std::size_t N, std::size_t L>
struct traced_body<Body, N, L, true> {
  using type = decltype(trace<N, L>(std::declval<const Body&>()));
};

/// What check_loop_body checks, in its order. Each test assumes the ones before it passed.
template <class Body, std::size_t N, std::size_t Level>
struct loop_body_check {
  // The body's result, traced at Level (the only level used since one trace suffices). An alias
  // template rather than a member type, so that it is traced only after `callable` passed.
  template <std::size_t L>
  using result = typename traced_body<Body, N, L>::type;
  static constexpr bool callable = loop_body_takes_state_and_parameters_v<Body, N, Level>;
  static constexpr bool one_value = [] {
    if constexpr (callable)
      return operand<result<Level>> && !multiple_outputs<result<Level>>;
    else
      return false;
  }();
  static constexpr bool a_number = [] {
    if constexpr (one_value && is_node_v<result<Level>>)
      return !is_predicate_v<typename result<Level>::op_type>;
    else
      return one_value;
  }();
  // The body's placeholders name its type (placeholder_t): a placeholder it captured names the
  // enclosing function's (or another loop body's) and is caught.
  static constexpr bool own_leaves = [] {
    if constexpr (a_number)
      return own_leaves_v<as_expression_t<result<Level>>, Level, Body>;
    else
      return false;
  }();
};

template <class Body, std::size_t N, std::size_t Level>
consteval void check_loop_body() {
  using C = loop_body_check<Body, N, Level>;
  static_assert(C::callable,
                "etad: a loop body must take the state and then each parameter given to the "
                "loop, as a generic lambda (not mutable) with one auto parameter for each, e.g. "
                "[](auto t, auto y) { return t * y; } for loop(k, body, t0, y)");
  if constexpr (C::callable)
    static_assert(C::one_value,
                  "etad: a loop body must return one value, the next state, as an etad "
                  "expression or a number; the state of a loop is one scalar");
  if constexpr (C::one_value)
    static_assert(C::a_number,
                  "etad: a loop body returned a comparison, which is not a state; use "
                  "select(condition, a, b) to make a number of it");
  if constexpr (C::a_number)
    static_assert(C::own_leaves,
                  "etad: a loop body used a value it did not get as a parameter (a captured "
                  "argument of the enclosing function, or a real); pass that value to the loop "
                  "after the initial state and take it as a parameter of the body");
}

/// The innermost number of a value: v itself, or the value of a real (of a real ...).
template <class V>
constexpr auto plain_value(const V& v) {
  if constexpr (requires { v.value(); })
    return plain_value(v.value());
  else
    return v;
}

/// The stopping rule of loop(): a trip count.
struct trip_count {
  std::size_t k;
  template <class S, class... P>
  constexpr bool more(std::size_t i, const S&, const P&...) const {
    return i < k;
  }
};

/// The stopping rule of while_loop(): a condition on the values, as plain numbers (on a nested
/// tape the values are reals; the condition gets their numbers).
template <class Cond>
struct stop_condition {
  [[no_unique_address]] Cond cond;
  template <class S, class... P>
  constexpr bool more(std::size_t, const S& s, const P&... p) const {
    constexpr bool callable =
        std::is_invocable_r_v<bool, const Cond&, decltype(plain_value(s)),
                              decltype(plain_value(p))...>;
    static_assert(callable,
                  "etad: a while_loop condition must take the values of the state and of each "
                  "parameter (as numbers) and return bool, callable as const (not a mutable "
                  "lambda), e.g. [](double t, double y) { return t < 100; }");
    if constexpr (callable)
      return static_cast<bool>(cond(plain_value(s), plain_value(p)...));
    else
      return false;  // the assertion above said it all
  }
};

template <std::size_t N, class S>
struct loop_values {
  S value;
  std::array<S, N> partials;
};

}  // namespace detail

/// The rule of a loop node (see loop() and while_loop()): children (init, params...); value the
/// final state; partials d final / d init and d final / d param_j, computed with the value by
/// forward accumulation over the iterations (a fused rule, core/rule.hpp). The trip count is what
/// the values give; like tf.while_loop's gradient, the derivative is that of the iterations that
/// ran (the condition has none). Body is traced with placeholders of level Level.
///
/// Alias is 0, or the position j >= 1 among the children of a parameter that is init itself: the
/// same input-only expression (equal types mean equal values), as x in loop(k, body, x, x, y).
/// Their partials are then accumulated as one, t_j <- g_s t_j + g_j from t_j = 1, as a
/// hand-written gradient keeps their sum, and init gets none (merges_first_argument: the sweeps
/// skip it; its partial stays 0). Apart, init's partial is the product of every iteration's
/// g_s, which in a contracting loop (|g_s| < 1) sinks through the subnormal numbers, where a
/// multiplication takes a slow path on some cores (Intel's), to 0 (see docs/design.md, "Loops
/// with a run-time trip count").
template <class Body, class Stop, std::size_t Level, std::size_t Alias = 0>
struct loop_op {
  static constexpr std::string_view name = "loop";
  static constexpr bool fused = true;
  static constexpr bool merges_first_argument = Alias != 0;
  [[no_unique_address]] Body body;
  [[no_unique_address]] Stop stop;

  template <class S, class... P>
  using program_t = decltype(detail::make_program<S, 1 + sizeof...(P), Level>(
      std::declval<const Body&>()));

  /// The final state, on numbers: in their common type, double when they are all integers
  /// (on a nested tape's reals, in those reals).
  template <class S, class... P>
  constexpr auto value(const S& init, const P&... p) const {
    using C = std::common_type_t<S, P...>;
    using V = std::conditional_t<std::is_integral_v<C>, double, C>;
    V s = static_cast<V>(init);
    return detail::run<program_t<V, P...>>([&] {
      for (std::size_t i = 0; stop.more(i, s, static_cast<V>(p)...); ++i) {
        auto prog = detail::make_program<V, 1 + sizeof...(P), Level>(body);
        s = prog.template forward<false>({s, static_cast<V>(p)...})[0];
      }
      return s;
    });
  }

  /// g_s t + g_j, except that a constant zero t (a parameter not reached yet) contributes
  /// nothing, not g_s * 0, which is NaN at an infinite g_s (sqrt of a zero state): as in the
  /// sweeps' tangents, and on nested tapes too.
  template <class S>
  static constexpr S accumulate(const S& g_s, const S& t, const S& g_j) {
    return detail::constant_zero(t) ? g_j : g_s * t + g_j;
  }

  /// The final state and its partials with respect to init and each parameter. Per iteration:
  /// the body's value and gradient (g_s, g_1, ..., g_P) by its compile-time sweep, then
  /// t_0 <- g_s t_0 and t_j <- g_s t_j + g_j, from t = (1, 0, ..., 0); with an Alias j, from
  /// t_j = 1 and without t_0, which stays 0.
  template <class S, class... P>
  constexpr auto value_and_partials(const S& init, const P&... p) const {
    constexpr std::size_t n = 1 + sizeof...(P);
    detail::loop_values<n, S> r{init, {}};
    r.partials[Alias] = S(1);
    return detail::run<program_t<S, P...>>([&] {
      for (std::size_t i = 0; stop.more(i, r.value, static_cast<S>(p)...); ++i) {
        auto prog = detail::make_program<S, n, Level>(body);
        const S next = prog.forward({r.value, static_cast<S>(p)...})[0];
        const std::array<S, n> g = prog.backward({S(1)});
        if constexpr (Alias == 0) r.partials[0] = g[0] * r.partials[0];
        for (std::size_t j = 1; j < n; ++j) r.partials[j] = accumulate(g[0], r.partials[j], g[j]);
        r.value = next;
      }
      return r;
    });
  }
};

namespace detail {
/// loop_op's Alias: the position among a loop's children (1 = the first parameter) of the first
/// parameter that is the same input-only expression as Init, or 0.
template <class Init, class... Params>
consteval std::size_t loop_init_alias() {
  using I = std::remove_cvref_t<as_expression_t<Init>>;
  constexpr std::size_t j = boost::mp11::mp_find<
      boost::mp11::mp_list<std::remove_cvref_t<as_expression_t<Params>>...>, I>::value;
  return I::input_only && j < sizeof...(Params) ? j + 1 : 0;
}

template <class Body, class Stop, class Init, class... Params>
constexpr auto make_loop(Body body, Stop stop, const Init& init, const Params&... params) {
  constexpr std::size_t level =
      1 + max_of({arg_level_v<as_expression_t<Init>>, arg_level_v<as_expression_t<Params>>...});
  check_loop_body<Body, 1 + sizeof...(Params), level>();
  if constexpr (loop_body_check<Body, 1 + sizeof...(Params), level>::own_leaves)
    return apply(loop_op<Body, Stop, level, loop_init_alias<Init, Params...>()>{body, stop}, init,
                 params...);
  else
    return init;  // the assertion said it all; avoid follow-on errors
}
}  // namespace detail

/// loop(k, body, init, params...): the state after k iterations of s = body(s, params...) from
/// s = init, as one node (a number when init and params are numbers). body is a generic
/// function of the state and the parameters, e.g.
///   etad::gradient([k](auto x, auto y) {
///     return etad::loop(k, [](auto t, auto y) { return sin(t) * y; }, x, y);
///   }, 0.5, 2.0);
/// It must take everything it uses as a parameter (a captured input of the enclosing function
/// is a compile error). Its gradient is derived at compile time; the loop's partials are
/// accumulated forwards with the value, in memory that does not grow with k.
template <std::integral K, class Body, operand Init, operand... Params>
constexpr auto loop(K k, Body body, const Init& init, const Params&... params) {
  if constexpr (std::is_signed_v<K>)
    if (k < 0)
      throw error("etad: loop() got a negative trip count; pass the number of iterations, 0 or "
                  "more");
  return detail::make_loop(body, detail::trip_count{static_cast<std::size_t>(k)}, init, params...);
}

/// while_loop(cond, body, init, params...): s = init, then s = body(s, params...) while
/// cond(s, params...) holds, as one node. cond takes the values (numbers), not expressions: the
/// trip count follows the values and has no derivative, as in tf.while_loop.
template <class Cond, class Body, operand Init, operand... Params>
constexpr auto while_loop(Cond cond, Body body, const Init& init, const Params&... params) {
  return detail::make_loop(body, detail::stop_condition<Cond>{cond}, init, params...);
}

}  // namespace etad
