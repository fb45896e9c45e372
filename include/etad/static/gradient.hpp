// etad/static/gradient.hpp — the compile-time front doors: gradient, jvp, vjp, jacobian.
// f is called once with placeholders (arg<0>, arg<1>, ...); the expression type it returns is
// differentiated at compile time and swept at the given point. No tape, no heap.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/expression.hpp>
#include <etad/ops/reductions.hpp>
#include <etad/static/detail/sweep.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace etad {

/// Value and gradient of a scalar function at a point.
template <class T, std::size_t N>
struct gradient_result {
  T value;
  std::array<T, N> gradient;
};

/// Value and directional derivative (Jacobian-vector product) of f; V is T for a scalar f and
/// std::array<T, M> for an f with M outputs.
template <class V>
struct jvp_result {
  V value;
  V tangent;
};

/// Value and vector-Jacobian product (seed^T J) of f.
template <class V, class T, std::size_t N>
struct vjp_result {
  V value;
  std::array<T, N> gradient;
};

/// Values and the M x N Jacobian (row i: the gradient of output i).
template <class T, std::size_t M, std::size_t N>
struct jacobian_result {
  std::array<T, M> value;
  std::array<std::array<T, N>, M> jacobian;
};

namespace detail {

template <class X>
inline constexpr bool is_differentiable_input_v = std::is_floating_point_v<X>;

template <class X>
inline constexpr bool is_std_array_v = false;
template <class T, std::size_t N>
inline constexpr bool is_std_array_v<std::array<T, N>> = true;

/// The placeholder of input I of a function of type F traced at Level: owned by F (whatever its
/// cv-qualifiers), so that a placeholder of another traced function is told apart.
template <std::size_t I, std::size_t Level, class F>
using placeholder_t = arg<I, Level, std::remove_cvref_t<F>>;

template <class F, class Seq, std::size_t Level = 0>
inline constexpr bool invocable_with_placeholders_v = false;
// A requires-expression, not std::is_invocable_v: libstdc++'s folds over the argument types,
// which clang refuses past 256 (gradient over a std::array of 300 inputs).
template <class F, std::size_t... I, std::size_t Level>
inline constexpr bool invocable_with_placeholders_v<F, std::index_sequence<I...>, Level> =
    requires(F& f) { f(placeholder_t<I, Level, F>{}...); };

/// f called with placeholders arg<0, Level, F>, ..., arg<N - 1, Level, F>.
/// (When f cannot be called so, the number 0 stands in for its result after the assertion, so
/// that the assertion is the only error.)
template <std::size_t N, std::size_t Level = 0, class F>
constexpr auto trace(F& f) {
  if constexpr (invocable_with_placeholders_v<F, std::make_index_sequence<N>, Level>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return f(placeholder_t<I, Level, F>{}...);
    }(std::make_index_sequence<N>{});
  } else {
    static_assert(invocable_with_placeholders_v<F, std::make_index_sequence<N>, Level>,
                  "etad: f cannot be called with one etad placeholder per input; write f as a "
                  "generic lambda with one auto parameter per input, e.g. [](auto x, auto y) { "
                  "return x * y; }, that calls etad's functions (sin(x), not std::sin(x)); for "
                  "gradient(f, std::array), one parameter for the whole pack, whose elements are "
                  "get<0>(x), get<1>(x), ...");
    return 0.0;
  }
}

template <class R>
concept multiple_outputs = !operand<R> && requires { std::tuple_size<R>::value; };

// One output as an expression; an output that is not one (check_outputs says so) becomes the
// number 0, so that the check's assertion is the only error.
template <class R>
constexpr auto output_root(const R& r) {
  if constexpr (operand<R>)
    return as_expression(r);
  else
    return as_expression(0.0);
}

// Every output of f as a flat_list of expressions.
template <class R>
constexpr auto output_roots(const R& r) {
  if constexpr (multiple_outputs<R>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return flat_list<decltype(output_root(std::get<I>(r)))...>{output_root(std::get<I>(r))...};
    }(std::make_index_sequence<std::tuple_size_v<R>>{});
  } else {
    return flat_list<decltype(output_root(r))>{output_root(r)};
  }
}

template <class R>
consteval void check_outputs() {
  if constexpr (multiple_outputs<R>) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (check_outputs<std::tuple_element_t<I, R>>(), ...);
    }(std::make_index_sequence<std::tuple_size_v<R>>{});
  } else {
    static_assert(operand<R>,
                  "etad: f returned something that is not an etad expression (such as a string or "
                  "a lambda); return an expression built from f's arguments, a number, or a "
                  "std::tuple of them for several outputs");
    if constexpr (expression<R> && is_node_v<R>)
      static_assert(!is_predicate_v<typename R::op_type>,
                    "etad: f returned a comparison, which has no gradient; use select(condition, "
                    "a, b) to make a number of it");
  }
}

template <class... X>
consteval void check_inputs() {
  static_assert(sizeof...(X) > 0,
                "etad: no inputs were given to differentiate with respect to; pass at least one "
                "floating-point input after f, e.g. etad::gradient(f, 2.0)");
  static_assert(all_v<is_differentiable_input_v<X>...>,
                "etad: every input must be a floating-point number (float, double or long "
                "double); an integer or other type cannot be differentiated, so write 2.0, not 2");
}

/// The key of a traced function: f's type and its number of inputs stand for the expression type
/// f returns. A sweep and all the functions it instantiates are named by their key; this key is
/// short however long the expression is (mangled names were quadratic in the number of terms
/// when the sweep was named by its list of shared subexpressions).
template <class F, std::size_t N, std::size_t Level = 0>
using traced_roots_t = decltype(output_roots(trace<N, Level>(std::declval<F&>())));

template <class F, std::size_t N, std::size_t Level = 0>
struct traced {
  using roots = traced_roots_t<F, N, Level>;
  // The static front doors take partials early (detail/frame.hpp, early_partials_v), and in shared
  // slots where every edge passes its adjoint on (all_edges_open_v).
  static constexpr bool early_partials = true;
  template <std::size_t... I, class... E>
  static constexpr bool open(const flat_tuple_impl<std::index_sequence<I...>, E...>*) {
    return all_v<all_edges_open_v<E>...>;
  }
  static constexpr bool early_slot_partials =
      detail::early_slot_partials && open(static_cast<const roots*>(nullptr));
  template <std::size_t... I, class... E>
  static shared_t<E...> slots_of(const flat_tuple_impl<std::index_sequence<I...>, E...>&);
  using slots = decltype(slots_of(std::declval<const roots&>()));
};

/// Whether every leaf of expression E is a placeholder of function Owner traced at Level, or a
/// constant: not a placeholder of an enclosing traced function nor a real (a loop body's, a
/// map_sum function's). A placeholder built by hand (owner void) counts as f's own at its level:
/// f may return an expression built elsewhere, [e](auto, auto) { return e; }.
template <class E, std::size_t Level, class Owner>
inline constexpr bool own_leaves_v = !is_active_leaf_v<E>;
template <std::size_t I, std::size_t L, class O, std::size_t Level, class Owner>
inline constexpr bool own_leaves_v<arg<I, L, O>, Level, Owner> =
    L == Level && (std::is_same_v<O, Owner> || std::is_void_v<O>);
template <class Op, class... C, std::size_t Level, class Owner>
inline constexpr bool own_leaves_v<node<Op, C...>, Level, Owner> =
    all_v<own_leaves_v<C, Level, Owner>...>;

/// Whether expression E reaches input I (a placeholder arg<I>) through differentiable rules only:
/// under stop_gradient, floor (any rule with differentiable = false) or a comparison the input
/// gets no gradient at all. map_sum lists only such inputs on the tape, so that the others stay
/// unconnected (unconnected::none), as the scalar statements' inputs (tape/real.hpp) and
/// TensorFlow's ops do.
template <class E, std::size_t I>
inline constexpr bool reaches_input_v = false;
template <std::size_t J, std::size_t Level, class O, std::size_t I>
inline constexpr bool reaches_input_v<arg<J, Level, O>, I> = J == I;
template <class Op, class... C, std::size_t I>
inline constexpr bool reaches_input_v<node<Op, C...>, I> =
    is_differentiable_v<Op> && any_v<reaches_input_v<C, I>...>;

/// to |= from, word by word.
template <std::size_t W>
constexpr void or_bits(std::array<std::uint64_t, W>& to, const std::array<std::uint64_t, W>& from) {
  for (std::size_t w = 0; w < W; ++w) to[w] |= from[w];
}

/// The inputs (bit I of word I / 64 for arg<I>, I < N) that E's reverse sweep pushes into
/// whenever it is seeded with an adjoint other than 0: those reached from E through
/// differentiable rules without a gate (a gated rule such as select decides at run time which of
/// its children receive). A variable template, so each distinct subexpression type is computed
/// once: an expression whose tree repeats a subexpression (e = hypot(e, e), K times) has few types
/// and an exponential number of occurrences, which a walk of the tree would visit one by one.
template <class E, std::size_t N>
inline constexpr std::array<std::uint64_t, (N + 63) / 64> surely_reached_v = [] {
  std::array<std::uint64_t, (N + 63) / 64> bits{};
  if constexpr (is_arg_v<E>) {
    if constexpr (E::index < N) bits[E::index / 64] |= std::uint64_t(1) << (E::index % 64);
  } else if constexpr (is_node_v<E>) {
    if constexpr (is_differentiable_v<typename E::op_type> && !is_gated_v<typename E::op_type>)
      [&]<class Op, class... C>(std::type_identity<node<Op, C...>>) {
        // (a braced list, not a fold: clang's limit is 256 operands)
        in_order({(or_bits(bits, surely_reached_v<C, N>), 0)...});
      }(std::type_identity<E>{});
  }
  return bits;
}();
/// Whether E's reverse sweep, seeded with an adjoint other than 0, pushes into all N inputs.
template <class E, std::size_t N>
inline constexpr bool reaches_every_input_v = [] {
  const auto& bits = surely_reached_v<E, N>;
  for (std::size_t i = 0; i < N; ++i)
    if (!((bits[i / 64] >> (i % 64)) & 1)) return false;
  return true;
}();

/// One traced program: roots, their frames, and a sweep at a point.
template <class S, std::size_t N, class Key, class Roots = typename Key::roots>
struct program;

template <class S, std::size_t N, class Key, std::size_t... I, class... E>
struct program<S, N, Key, flat_tuple_impl<std::index_sequence<I...>, E...>> {
  static constexpr std::size_t outputs = sizeof...(E);
  static constexpr std::size_t size = sum_of({node_count_v<E>...});  // nodes, all outputs
  /// Whether some output reaches input J through differentiable rules (reaches_input_v).
  template <std::size_t J>
  static constexpr bool reaches_input = any_v<reaches_input_v<E, J>...>;
  flat_list<E...> roots;
  sweep<S, N, Key> sw{};
  flat_list<frame<E, S>...> frames{};

  /// The outputs' values at x (Partials: see sweep::forward).
  template <bool Partials = true>
  ETAD_SWEEP_INLINE constexpr std::array<S, outputs> forward(const std::array<S, N>& x) {
    sw.x = x;
    sw.template forward_slots<Partials>();
    return {sw.template forward<Partials>(detail::get<I>(roots), detail::get<I>(frames))...};
  }
  ETAD_SWEEP_INLINE constexpr void reset_adjoints() {
    sw.grad = sw.template filled<N>(-S(0));
    sw.input_reached = {};
    sw.slot_adjoint = sw.template filled<sweep<S, N, Key>::slots>(-S(0));
    sw.reached = {};
  }
  ETAD_SWEEP_INLINE constexpr std::array<S, N> backward(const std::array<S, outputs>& seed) {
    // An output with seed 0 pushes nothing (not 0 * partial, which is NaN at an infinite partial):
    // a Jacobian row is then exactly the gradient of its own output.
    if constexpr (outputs == 1 && (reaches_every_input_v<E, N> && ...)) {
      // Every input is reached whenever the seed is not 0: the adjoints are the gradient, with
      // no reached-flags to consult (a loop over N flags, which the optimizer folds only while
      // it keeps the sweep's arrays in registers: for a few inputs, not for a pack of 100).
      if (seed[0] != S(0)) {
        sw.backward(detail::get<0>(roots), detail::get<0>(frames), seed[0]);
        sw.backward_slots();
        return sw.grad;
      }
      return sw.template filled<N>(S(0));  // nothing reached
    } else {
      in_order({((seed[I] != S(0)
                      ? sw.backward(detail::get<I>(roots), detail::get<I>(frames), seed[I])
                      : void()),
                 0)...});
      sw.backward_slots();
      return sw.gradient();
    }
  }
  /// backward({1}) of a one-output program, always inlined (ETAD_PROGRAM_INLINE): the partials
  /// of etad::call's statement, which runs in the user's loop wherever call() is written.
  /// (backward itself stays with g++'s heuristics: always inlined, it made the static gradients
  /// of trig3 and chain20 12 % and 7 % longer, 302 -> 340 and 833 -> 894 instructions.)
  ETAD_PROGRAM_INLINE constexpr std::array<S, N> backward_one()
    requires(outputs == 1)
  {
    sw.backward(detail::get<0>(roots), detail::get<0>(frames), S(1));
    sw.backward_slots_inlined();
    if constexpr ((reaches_every_input_v<E, N> && ...))
      return sw.grad;
    else
      return sw.gradient();
  }
  ETAD_SWEEP_INLINE constexpr std::array<S, outputs> tangent(const std::array<S, N>& v) {
    sw.dx = v;
    sw.tangent_slots();
    return {sw.tangent(detail::get<I>(roots), detail::get<I>(frames))...};
  }
};

/// Runs fn with every call inside it inlined (see ETAD_FLATTEN_LIMIT).
template <class Fn>
ETAD_FLATTEN constexpr auto run_flattened(const Fn& fn) {
  return fn();
}

/// fn(), flattened when the program P that fn runs is small.
template <class P, class Fn>
constexpr auto run(const Fn& fn) {
  if constexpr (P::size <= ETAD_FLATTEN_LIMIT)
    return run_flattened(fn);
  else
    return fn();
}

/// Whether every root of a traced function (a flat_tuple_impl of its outputs) has only leaves
/// of its own (own_leaves_v of function Owner at Level).
template <class Roots, std::size_t Level, class Owner>
inline constexpr bool roots_own_leaves_v = false;
template <std::size_t... I, class... E, std::size_t Level, class Owner>
inline constexpr bool
    roots_own_leaves_v<flat_tuple_impl<std::index_sequence<I...>, E...>, Level, Owner> =
        all_v<own_leaves_v<E, Level, Owner>...>;

/// f's leaves are its own placeholders and constants. Its placeholders name f's type
/// (placeholder_t), so a placeholder f captured (from an enclosing traced function, when a front
/// door is called inside another's f) names another type, and a real is never one (its value
/// would be a constant here, its gradient lost): one trace tells them apart. (Until placeholders
/// named their function, f was traced twice, at two levels, which cost g++ 1.3-1.8x the compile
/// time of long expressions: docs/compile-time.md.)
template <class F, std::size_t N, std::size_t Level>
inline constexpr bool traced_own_leaves_v =
    roots_own_leaves_v<typename traced<F, N, Level>::roots, Level, std::remove_cvref_t<F>>;

template <class F, std::size_t N, std::size_t Level>
consteval void check_own_leaves() {
  static_assert(traced_own_leaves_v<F, N, Level>,
                "etad: f used a value it did not get as an argument (a real, or an input of an "
                "enclosing etad function captured by a gradient, jvp, vjp or jacobian called "
                "inside it, which would count as the inner function's own input); pass every "
                "value f differentiates as an input, and take higher derivatives with nested "
                "tapes");
}

template <class S, std::size_t N, std::size_t Level = 0, class F>
constexpr auto make_program(F& f) {
  using R = decltype(trace<N, Level>(f));
  check_outputs<R>();
  check_own_leaves<F, N, Level>();
  using Key = traced<F, N, Level>;
  return program<S, N, Key>{output_roots(trace<N, Level>(f))};
}

template <class R, class S, std::size_t M>
constexpr auto shape_output(const std::array<S, M>& v) {
  if constexpr (multiple_outputs<R>)
    return v;
  else
    return v[0];
}

}  // namespace detail

/// gradient(f, x0, ..., xn): value and gradient of the scalar function f at x, derived at compile
/// time. f is a generic callable; inputs are floating-point numbers of a common type T.
///   auto [v, g] = etad::gradient([](auto x, auto y) { return x * sin(y); }, 2.0, 0.5);
template <class F, class... X>
constexpr auto gradient(F&& f, const X&... x) {
  detail::check_inputs<X...>();
  using T = std::common_type_t<X...>;
  constexpr std::size_t n = sizeof...(X);
  using P = decltype(detail::make_program<T, n>(f));
  static_assert(P::outputs == 1,
                "etad: gradient needs f to return one value; use jacobian or vjp for several");
  return detail::run<P>([&] {
    auto p = detail::make_program<T, n>(f);
    const auto value = p.forward({static_cast<T>(x)...});
    return gradient_result<T, n>{value[0], p.backward({T(1)})};
  });
}

/// gradient(f, x) for an array x of N inputs: f receives ONE argument, a pack of N placeholders
/// (get<I>(p), and the reductions sum, mean, dot, squared_norm, prod, log_sum_exp over it).
///   auto [v, g] = etad::gradient([](const auto& x) { return log_sum_exp(x); }, std::array{1.0, 2.0});
template <class F, class T, std::size_t N>
  requires std::is_floating_point_v<T>
constexpr auto gradient(F&& f, const std::array<T, N>& x) {
  static_assert(N > 0, "etad: gradient of an empty array; give at least one input");
  auto packed = [&f](const auto&... a) { return f(pack{a...}); };
  using P = decltype(detail::make_program<T, N>(packed));
  static_assert(P::outputs == 1,
                "etad: gradient needs f to return one value; use jacobian or vjp for several");
  return detail::run<P>([&] {
    auto p = detail::make_program<T, N>(packed);
    const auto value = p.forward(x);
    return gradient_result<T, N>{value[0], p.backward({T(1)})};
  });
}

/// jacobian(f, x0, ..., xn): the values of f's M outputs (f returns a std::tuple, std::pair or
/// std::array of expressions; one expression gives M = 1) and the M x N Jacobian. One forward
/// sweep, then one reverse sweep per output.
template <class F, class... X>
constexpr auto jacobian(F&& f, const X&... x) {
  detail::check_inputs<X...>();
  using T = std::common_type_t<X...>;
  constexpr std::size_t n = sizeof...(X);
  using P = decltype(detail::make_program<T, n>(f));
  constexpr std::size_t m = P::outputs;
  return detail::run<P>([&] {
    auto p = detail::make_program<T, n>(f);
    jacobian_result<T, m, n> r{p.forward({static_cast<T>(x)...}), {}};
    for (std::size_t i = 0; i < m; ++i) {
      std::array<T, m> seed{};
      seed[i] = T(1);
      p.reset_adjoints();
      r.jacobian[i] = p.backward(seed);
    }
    return r;
  });
}

/// jvp(f, x, v): the value of f at x and its derivative in direction v (J v), by one forward
/// and one tangent sweep. x is a std::array<T, N>, v a std::array of N numbers (converted to T).
template <class F, class T, std::size_t N, class V, std::size_t K>
constexpr auto jvp(F&& f, const std::array<T, N>& x, const std::array<V, K>& v) {
  detail::check_inputs<T>();
  static_assert(K == N,
                "etad: jvp's direction v has a different length than the point x; give one "
                "tangent per input");
  static_assert(arithmetic<V>,
                "etad: jvp's direction v must hold numbers (one tangent per input, e.g. "
                "std::array{1.0, 0.0})");
  using P = decltype(detail::make_program<T, N>(f));
  using R = decltype(detail::trace<N>(f));
  return detail::run<P>([&] {
    auto p = detail::make_program<T, N>(f);
    const auto value = p.forward(x);
    std::array<T, N> direction{};
    for (std::size_t i = 0; i < N; ++i) direction[i] = static_cast<T>(v[i]);
    const auto tangent = p.tangent(direction);
    return jvp_result<decltype(detail::shape_output<R>(value))>{detail::shape_output<R>(value),
                                                                detail::shape_output<R>(tangent)};
  });
}

/// vjp(f, x, seed): the value of f at x and seed^T J in one reverse sweep. seed is a T for a
/// scalar f, a std::array<T, M> for an f with M outputs.
template <class F, class T, std::size_t N, class Seed>
constexpr auto vjp(F&& f, const std::array<T, N>& x, const Seed& seed) {
  detail::check_inputs<T>();
  using P = decltype(detail::make_program<T, N>(f));
  using R = decltype(detail::trace<N>(f));
  constexpr std::size_t m = P::outputs;
  std::array<T, m> s{};
  if constexpr (detail::multiple_outputs<R>) {
    static_assert(std::is_same_v<Seed, std::array<T, m>>,
                  "etad: f returns M values, so vjp needs a seed of type std::array<T, M> with T "
                  "the input type, e.g. std::array{1.0, 0.0} for M = 2");
    s = seed;
  } else {
    static_assert(std::is_convertible_v<Seed, T>,
                  "etad: f returns one value, so vjp needs a scalar seed that converts to the "
                  "input type, e.g. 1.0");
    s[0] = static_cast<T>(seed);
  }
  return detail::run<P>([&] {
    auto p = detail::make_program<T, N>(f);
    const auto value = p.forward(x);
    return vjp_result<decltype(detail::shape_output<R>(value)), T, N>{
        detail::shape_output<R>(value), p.backward(s)};
  });
}

/// jvp and vjp take the point as a std::array (a pack of inputs for f's parameters): these
/// overloads only say so.
template <class F, class X, class V>
  requires(!detail::is_std_array_v<X> || !detail::is_std_array_v<V>)
constexpr void jvp(F&&, const X&, const V&) {
  static_assert(detail::is_std_array_v<X> && detail::is_std_array_v<V>,
                "etad: jvp takes the point and the direction as std::arrays of the same length, "
                "e.g. etad::jvp(f, std::array{x, y}, std::array{1.0, 0.0})");
}
template <class F, class X, class Seed>
  requires(!detail::is_std_array_v<X>)
constexpr void vjp(F&&, const X&, const Seed&) {
  static_assert(detail::is_std_array_v<X>,
                "etad: vjp takes the point as a std::array, e.g. etad::vjp(f, std::array{x, y}, "
                "1.0)");
}

}  // namespace etad
