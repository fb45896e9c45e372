// bench/problems/checkpoint_loop.hpp — checkpoint_loop/N: N steps of chain's body (chain.hpp)
// from t = x, gradient with respect to x, y, z, recorded whole (etad_tape), as one recompute_grad
// entry per step (etad_recompute), or as one checkpointed_loop entry of 10 snapshots
// (etad_revolve): what checkpointing costs in time for the tape memory it saves.
#pragma once

#include "chain.hpp"
#include "common.hpp"

#include <etad/custom/checkpointed_loop.hpp>
#include <etad/custom/recompute_grad.hpp>

#include <array>
#include <cstddef>
#include <span>

namespace tape_bench {

class checkpoint_loop_problem {
public:
  static constexpr const char* name = "checkpoint_loop";
  /// The snapshots etad_revolve keeps (the initial state counts as one).
  static constexpr std::size_t snapshots = 10;

  explicit checkpoint_loop_problem(std::size_t n) : n_(n), chain_(n) {}
  std::size_t sources() const { return 3; }
  void next() { chain_.next(); }

  /// chain's hand-written forward-mode gradient (three tangents), the same code as chain's row.
  double handwritten(std::span<double> g) const { return chain_.handwritten(g); }

  /// One etad::call statement of 4 partials per step, all kept: chain's etad_tape at size N.
  double etad_tape(etad_workspace& ws, std::span<double> g) const {
    return tape_gradient(ws, point(), g,
                         [n = n_](const etad::real<>& x, const etad::real<>& y,
                                  const etad::real<>& z) __attribute__((always_inline)) {
                           etad::real<> t = x;
                           for (std::size_t i = 0; i < n; ++i)
                             t = etad::call(chain_problem::step, t, x, y, z);
                           return t;
                         });
  }

  /// Each step through recompute_grad: one entry per step that keeps its argument t (x, y, z
  /// are read as captured reals); the backward sweep records each step again, sweeps it and
  /// takes it back.
  double etad_recompute(etad_workspace& ws, std::span<double> g) const {
    return tape_gradient(ws, point(), g,
                         [n = n_](const etad::real<>& x, const etad::real<>& y,
                                  const etad::real<>& z) __attribute__((always_inline)) {
                           const auto step = etad::recompute_grad([&](const etad::real<>& v) {
                             return etad::call(chain_problem::step, v, x, y, z);
                           });
                           etad::real<> t = x;
                           for (std::size_t i = 0; i < n; ++i) t = step(t);
                           return t;
                         });
  }

  /// The N steps as one checkpointed_loop entry of `snapshots` stored states (binomial
  /// schedule); what its last backward sweep did is in stats().
  double etad_revolve(etad_workspace& ws, std::span<double> g) {
    return tape_gradient(ws, point(), g,
                         [this](const etad::real<>& x, const etad::real<>& y,
                                const etad::real<>& z) __attribute__((always_inline)) {
                           return etad::checkpointed_loop(
                               n_,
                               [&](const etad::real<>& v) {
                                 return etad::call(chain_problem::step, v, x, y, z);
                               },
                               x, {.snapshots = snapshots, .stats = &stats_});
                         });
  }
  const etad::checkpoint_stats& stats() const { return stats_; }

private:
  std::array<double, 3> point() const {
    const std::span<const double> p = chain_.inputs();
    return {p[0], p[1], p[2]};
  }

  std::size_t n_;
  chain_problem chain_;
  etad::checkpoint_stats stats_;
};

}  // namespace tape_bench
