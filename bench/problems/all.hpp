// bench/problems/all.hpp — every tape-benchmark problem, and the list of them with their sizes.
#pragma once

#include "chain.hpp"
#include "common.hpp"
#include "normal_log_density.hpp"
#include "quadratic_form.hpp"
#include "recurrence.hpp"
#include "reductions.hpp"
#include "regression.hpp"

#include <array>
#include <string_view>

namespace tape_bench {

/// The sizes each problem is benchmarked (and measured by tools/tape_memory.cpp) at.
template <class P>
inline constexpr std::array<long, 0> sizes_of{};
template <> inline constexpr std::array<long, 4> sizes_of<sum_problem>{10, 100, 1000, 10000};
template <> inline constexpr std::array<long, 4> sizes_of<prod_problem>{10, 100, 1000, 10000};
template <> inline constexpr std::array<long, 4> sizes_of<log_sum_exp_problem>{10, 100, 1000, 10000};
template <> inline constexpr std::array<long, 4> sizes_of<normal_log_density_problem>{10, 100, 1000, 10000};
template <> inline constexpr std::array<long, 3> sizes_of<chain_problem>{10, 100, 1000};
template <> inline constexpr std::array<long, 3> sizes_of<quadratic_form_problem>{16, 64, 256};
template <> inline constexpr std::array<long, 2> sizes_of<regression_problem>{10, 100};
template <> inline constexpr std::array<long, 1> sizes_of<recurrence_problem>{1000};

/// The sizes at which a problem also has etad_static<N>, its size fixed at compile time (the
/// reductions over a pack of N placeholders; chain's and the recurrence's etad_static take their
/// size at run time and run at every size). Larger packs are left out for the benchmark's
/// compile time: the sweep of a pack grows with N (docs/performance.md, "Static reductions over
/// a pack").
template <class P>
inline constexpr std::array<std::size_t, 0> static_sizes_of{};
template <> inline constexpr std::array<std::size_t, 2> static_sizes_of<sum_problem>{10, 100};
template <> inline constexpr std::array<std::size_t, 2> static_sizes_of<prod_problem>{10, 100};
template <> inline constexpr std::array<std::size_t, 2> static_sizes_of<log_sum_exp_problem>{10, 100};

/// Calls f(P{}) — a value of type problem_tag<P> — for every problem, in the benchmark order.
template <class P>
struct problem_tag {
  using type = P;
};
template <class F>
void for_each_problem(F&& f) {
  f(problem_tag<sum_problem>{});
  f(problem_tag<prod_problem>{});
  f(problem_tag<log_sum_exp_problem>{});
  f(problem_tag<normal_log_density_problem>{});
  f(problem_tag<chain_problem>{});
  f(problem_tag<quadratic_form_problem>{});
  f(problem_tag<regression_problem>{});
  f(problem_tag<recurrence_problem>{});
}

}  // namespace tape_bench
