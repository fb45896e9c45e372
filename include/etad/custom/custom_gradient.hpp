// etad/custom/custom_gradient.hpp — run-time custom gradients (tf.custom_gradient): a function
// returns its value(s) and a gradient function (a closure); calling it records ONE tape entry that
// owns the closure and runs it in the backward sweep with the upstream gradients.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/custom/detail/entry_arguments.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/reduce.hpp>
#include <etad/tape/tape.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace etad {

namespace detail {

/// The upstream gradients' parameter types of a gradient function for outputs Out: one T per
/// output (one output, or a tuple-like of them), or one std::span<const T> (a range of reals).
template <class T, class Out, class G, class... Extra>
constexpr bool gradient_invocable() {
  if constexpr (output_range<Out>) {
    return std::is_invocable_v<G&, std::span<const T>, Extra...>;
  } else if constexpr (tuple_like_v<Out>) {
    return []<std::size_t... J>(std::index_sequence<J...>) {
      return std::is_invocable_v<G&, decltype(void(J), std::declval<T>())..., Extra...>;
    }(std::make_index_sequence<std::tuple_size_v<Out>>{});
  } else {
    return std::is_invocable_v<G&, T, Extra...>;
  }
}

/// Calls g with the upstream gradients up[0 .. m) in Out's shape, then extra.
template <class T, class Out, class G, class... Extra>
decltype(auto) call_gradient(G& g, const T* up, std::size_t m, Extra&&... extra) {
  if constexpr (output_range<Out>) {
    return std::invoke(g, std::span<const T>(up, m), std::forward<Extra>(extra)...);
  } else if constexpr (tuple_like_v<Out>) {
    return [&]<std::size_t... J>(std::index_sequence<J...>) -> decltype(auto) {
      return std::invoke(g, up[J]..., std::forward<Extra>(extra)...);
    }(std::make_index_sequence<std::tuple_size_v<Out>>{});
  } else {
    return std::invoke(g, up[0], std::forward<Extra>(extra)...);
  }
}

[[noreturn]] inline void wrong_range_gradient(std::size_t got, std::size_t argument,
                                              std::size_t length) {
  throw error("etad: custom_gradient's gradient function returned " +
              count_of(got, "gradient") + " for argument " + std::to_string(argument + 1) +
              ", a range of " + count_of(length, "real") + "; return one per element");
}

/// Writes the gradient for argument A (a real, a number or a range of reals) from r to grads.
template <class T, class A, class R>
void put_gradient(const R& r, T* grads, std::size_t argument, std::size_t length) {
  if constexpr (real_range<A>) {
    static_assert(std::ranges::sized_range<R>,
                  "etad: custom_gradient's gradient function must return a range of gradients "
                  "(a std::vector, say) for an argument that is a range of reals");
    const std::size_t got = std::ranges::size(r);
    if (got != length) wrong_range_gradient(got, argument, length);
    std::size_t j = 0;
    for (const auto& g : r) grads[j++] = value_of<T>(g);
  } else {
    grads[0] = value_of<T>(r);
  }
}

/// Spreads the input part of a gradient function's result over the arguments A... (their
/// lengths in `lengths`) into grads.
template <class T, class... A, class R>
void put_gradients(const R& r, T* grads, const std::array<std::size_t, sizeof...(A)>& lengths) {
  constexpr std::size_t k = sizeof...(A);
  using First = std::tuple_element_t<0, std::tuple<A...>>;
  if constexpr (k == 1 && (real_range<First> || !tuple_like_v<R>)) {
    put_gradient<T, First>(r, grads, 0, lengths[0]);
  } else {
    if constexpr (!tuple_like_v<R>) {
      static_assert(tuple_like_v<R>,
                    "etad: custom_gradient's gradient function must return one gradient per "
                    "argument, as a std::array or std::tuple (or a std::pair for two)");
    } else if constexpr (std::tuple_size_v<R> != k) {
      static_assert(std::tuple_size_v<R> == k,
                    "etad: custom_gradient's gradient function returned a different number of "
                    "gradients than the function has arguments; return one per argument, in "
                    "order");
    } else {
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        std::size_t at = 0;
        ((put_gradient<T, std::tuple_element_t<J, std::tuple<A...>>>(std::get<J>(r), grads + at,
                                                                     J, lengths[J]),
          at += lengths[J]),
         ...);
      }(std::make_index_sequence<k>{});
    }
  }
}

/// The object of a custom_gradient entry: the gradient function and the shapes it answers for.
template <class T, class Out, class G, class... A>
struct custom_entry {
  static constexpr bool takes_variables =
      gradient_invocable<T, Out, G, std::span<const captured<T>>>();

  G grad;
  std::size_t outputs;
  std::array<std::size_t, sizeof...(A)> lengths;  // reals per argument
  std::size_t variables;

  static void run(void* object, basic_tape<T>& t, const callback_entry<T>& e, const T* up,
                  T* grads) {
    custom_entry& self = *static_cast<custom_entry*>(object);
    // The gradient function computes values of T: nothing of it is recorded on this tape (on a
    // nested tape, whose T are reals of an outer tape, the outer tape records it).
    stop_recording<T> pause;
    if constexpr (takes_variables) {
      const std::size_t k = e.input_count - self.variables;
      const index_t* in = callback_access<T>::inputs(t, e) + k;
      std::vector<captured<T>> vars;
      vars.reserve(self.variables);
      // (Each with the epoch it was recorded in: inside a recomputation, a captured real may be
      // one of the recording around it.)
      for (std::size_t j = 0; j < self.variables; ++j)
        vars.emplace_back(in[j], callback_access<T>::epoch_at(t, in[j]));
      decltype(auto) r = call_gradient<T, Out>(self.grad, up, self.outputs,
                                               std::span<const captured<T>>(vars));
      using R = std::remove_cvref_t<decltype(r)>;
      if constexpr (!tuple_like_v<R> || std::tuple_size_v<R> != 2) {
        static_assert(sizeof(R) == 0,
                      "etad: a custom gradient function that takes `variables` must return a "
                      "std::pair: the arguments' gradients, and one gradient per variable");
      } else {
        put_gradients<T, A...>(std::get<0>(r), grads, self.lengths);
        const auto& vg = std::get<1>(r);
        static_assert(std::ranges::sized_range<std::remove_cvref_t<decltype(vg)>>,
                      "etad: a custom gradient function's variable gradients must be a range "
                      "(a std::vector, say), one per variable");
        const std::size_t got = std::ranges::size(vg);
        if (got != self.variables)
          throw error("etad: custom_gradient's gradient function returned " +
                      count_of(got, "variable gradient") + " for " +
                      count_of(self.variables, "captured variable") +
                      "; return one per entry of `variables`, in its order");
        std::size_t j = 0;
        for (const auto& g : vg) grads[k + j++] = value_of<T>(g);
      }
    } else {
      decltype(auto) r = call_gradient<T, Out>(self.grad, up, self.outputs);
      put_gradients<T, A...>(r, grads, self.lengths);
    }
  }
};

/// What a call of a custom gradient function returns: its outputs as reals, in the shape the
/// forward function gave them (one real; std::array<real<T>, N> for a tuple-like of N; a
/// std::vector for a range).
template <class T, class Out>
using custom_result_t =
    std::conditional_t<output_range<Out>, std::vector<real<T>>,
                       std::conditional_t<tuple_like_v<Out>,
                                          std::array<real<T>, static_output_count<Out>()>,
                                          real<T>>>;

template <class T, class Out>
custom_result_t<T, Out> make_outputs(const T* values, std::size_t m, index_t first,
                                     std::uint32_t epoch) {
  auto at = [&](std::size_t j) {
    return first == 0 ? real<T>(values[j])
                      : recorded_real<T>(values[j], first + static_cast<index_t>(j), epoch);
  };
  if constexpr (output_range<Out>) {
    std::vector<real<T>> r;
    r.reserve(m);
    for (std::size_t j = 0; j < m; ++j) r.push_back(at(j));
    return r;
  } else if constexpr (tuple_like_v<Out>) {
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
      return std::array<real<T>, sizeof...(J)>{at(J)...};
    }(std::make_index_sequence<static_output_count<Out>()>{});
  } else {
    return at(0);
  }
}

/// Scratch that a call reuses (per thread and value type): its use starts after the forward
/// function returned, so a custom gradient called inside another's forward pass is done with it
/// by then.
template <class T>
struct entry_scratch {
  std::vector<T> values;
  std::vector<index_t> passed, inputs, reads, variables;
};
template <class T>
entry_scratch<T>& scratch_for() {
  thread_local entry_scratch<T> s;
  return s;
}

/// The forward pass of custom_gradient and recompute_grad (`who`, for errors) on tape t: checks
/// the arguments' reals, runs f(args...) in a recording_pass, and fills s from what it recorded:
/// the values (s.values) and indices (s.passed) of the outputs that outputs_of(result) names,
/// the arguments' indices (s.inputs), and the captured variables (s.variables: reals recorded
/// before the pass that f read, arguments excluded, sorted). The pass is taken back before f's
/// result is returned (its reals are then stale: only s's values are used).
template <class T, class F, class OutputsOf, class... A>
auto entry_forward_pass(basic_tape<T>& t, entry_scratch<T>& s, const char* who, const F& f,
                        OutputsOf outputs_of, const A&... args) {
  (check_epoch(args, t, who), ...);
  recording_pass<T> pass(t);  // (also when f throws)
  auto r = f(args...);
  // s is this thread's scratch: a custom gradient called inside f is done with it by now.
  s.values.clear();
  s.passed.clear();
  for_each_output(outputs_of(r), [&](const auto& o) {
    check_epoch(o, t, who);  // (a real returned as it was: of this tape, and not stale)
    const auto [v, i] = value_and_index<T>(o);
    s.values.push_back(v);
    s.passed.push_back(i);
  });
  s.inputs.clear();
  (append_indices(s.inputs, args), ...);
  s.reads.clear();
  collect_reads(t, pass.mark(), s.passed, s.reads);
  variables_of(s.reads, s.inputs, s.variables);
  return r;
}

/// Whether an entry would have anything to answer for: an argument or a captured variable on
/// the tape (else the call's outputs are constants, and no entry is recorded).
template <class T>
bool entry_has_inputs(const entry_scratch<T>& s) {
  if (!s.variables.empty()) return true;
  for (index_t i : s.inputs)
    if (i != 0) return true;
  return false;
}

/// The call of custom_gradient or recompute_grad (`who`) when nothing records (no tape, or
/// recording paused): f's values, as constants. A real of a tape with no active tape throws.
template <class T, class Out, class F, class OutputsOf, class... A>
custom_result_t<T, Out> unrecorded_call(const char* who, const F& f, OutputsOf outputs_of,
                                        const A&... args) {
  std::vector<index_t> in;
  (append_indices(in, args), ...);
  const bool any = std::any_of(in.begin(), in.end(), [](index_t i) { return i != 0; });
  if (any && paused_recording<T> == 0) entry_without_tape(who);
  std::vector<T> values;
  for_each_output(outputs_of(f(args...)), [&](const auto& o) { values.push_back(value_of<T>(o)); });
  return make_outputs<T, Out>(values.data(), values.size(), 0, 0);
}

/// outputs_of for custom_gradient (f returns std::pair{outputs, grad}) and recompute_grad (f
/// returns its outputs).
struct first_of_pair {
  template <class P>
  decltype(auto) operator()(const P& p) const {
    return std::get<0>(p);
  }
};
struct whole_result {
  template <class R>
  const R& operator()(const R& r) const {
    return r;
  }
};

}  // namespace detail

/// What etad::custom_gradient(f) returns: a function with f's values whose gradient is the one f
/// declares. Call it with reals, numbers (constants) and contiguous ranges of reals.
template <class F>
class custom_gradient_fn {
public:
  explicit custom_gradient_fn(F f) : f_(std::move(f)) {}

  template <class... A>
  auto operator()(const A&... args) const {
    using T = typename detail::entry_value<A...>::type;
    if constexpr (sizeof...(A) == 0) {
      static_assert(sizeof...(A) > 0, "etad: a custom gradient function needs an argument");
      return 0;
    } else if constexpr (!(detail::entry_argument_v<A> && ...)) {
      static_assert(sizeof(F) == 0,
                    "etad: a custom gradient function takes reals, numbers and contiguous "
                    "ranges of reals; assign an expression to a real first");
      return 0;
    } else if constexpr (std::is_void_v<T>) {
      static_assert(sizeof(F) == 0,
                    "etad: a custom gradient function needs at least one real argument (or a "
                    "range of reals): with numbers alone there is nothing to differentiate");
      return 0;
    } else if constexpr (!detail::entry_reals_of_v<T, A...>) {
      static_assert(sizeof(F) == 0,
                    "etad: a custom gradient function's reals must all be of one type (all "
                    "real<double>, say)");
      return 0;
    } else {
      using R = std::remove_cvref_t<std::invoke_result_t<const F&, const A&...>>;
      if constexpr (!detail::tuple_like_v<R>) {
        static_assert(sizeof(R) == 0,
                      "etad: custom_gradient's function must return its value(s) and its "
                      "gradient function as a pair: return std::pair{y, grad}");
        return 0;
      } else if constexpr (std::tuple_size_v<R> != 2) {
        static_assert(sizeof(R) == 0,
                      "etad: custom_gradient's function must return its value(s) and its "
                      "gradient function as a pair: return std::pair{y, grad}");
        return 0;
      } else {
        using Out = std::remove_cvref_t<std::tuple_element_t<0, R>>;
        using G = std::remove_cvref_t<std::tuple_element_t<1, R>>;
        if constexpr (!detail::gradient_invocable<T, Out, G>() &&
                      !detail::gradient_invocable<T, Out, G,
                                                  std::span<const captured<T>>>()) {
          static_assert(sizeof(G) == 0,
                        "etad: custom_gradient's gradient function cannot be called with the "
                        "upstream gradients: it takes one value per output (a std::span<const "
                        "T> for a range of outputs), and optionally `variables` after them");
          return 0;
        } else {
          return call<T, Out, G>(args...);
        }
      }
    }
  }

private:
  template <class T, class Out, class G, class... A>
  detail::custom_result_t<T, Out> call(const A&... args) const {
    basic_tape<T>* t = basic_tape<T>::recording();
    if (t == nullptr)
      return detail::unrecorded_call<T, Out>("custom_gradient", f_, detail::first_of_pair{},
                                             args...);
    using entry = detail::custom_entry<T, Out, G, A...>;
    const std::uint32_t epoch = detail::callback_access<T>::epoch(*t);
    detail::entry_scratch<T>& s = detail::scratch_for<T>();
    auto r = detail::entry_forward_pass(*t, s, "custom_gradient", f_, detail::first_of_pair{},
                                        args...);
    const std::size_t outputs = s.values.size();
    if (outputs == 0) return detail::make_outputs<T, Out>(s.values.data(), 0, 0, 0);
    if (!entry::takes_variables && !s.variables.empty())
      throw error("etad: custom_gradient's function read " +
                  detail::count_of(s.variables.size(), "real") + " of the tape that " +
                  (s.variables.size() == 1 ? "is not an argument" : "are not arguments") +
                  " (" + detail::index_list(s.variables) +
                  "); its gradient function must answer for them: take `variables` (a "
                  "std::span<const etad::captured<T>>) after the upstream gradients and return "
                  "std::pair{argument gradients, variable gradients}, or pass them as arguments");
    if (!detail::entry_has_inputs(s))
      return detail::make_outputs<T, Out>(s.values.data(), outputs, 0, 0);
    const std::array<std::size_t, sizeof...(A)> lengths{detail::input_count(args)...};
    const std::size_t variables = s.variables.size();
    s.inputs.insert(s.inputs.end(), s.variables.begin(), s.variables.end());
    const detail::index_t first = detail::callback_access<T>::template record<entry>(
        *t, s.inputs, outputs, &entry::run, 0,
        entry{std::move(std::get<1>(r)), outputs, lengths, variables});
    return detail::make_outputs<T, Out>(s.values.data(), outputs, first, epoch);
  }

  F f_;
};

/// custom_gradient(f): a function with f's values and the gradient f declares, recorded on the
/// tape as ONE entry (tf.custom_gradient). f takes reals, numbers and contiguous ranges of reals
/// and returns std::pair{outputs, grad}: outputs are one real (or expression, or number), a
/// std::array / std::tuple of them, or a std::vector of reals; grad takes the upstream gradients
/// (values of the tape's type T: one per output, or one std::span<const T> for a vector of
/// outputs) and returns the gradient for each argument (one value, a std::array / std::tuple of
/// one per argument, a range for a range argument; a number argument's is ignored). It may be
/// any function of the upstream gradients (clipping, scaling). The statements f records while
/// computing its values are taken back: only the entry stays, owning grad (in the tape's memory,
/// destroyed with the tape or at reset()). Reals of the tape that f reads without taking them as
/// arguments (TF's `variables`) get their gradients from grad, which then takes `variables` (a
/// std::span<const captured<T>>, in the order the reals were recorded) after the upstream
/// gradients and returns std::pair{argument gradients, variable gradients}; a grad that does not
/// take them is an etad::error naming them. grad runs with this tape's recording paused; on a
/// nested tape its work (on reals of the outer tape) is recorded there, so a second derivative
/// through a custom gradient is what grad's own computation gives. Reals made inside f do not
/// outlive the call (their statements are taken back and their indices handed out again: using
/// one later is an etad::error, caught as a real from before reset() is), and grad must still be valid when the
/// gradient is taken (a `[&]` capture of a local that is gone is undefined behaviour).
template <class F>
custom_gradient_fn<std::decay_t<F>> custom_gradient(F&& f) {
  return custom_gradient_fn<std::decay_t<F>>(std::forward<F>(f));
}

}  // namespace etad
