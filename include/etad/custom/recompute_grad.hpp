// etad/custom/recompute_grad.hpp — checkpointing one function (tf.recompute_grad): its tape entry
// keeps only the function's inputs; the backward sweep runs the function again, records it past
// the tape's end, takes its VJP with the upstream gradients, and takes the recording back.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/custom/custom_gradient.hpp>
#include <etad/custom/detail/entry_arguments.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/reduce.hpp>
#include <etad/tape/tape.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <ranges>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace etad {

namespace detail {

/// How a recomputed function's argument is kept until the backward sweep: reals and numbers as
/// they are, an owning range of reals (std::vector, std::array) as a copy, a view of reals
/// (std::span) as a std::vector of them.
template <class A>
struct kept_argument {
  using type = A;
};
template <class A>
  requires(real_range<A> && std::ranges::view<A>)
struct kept_argument<A> {
  using type = std::vector<real_of<A>>;
};
template <class A>
using kept_argument_t = typename kept_argument<A>::type;

template <class A>
std::size_t kept_bytes(const A& a) {
  if constexpr (real_range<A>)
    return std::ranges::size(a) * sizeof(real_of<A>);
  else
    return 0;
}

/// Appends f's outputs as reals of T (an expression is recorded: this runs while recording).
template <class T, class Out>
void outputs_as_reals(const Out& out, std::vector<real<T>>& to) {
  for_each_output(out, [&](const auto& o) {
    using X = std::remove_cvref_t<decltype(o)>;
    if constexpr (std::is_same_v<X, real<T>>)
      to.push_back(o);
    else if constexpr (expression<X> && !std::is_convertible_v<const X&, T>)
      to.push_back(real<T>(o));
    else
      to.push_back(real<T>(value_of<T>(o)));
  });
}

/// The object of a recompute_grad entry: the function and its arguments.
template <class T, class F, class... A>
struct recompute_entry {
  F f;
  std::tuple<kept_argument_t<A>...> args;
  std::size_t outputs;

  // Scratch reused by every run on this thread (no allocation per sweep once grown): a run is
  // done with it before its sweep, where the entries recorded inside f run.
  struct scratch {
    std::vector<real<T>> outs;
    std::vector<index_t> passed, reads, unknown;
  };

  static void run(void* object, basic_tape<T>& t, const callback_entry<T>& e, const T* up,
                  T* /*grads: the sweep below adds to the inputs' adjoints itself*/) {
    const recompute_entry& f_and_args = *static_cast<const recompute_entry*>(object);
    thread_local scratch self_scratch;
    scratch& self = self_scratch;
    const F& f = f_and_args.f;
    recording_on<T> recording(t);
    recording_pass<T> pass(t);  // (also when f or a check throws)
    self.outs.clear();
    outputs_as_reals<T>(std::apply(f, f_and_args.args), self.outs);
    if (self.outs.size() != f_and_args.outputs)
      throw error("etad: recompute_grad's function returned " +
                  count_of(self.outs.size(), "output") + " when run again in the backward " +
                  "sweep, and " + std::to_string(f_and_args.outputs) +
                  " when first called; it must compute the same thing each time");
    self.passed.clear();
    for (const auto& o : self.outs) self.passed.push_back(o.index());
    // What f reads now must be what it read when first called (its inputs and the captured
    // reals): a captured real that was rebound since (a newer real under the same name) would
    // take this entry's gradient, which belongs to the real it read then.
    self.reads.clear();
    collect_reads(t, pass.mark(), self.passed, self.reads);
    const index_t* known = callback_access<T>::inputs(t, e);
    self.unknown.clear();
    for (index_t r : self.reads)
      if (std::find(known, known + e.input_count, r) == known + e.input_count)
        self.unknown.push_back(r);
    if (!self.unknown.empty()) {
      std::sort(self.unknown.begin(), self.unknown.end());
      self.unknown.erase(std::unique(self.unknown.begin(), self.unknown.end()),
                         self.unknown.end());
      throw error("etad: recompute_grad's function read " + index_list(self.unknown) +
                  " of the tape when run again in the backward sweep, which it did not read "
                  "when first called (a captured real rebound since?); it must read the same "
                  "reals each time");
    }
    callback_access<T>::sweep_since(t, pass.mark(), self.outs.data(), up, self.outs.size());
  }
};

}  // namespace detail

/// What etad::recompute_grad(f) returns: a function with f's values whose tape entry keeps only
/// f's arguments.
template <class F>
class recompute_grad_fn {
public:
  explicit recompute_grad_fn(F f) : f_(std::move(f)) {}

  template <class... A>
  auto operator()(const A&... args) const {
    using T = typename detail::entry_value<A...>::type;
    if constexpr (sizeof...(A) == 0) {
      static_assert(sizeof...(A) > 0, "etad: a recomputed function needs an argument");
      return 0;
    } else if constexpr (!(detail::entry_argument_v<A> && ...)) {
      static_assert(sizeof(F) == 0,
                    "etad: a recomputed function takes reals, numbers and contiguous ranges of "
                    "reals; assign an expression to a real first");
      return 0;
    } else if constexpr (std::is_void_v<T>) {
      static_assert(sizeof(F) == 0,
                    "etad: a recomputed function needs at least one real argument (or a range "
                    "of reals)");
      return 0;
    } else if constexpr (!detail::entry_reals_of_v<T, A...>) {
      static_assert(sizeof(F) == 0,
                    "etad: a recomputed function's reals must all be of one type (all "
                    "real<double>, say)");
      return 0;
    } else {
      using Out = std::remove_cvref_t<std::invoke_result_t<const F&, const A&...>>;
      return call<T, Out>(args...);
    }
  }

private:
  template <class T, class Out, class... A>
  detail::custom_result_t<T, Out> call(const A&... args) const {
    using entry = detail::recompute_entry<T, F, A...>;
    basic_tape<T>* t = basic_tape<T>::recording();
    if (t == nullptr)
      return detail::unrecorded_call<T, Out>("recompute_grad", f_, detail::whole_result{},
                                             args...);
    const std::uint32_t epoch = detail::callback_access<T>::epoch(*t);
    // Recorded to find what f reads, and taken back: the backward sweep records it again.
    detail::entry_scratch<T>& s = detail::scratch_for<T>();
    detail::entry_forward_pass(*t, s, "recompute_grad", f_, detail::whole_result{}, args...);
    const std::size_t outputs = s.values.size();
    if (outputs == 0 || !detail::entry_has_inputs(s))
      return detail::make_outputs<T, Out>(s.values.data(), outputs, 0, 0);
    s.inputs.insert(s.inputs.end(), s.variables.begin(), s.variables.end());
    const std::size_t kept = (detail::kept_bytes(args) + ... + std::size_t(0));
    const detail::index_t first = detail::callback_access<T>::template record<entry>(
        *t, s.inputs, outputs, &entry::run, kept,
        entry{f_, std::tuple<detail::kept_argument_t<A>...>(args...), outputs});
    return detail::make_outputs<T, Out>(s.values.data(), outputs, first, epoch);
  }

  F f_;
};

/// recompute_grad(f): a function with f's values whose tape entry keeps only f's arguments (the
/// reals and numbers, and copies of ranges of reals), not the statements f records
/// (tf.recompute_grad). In the backward sweep f runs again, recorded past the tape's end, its VJP
/// with the upstream gradients is swept into the adjoints of its arguments and of the reals it
/// reads without taking them as arguments (captured variables), and that recording is taken
/// back: the tape's peak memory is what it holds plus one call of f. f takes reals, numbers and
/// contiguous ranges of reals and returns one output (a real, an expression or a number), a
/// std::array / std::tuple of them, or a std::vector of reals. f must compute the same thing each
/// time it runs (it is called once when recorded and once per backward sweep), and read the same
/// reals: one that it reads in the sweep but did not read when first called is an etad::error.
/// With the same operations in the same order, the gradient is the one the tape would give with
/// f's statements kept (bitwise, as long as both sweeps fuse multiply-adds alike). Reals made
/// inside f do not outlive the call (see custom_gradient), and f must still be valid when the
/// gradient is taken.
template <class F>
recompute_grad_fn<std::decay_t<F>> recompute_grad(F&& f) {
  return recompute_grad_fn<std::decay_t<F>>(std::forward<F>(f));
}

}  // namespace etad
