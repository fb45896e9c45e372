// etad/custom/checkpointed_loop.hpp — n applications of a step function to a state of reals,
// differentiated with at most s stored states by the binomial (revolve) schedule: one tape entry,
// O(s) states of memory, and the least number of recomputed steps for (n, s).
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>
#include <etad/custom/custom_gradient.hpp>
#include <etad/custom/detail/entry_arguments.hpp>
#include <etad/custom/recompute_grad.hpp>
#include <etad/tape/detail/revolve.hpp>
#include <etad/tape/real.hpp>
#include <etad/tape/tape.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace etad {

/// What the backward sweep of a checkpointed_loop did (the last sweep through it).
/// The first backward sweep of a loop continues the schedule that its recording began: the
/// recording ran the schedule's forward sweep (n - 1 steps, storing states on the way) while it
/// computed the loop's value, so that sweep recomputes t(n, s) - (n - 1) steps, where t(n, s) =
/// r n - C(s + r, s + 1) is Griewank's optimum for the whole reversal. A later sweep (a
/// persistent tape's next gradient) starts the schedule afresh from the initial state: t(n, s).
struct checkpoint_stats {
  std::size_t steps = 0;                   // n
  std::size_t snapshots = 0;               // s, as asked (at most n are ever used)
  std::size_t recomputed_steps = 0;        // steps run again on values in this sweep
  std::size_t optimal_recomputations = 0;  // the least possible for this sweep (see above)
  std::size_t taped_steps = 0;             // steps taped and swept, one per step: n
  std::size_t snapshots_used = 0;          // the most states stored at once (the initial one too)
  bool continued = false;                  // whether it continued the recording's schedule
};

/// checkpointed_loop's options: the stored states (the initial state counts as one; at least
/// 1), and where to report what a backward sweep did.
struct checkpoint_options {
  std::size_t snapshots = 10;
  checkpoint_stats* stats = nullptr;
};

namespace detail {

/// The step's outputs as K values, and its arity check.
template <class T, std::size_t K, class Out>
void step_values(const Out& out, T* to) {
  if constexpr (K == 1 && !tuple_like_v<Out>) {
    to[0] = value_of<T>(out);
  } else if constexpr (!tuple_like_v<Out>) {
    static_assert(sizeof(Out) == 0,
                  "etad: checkpointed_loop's step must return the new state: one value per "
                  "state real, as a std::array or std::tuple for several");
  } else if constexpr (std::tuple_size_v<Out> != K) {
    static_assert(sizeof(Out) == 0,
                  "etad: checkpointed_loop's step returned a different number of values than "
                  "the state has reals; return the whole new state");
  } else {
    std::size_t j = 0;
    std::apply([&](const auto&... o) { ((to[j++] = value_of<T>(o)), ...); }, out);
  }
}

/// `count` steps on values only (recording paused, once for all of them): with numbers where
/// the step takes them, else with constant reals.
template <class T, std::size_t K, class F>
void advance_values(const F& step, T* state, std::size_t count = 1) {
  stop_recording<T> pause;
  for (std::size_t i = 0; i < count; ++i) {
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      if constexpr (std::is_invocable_v<const F&, decltype(void(J), std::declval<T>())...>)
        step_values<T, K>(step(state[J]...), state);
      else
        step_values<T, K>(step(real<T>(state[J])...), state);
    }(std::make_index_sequence<K>{});
  }
}

template <class T, std::size_t K, class F>
struct checkpoint_entry {
  F step;
  std::size_t n;
  std::size_t s;
  std::array<real<T>, K> initial;  // the loop's initial state, as given
  std::vector<T> snaps;            // min(s, n) states of K values
  checkpoint_stats* stats;
  // The schedule as the recording left it (its first reverse, of step n - 1, taken), and the
  // state x_{n - 1}: the first backward sweep continues from there, with the states the
  // recording stored in `snaps`.
  std::optional<revolve_schedule> resume;
  std::array<T, K> last_state;
  // Reused by every taped step (no allocation per step once grown).
  std::vector<real<T>> outs;
  std::vector<index_t> passed, reads, unknown, known;

  static void run(void* object, basic_tape<T>& t, const callback_entry<T>& e, const T* up,
                  T* /*grads: the taped step 0 adds to the inputs' adjoints itself*/) {
    checkpoint_entry& self = *static_cast<checkpoint_entry*>(object);
    // The taped steps record on t whatever the thread's state (once for the whole sweep; the
    // steps on values pause it again).
    recording_on<T> recording(t);
    self.known.assign(callback_access<T>::inputs(t, e),
                      callback_access<T>::inputs(t, e) + e.input_count);
    std::sort(self.known.begin(), self.known.end());
    std::array<T, K> lambda, cur;
    for (std::size_t j = 0; j < K; ++j) lambda[j] = up[j];
    const std::size_t optimum = revolve_recomputations(self.n, self.s);
    checkpoint_stats st{self.n, self.s, 0, optimum, 0, 1, false};
    std::optional<revolve_schedule> fresh;
    revolve_schedule* schedule;
    std::optional<revolve_schedule> resumed = std::move(self.resume);
    self.resume.reset();
    if (resumed) {
      // The first sweep: the recording ran the forward sweep and stored its states.
      schedule = &*resumed;
      cur = self.last_state;
      st.continued = true;
      st.optimal_recomputations = optimum - (self.n - 1);
      reverse_step(self, t, self.n - 1, cur, lambda);
      ++st.taped_steps;
    } else {
      fresh.emplace(self.n, self.s);
      schedule = &*fresh;
      for (std::size_t j = 0; j < K; ++j) cur[j] = self.snaps[j] = self.initial[j].value();
    }
    for (;;) {
      const revolve_action a = schedule->next();
      if (a.kind == revolve_kind::done) break;
      switch (a.kind) {
        case revolve_kind::advance:
          advance_values<T, K>(self.step, cur.data(), a.to - a.from);
          st.recomputed_steps += a.to - a.from;
          break;
        case revolve_kind::store:
          std::copy(cur.begin(), cur.end(), self.snaps.begin() + std::ptrdiff_t(a.slot * K));
          st.snapshots_used = std::max(st.snapshots_used, a.slot + 1);
          break;
        case revolve_kind::restore:
          std::copy_n(self.snaps.begin() + std::ptrdiff_t(a.slot * K), K, cur.begin());
          break;
        case revolve_kind::reverse:
          reverse_step(self, t, a.at, cur, lambda);
          ++st.taped_steps;
          break;
        default:
          break;
      }
    }
    self.resume.reset();  // (the stored states are spent: a later sweep starts afresh)
    if (self.stats != nullptr) *self.stats = st;
  }

  [[noreturn, gnu::noinline, gnu::cold]] static void unknown_reads(
      checkpoint_entry& self, const basic_tape<T>& t,
      const typename callback_access<T>::mark& m) {
    self.passed.clear();
    for (const auto& o : self.outs) self.passed.push_back(o.index());
    self.reads.clear();
    collect_reads(t, m, self.passed, self.reads);
    self.unknown.clear();
    for (index_t r : self.reads)
      if (!std::binary_search(self.known.begin(), self.known.end(), r)) self.unknown.push_back(r);
    std::sort(self.unknown.begin(), self.unknown.end());
    self.unknown.erase(std::unique(self.unknown.begin(), self.unknown.end()), self.unknown.end());
    throw error("etad: checkpointed_loop's step read " + index_list(self.unknown) +
                " of the tape in the backward sweep, which it did not read in its first step "
                "(a captured real rebound since?); it must read the same reals each time");
  }

  // Tapes step i from the state `cur` (x_i) past the tape's end, sweeps it with lambda (the
  // adjoint of x_{i+1}) and leaves the adjoint of x_i in lambda; step 0 starts from the loop's
  // own initial reals, so that its sweep adds to their adjoints (and to the captured reals')
  // directly.
  static void reverse_step(checkpoint_entry& self, basic_tape<T>& t, std::size_t i,
                           const std::array<T, K>& cur, std::array<T, K>& lambda) {
    recording_pass<T> pass(t);  // (run() made t record)
    std::array<real<T>, K> x;
    for (std::size_t j = 0; j < K; ++j) x[j] = i == 0 ? self.initial[j] : t.variable(cur[j]);
    self.outs.clear();
    outputs_as_reals<T>(std::apply(self.step, x), self.outs);
    if (self.outs.size() != K)
      throw error("etad: checkpointed_loop's step returned " +
                  count_of(self.outs.size(), "value") + " for a state of " + count_of(K, "real"));
    // What the step reads below the pass must be what its first step read (the entry's
    // inputs): a captured real rebound since would take a gradient that belongs to the real it
    // read then. A test per input as they are visited; the list only for the error.
    const index_t below = pass.mark().store.next;
    bool unknown = false;
    const index_t* known = self.known.data();
    const std::size_t known_count = self.known.size();
    auto test = [&](index_t r) {
      if (r == 0 || r >= below) return;
      if (known_count <= 8) {  // (a few state reals and parameters: the usual step)
        bool found = false;
        for (std::size_t q = 0; q < known_count; ++q) found |= known[q] == r;
        unknown |= !found;
      } else {
        unknown |= !std::binary_search(known, known + known_count, r);
      }
    };
    // Usually the step's statements' inputs are one array (no range statement, no block
    // boundary): one loop over it, not a visit of each statement (264 of the 1,250 instructions
    // of a taped step of the benchmark's loop went to this check).
    const std::span<const index_t> read = callback_access<T>::contiguous_inputs_since(t, pass.mark());
    if (read.data() != nullptr) {
      for (index_t r : read) test(r);
    } else {
      callback_access<T>::for_each_input_since(t, pass.mark(), test);
    }
    for (const auto& o : self.outs) test(o.index());
    if (unknown) [[unlikely]]
      unknown_reads(self, t, pass.mark());
    callback_access<T>::sweep_since(t, pass.mark(), self.outs.data(), lambda.data(), K);
    if (i != 0)
      for (std::size_t j = 0; j < K; ++j) lambda[j] = callback_access<T>::adjoint(t, x[j].index());
  }
};

template <class T, std::size_t K, class F>
std::array<real<T>, K> checkpointed(std::size_t n, const F& step,
                                    const std::array<real<T>, K>& init,
                                    const checkpoint_options& options) {
  if (options.snapshots == 0)
    throw error("etad: checkpointed_loop needs at least one snapshot (the initial state is "
                "stored in one); pass {.snapshots = 1} or more");
  basic_tape<T>* t = basic_tape<T>::recording();
  std::array<T, K> cur;
  for (std::size_t j = 0; j < K; ++j) cur[j] = init[j].value();
  bool any = false;
  for (const auto& r : init) any = any || r.index() != 0;
  std::array<real<T>, K> result;
  if (t == nullptr) {
    if (any && paused_recording<T> == 0) entry_without_tape("checkpointed_loop");
    advance_values<T, K>(step, cur.data(), n);
    for (std::size_t j = 0; j < K; ++j) result[j] = real<T>(cur[j]);
    return result;
  }
  for (const auto& r : init) check_epoch(r, *t, "checkpointed_loop");
  if (n == 0) return init;
  // Step 0 recorded, to find the reals the step reads besides the state, then taken back.
  std::vector<index_t> inputs;
  for (const auto& r : init) inputs.push_back(r.index());
  std::vector<index_t> variables;
  {
    recording_pass<T> pass(*t);
    std::vector<real<T>> outs;
    outputs_as_reals<T>(std::apply(step, init), outs);
    for (const auto& o : outs) check_epoch(o, *t, "checkpointed_loop's step");  // (returned as is)
    if (outs.size() != K)
      throw error("etad: checkpointed_loop's step returned " + count_of(outs.size(), "value") +
                  " for a state of " + count_of(K, "real"));
    std::vector<index_t> passed, reads;
    for (const auto& o : outs) passed.push_back(o.index());
    collect_reads(*t, pass.mark(), passed, reads);
    variables_of(reads, inputs, variables);
  }
  // The rest on values, along the schedule's forward sweep: its states are stored as it goes,
  // and the first backward sweep continues from its first reverse (of step n - 1).
  const std::size_t slots = std::min(options.snapshots, n);
  std::vector<T> snaps(slots * K);
  std::copy(cur.begin(), cur.end(), snaps.begin());
  revolve_schedule schedule(n, options.snapshots);
  for (revolve_action a = schedule.next(); a.kind != revolve_kind::reverse; a = schedule.next()) {
    if (a.kind == revolve_kind::advance)
      advance_values<T, K>(step, cur.data(), a.to - a.from);
    else if (a.kind == revolve_kind::store)
      std::copy(cur.begin(), cur.end(), snaps.begin() + std::ptrdiff_t(a.slot * K));
  }
  const std::array<T, K> last = cur;  // x_{n - 1}
  advance_values<T, K>(step, cur.data());  // x_n, the loop's value
  if (!any && variables.empty()) {
    for (std::size_t j = 0; j < K; ++j) result[j] = real<T>(cur[j]);
    return result;
  }
  inputs.insert(inputs.end(), variables.begin(), variables.end());
  using entry = checkpoint_entry<T, K, F>;
  const index_t first = callback_access<T>::template record<entry>(
      *t, inputs, K, &entry::run, slots * K * sizeof(T) + slots * 3 * sizeof(std::size_t),
      entry{step, n, options.snapshots, init, std::move(snaps), options.stats, std::move(schedule),
            last, {}, {}, {}, {}, {}});
  const std::uint32_t epoch = callback_access<T>::epoch(*t);
  for (std::size_t j = 0; j < K; ++j)
    result[j] = recorded_real<T>(cur[j], first + static_cast<index_t>(j), epoch);
  return result;
}

template <class... S>
inline constexpr bool checkpoint_state_v =
    (is_real_v<S> && ...) && (std::is_same_v<S, std::tuple_element_t<0, std::tuple<S...>>> && ...);

template <class F, class... S>
auto checkpointed_loop_of(std::size_t n, const F& step, const checkpoint_options& o,
                          const S&... state) {
  if constexpr (!checkpoint_state_v<S...>) {
    static_assert(sizeof(F) == 0,
                  "etad: checkpointed_loop's state must be reals of one type (etad::real), "
                  "given after the step function");
    return 0;
  } else {
    using R = std::tuple_element_t<0, std::tuple<S...>>;
    using T = typename R::value_type;
    constexpr std::size_t K = sizeof...(S);
    const auto r = checkpointed<T, K>(n, step, std::array<real<T>, K>{state...}, o);
    if constexpr (K == 1)
      return r[0];
    else
      return r;
  }
}

}  // namespace detail

/// checkpointed_loop(n, step, x[, y, z, w][, {.snapshots = s, .stats = &st}]): the state after n
/// applications of step to the state (x, y, ...), one to four reals of one type; step takes the
/// state's reals and returns the new state (one value, or a std::array / std::tuple of one per
/// real). Recorded as ONE tape entry that keeps the initial state and at most s states (the
/// initial one counts), whatever n. The steps are reversed by the binomial (revolve) schedule:
/// the recording runs its forward sweep (storing states on the way) as it computes the value;
/// the backward sweep runs steps again on values, stores and restores states, and tapes each
/// step once, past the tape's end, to sweep it. The steps run on values in all are the least
/// possible for (n, s) (Griewank's binomial optimum: n - 1 for s >= n, n(n - 1)/2 for s = 1),
/// and the first backward sweep runs that less the recording's n - 1 (checkpoint_stats). Reals the
/// step reads besides the state (parameters it captures) get their gradients. The step must
/// compute the same thing each time and read the same reals (an etad::error otherwise); where
/// it can take numbers it is called with numbers for the steps run on values. options.stats, if
/// given, receives what each backward sweep did (checkpoint_stats). n = 0 returns the state.
template <class F, class S>
auto checkpointed_loop(std::size_t n, const F& step, const S& x, checkpoint_options o = {}) {
  return detail::checkpointed_loop_of(n, step, o, x);
}
template <class F, class S>
auto checkpointed_loop(std::size_t n, const F& step, const S& x, const S& y,
                       checkpoint_options o = {}) {
  return detail::checkpointed_loop_of(n, step, o, x, y);
}
template <class F, class S>
auto checkpointed_loop(std::size_t n, const F& step, const S& x, const S& y, const S& z,
                       checkpoint_options o = {}) {
  return detail::checkpointed_loop_of(n, step, o, x, y, z);
}
template <class F, class S>
auto checkpointed_loop(std::size_t n, const F& step, const S& x, const S& y, const S& z,
                       const S& w, checkpoint_options o = {}) {
  return detail::checkpointed_loop_of(n, step, o, x, y, z, w);
}

}  // namespace etad
