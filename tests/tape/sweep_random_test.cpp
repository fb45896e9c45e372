// tests/tape/sweep_random_test.cpp — the backward sweeps against the plain algorithm on random
// tapes. The sweep of gradient(), and of gradients() with unconnected sources reported as zero,
// keeps adjoints in registers (`next`, `next2`, the pending registers of loop parameters) and
// hands them back to memory at range statements, blocks' ends and reads; gradients() reporting
// unconnected sources as none has a loop of its own, with flags. All three are checked against
// the definition, computed here in long double from the same statements: for i from the target
// down, a = adj[i]; if a != 0, adj[input] += a * partial for each input.
//
// Statements are recorded through basic_tape::record / record_range (what real<T> and the
// vector statements use), so the test chooses their inputs: mostly one, two and three below
// (what registers hold), loop parameters (the pending registers), the constants' sink 0, and
// repeats; statements of 0 to 12 partials; range statements, uniform or not, with scattered
// inputs; variables in between; now and then a tape of several blocks. Sweeps of one or two
// statements (a plain loop, see statement_store::sweep_adjoints) are checked in every round.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace {

using real = etad::real<double>;
using etad::detail::index_t;

struct statement {
  std::vector<index_t> input;
  std::vector<double> partial;
};

class random_tape {
public:
  explicit random_tape(std::uint64_t seed) : rng_(seed) {}

  int below(int n) { return int(rng_() % std::uint64_t(n)); }
  double partial() {
    // Exact in binary, so that most sums are exact; 0 makes some adjoints exactly zero.
    static constexpr std::array<double, 10> values{0.5, -0.5,  1.0, -1.0,  0.25,
                                                   2.0, -0.75, 0.0, 1.5, -0.125};
    return values[std::size_t(below(int(values.size())))];
  }

  // Records `count` statements (after a few leading variables) on t; reals_[k] has index k.
  void record(etad::tape& t, int count) {
    statements_.assign(1, {});
    reals_.assign(1, real{});
    parameters_ = {0, 0, 0};
    for (int k = below(6); k > 0; --k) add_variable(t);
    for (int k = 0; k < count; ++k) {
      const index_t i = index_t(reals_.size());
      const int kind = below(20);
      if (kind == 0 || i == 1) {
        add_variable(t);
      } else if (kind == 1 && i >= 3) {
        add_range(t, i);
      } else {
        add_ordinary(t, i);
      }
    }
  }

  // The definition, in long double: adjoints of every index for the targets and seeds, and the
  // sums of the absolute contributions (the scale of the rounding error).
  void reference(std::span<const real> targets, std::span<const double> seeds,
                 std::vector<long double>& adj, std::vector<long double>& scale) const {
    adj.assign(reals_.size(), 0);
    scale.assign(reals_.size(), 0);
    index_t top = 0;
    for (std::size_t k = 0; k < targets.size(); ++k) {
      adj[targets[k].index()] += seeds[k];
      scale[targets[k].index()] += std::fabs(seeds[k]);
      top = std::max(top, targets[k].index());
    }
    for (index_t i = top; i >= 1; --i) {
      const long double a = adj[i], s = scale[i];
      if (a == 0) continue;
      const statement& st = statements_[i];
      for (std::size_t j = 0; j < st.input.size(); ++j) {
        adj[st.input[j]] += a * st.partial[j];
        scale[st.input[j]] += std::fabs(s * st.partial[j]);
      }
    }
  }

  const std::vector<real>& reals() const { return reals_; }

private:
  void add_variable(etad::tape& t) {
    const index_t i = index_t(reals_.size());
    reals_.push_back(t.variable(0.5));
    statements_.push_back({});
    if (below(4) == 0) parameters_[std::size_t(below(3))] = i;
  }

  // An input for statement i: mostly near it, or a loop parameter, or the constants' sink.
  index_t pick(index_t i) {
    const int c = below(16);
    if (c < 4) return i - 1;
    if (c < 7 && i >= 3) return i - 2;
    if (c < 8 && i >= 4) return i - 3;
    if (c < 10) {
      const index_t p = parameters_[std::size_t(below(3))];
      return p != 0 ? p : i - 1;
    }
    if (c < 11) return 0;
    return index_t(1 + below(int(i) - 1));
  }

  void add_ordinary(etad::tape& t, index_t i) {
    static constexpr std::array<int, 14> sizes{1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 12, 0};
    const int m = sizes[std::size_t(below(int(sizes.size())))];
    index_t defined = 0;
    const auto slot = t.record(std::size_t(m), defined);
    REQUIRE(defined == i);
    statement st;
    for (int j = 0; j < m; ++j) {
      slot.input[j] = pick(i);
      slot.partial[j] = partial();
      st.input.push_back(slot.input[j]);
      st.partial.push_back(slot.partial[j]);
    }
    statements_.push_back(st);
    reals_.push_back(etad::detail::recorded_real<double>(0.0, defined, t.epoch()));
  }

  void add_range(etad::tape& t, index_t i) {
    const index_t first = index_t(1 + below(int(i) - 1));
    const std::size_t length = 1 + std::size_t(below(int(std::min<index_t>(i - first, 8))));
    const std::size_t scattered = std::size_t(below(3));
    const bool uniform = below(2) == 0;
    const double scale = partial();
    index_t defined = 0;
    const auto slot = t.record_range(scattered, first, length, uniform, scale, defined);
    REQUIRE(defined == i);
    statement st;
    for (std::size_t j = 0; j < scattered; ++j) {
      slot.input[j] = pick(i);
      slot.partial[j] = partial();
      st.input.push_back(slot.input[j]);
      st.partial.push_back(slot.partial[j]);
    }
    for (std::size_t k = 0; k < length; ++k) {
      const double p = uniform ? scale : partial();
      if (!uniform) slot.range[k] = p;
      st.input.push_back(first + index_t(k));
      st.partial.push_back(p);
    }
    statements_.push_back(st);
    reals_.push_back(etad::detail::recorded_real<double>(0.0, defined, t.epoch()));
  }

  std::mt19937_64 rng_;
  std::vector<statement> statements_;
  std::vector<real> reals_;
  std::array<index_t, 3> parameters_{};
};

}  // namespace

TEST_CASE("tape sweeps: random tapes against the definition", "[tape][sweep]") {
  random_tape r(20261124);
  etad::tape t{etad::persistent};
  std::vector<long double> adj, scale;
  for (int round = 0; round < 1500; ++round) {
    t.reset();
    // Mostly short tapes; every 250th spans several blocks (2^16 partials each).
    const int count = round % 250 == 249 ? 60000 + r.below(40000)
                                         : 2 + r.below(round % 3 == 0 ? 8 : 60);
    r.record(t, count);
    const auto& reals = r.reals();
    const index_t n = index_t(reals.size());
    const index_t hi = r.below(3) != 0 ? n - 1 - index_t(r.below(int(std::min<index_t>(3, n - 1))))
                                       : index_t(1 + r.below(int(n) - 1));
    // Sources: the lowest one, then others above it; sometimes consecutive (the read-out's fast
    // path), sometimes more than 16 (gradient()'s path for many sources).
    const index_t lo = index_t(1 + r.below(int(hi)));
    std::vector<real> sources{reals[lo]};
    if (r.below(4) == 0) {
      for (index_t k = lo + 1; k < std::min<index_t>(n, lo + 1 + index_t(r.below(30))); ++k)
        sources.push_back(reals[k]);
    } else {
      const int extra = r.below(3) == 0 ? 20 + r.below(10) : r.below(8);
      for (int k = 0; k < extra; ++k) sources.push_back(reals[lo + index_t(r.below(int(n - lo)))]);
    }

    // gradient(): one target, seed 1.
    std::vector<double> g(sources.size());
    t.gradient(reals[hi], sources, g);
    const std::array<real, 1> one_target{reals[hi]};
    const std::array<double, 1> one_seed{1.0};
    r.reference(one_target, one_seed, adj, scale);
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const index_t i = sources[k].index();
      INFO("round " << round << ", " << n - 1 << " statements, target " << hi << ", source " << i);
      CHECK(std::fabs(g[k] - adj[i]) <= 1e-12L * scale[i]);
    }
    // Short sweeps (at most two indices from the lowest source up to the target) take a plain
    // loop of their own: sources one and two below the target, and the target itself.
    for (index_t d = 1; d <= 2 && d < hi; ++d) {
      const std::array<real, 2> near{reals[hi - d], reals[hi]};
      std::array<double, 2> gs{};
      t.gradient(reals[hi], near, gs);
      for (std::size_t k = 0; k < near.size(); ++k) {
        const index_t i = near[k].index();
        INFO("round " << round << ", short sweep from " << hi << " to " << i);
        CHECK(std::fabs(gs[k] - adj[i]) <= 1e-12L * scale[i]);
      }
    }

    // gradients(): several targets with seeds.
    std::vector<real> targets{reals[hi]};
    std::vector<double> seeds{1.0};
    for (int k = r.below(3); k > 0; --k) {
      targets.push_back(reals[std::size_t(1 + r.below(int(n) - 1))]);
      seeds.push_back(r.partial());
    }
    const auto gz = t.gradients(targets, sources,
                                {.output_gradients = seeds,
                                 .unconnected_gradients = etad::unconnected::zero});
    r.reference(targets, seeds, adj, scale);
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const index_t i = sources[k].index();
      INFO("round " << round << ", " << n - 1 << " statements, " << targets.size()
                    << " targets, source " << i);
      REQUIRE(gz[k].has_value());
      CHECK(std::fabs(*gz[k] - adj[i]) <= 1e-12L * scale[i]);
    }
    const auto gn = t.gradients(targets, sources, {.output_gradients = seeds});
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const index_t i = sources[k].index();
      INFO("round " << round << ", unconnected none, source " << i);
      if (gn[k].has_value())
        CHECK(std::fabs(*gn[k] - adj[i]) <= 1e-12L * scale[i]);
      else
        CHECK(adj[i] == 0);  // not reached from a target: nothing was added to it
    }
  }
}

// Short sweeps read the current block through the recording cursor and fall back to the block
// search otherwise: sweeps of one and two statements on both sides of block boundaries, in old
// blocks and in the current one. t[j] = t[j - 1] c(j - 1) + y records one statement of two
// partials each, so a block (2^15 statements, 2^16 partials) holds 2^15 of them; the windows
// around its multiples (after the two variables) hold the boundaries whatever their exact
// place. Exact: the c(j) have three significant bits, so dt[i]/dt[i - 2] = c(i - 1) c(i - 2)
// has no rounding.
TEST_CASE("tape sweeps: short sweeps across block boundaries", "[tape][sweep]") {
  const auto c = [](std::size_t j) { return 1.0 + double(j % 7) / 8.0; };
  constexpr std::size_t per_block = etad::detail::statement_store<double>::default_statements;
  etad::tape t{etad::persistent};
  const real y = t.variable(0.5);
  std::vector<real> ts{t.variable(1.0)};
  const std::size_t count = 2 * per_block + 200;
  for (std::size_t j = 1; j <= count; ++j) ts.push_back(ts.back() * c(j - 1) + y);
  REQUIRE(t.statements() == count + 2);
  std::size_t checked = 0;
  for (std::size_t boundary : {per_block, 2 * per_block}) {
    for (std::size_t i = boundary - 64; i <= boundary + 64; ++i) {
      INFO("target t[" << i << "]");
      const std::array<real, 2> one{ts[i - 1], ts[i]}, two{ts[i - 2], ts[i]};
      std::array<double, 2> g1{}, g2{};
      t.gradient(ts[i], one, g1);
      t.gradient(ts[i], two, g2);
      CHECK(g1[0] == c(i - 1));
      CHECK(g1[1] == 1.0);
      CHECK(g2[0] == c(i - 1) * c(i - 2));
      CHECK(g2[1] == 1.0);
      ++checked;
    }
  }
  // The newest statements (the current block): the cursor's path.
  for (std::size_t i = count - 3; i <= count; ++i) {
    std::array<double, 2> g{};
    t.gradient(ts[i], std::array<real, 2>{ts[i - 2], ts[i]}, g);
    CHECK(g[0] == c(i - 1) * c(i - 2));
  }
  CHECK(checked == 2 * 129);
}

// A sweep of more than two statements that stay within the block being recorded (every tape
// shorter than a block) takes a path of its own (statement_store::sweep_long): straight to the
// block's register sweep through the recording cursor. Checked against tangents computed here,
// for sweeps down to the leading variables, down to an intermediate in the block, across a
// variable recorded between statements, and over a block that holds a range statement (whose
// register sweep decodes range flags). t[j] = t[j - 1] c(j - 1) + y as in the test above: the
// products of the c(k) here are exact (their odd parts have fewer than 53 bits), so derivatives
// with respect to an intermediate must match exactly; sums are compared to a relative 1e-14.
TEST_CASE("tape sweeps: long sweeps within the block being recorded", "[tape][sweep]") {
  const auto c = [](std::size_t j) { return 1.0 + double(j % 7) / 8.0; };
  // d t[to] / d t[from], and d t[to] / dy, in plain doubles.
  const auto dt_dt = [&](std::size_t to, std::size_t from) {
    double p = 1;
    for (std::size_t k = from; k < to; ++k) p *= c(k);
    return p;
  };
  const auto dt_dy = [&](std::size_t to) {
    double s = 0;
    for (std::size_t j = 1; j <= to; ++j) s += dt_dt(to, j);
    return s;
  };
  const auto close = [](double got, double want) {
    return std::fabs(got - want) <= 1e-14 * std::fabs(want);
  };
  constexpr std::size_t count = 20;
  etad::tape t{etad::persistent};
  const real y = t.variable(0.5);
  std::vector<real> ts{t.variable(1.0)};
  for (std::size_t j = 1; j <= count; ++j) ts.push_back(ts.back() * c(j - 1) + y);

  SECTION("down to the leading variables") {
    const auto [d0, dy] = t.gradient(ts[count], ts[0], y);
    CHECK(close(d0, dt_dt(count, 0)));
    CHECK(close(dy, dt_dy(count)));
  }
  SECTION("down to an intermediate in the block") {
    const auto [d6, d12, d20] = t.gradient(ts[count], ts[6], ts[12], ts[count]);
    CHECK(d6 == dt_dt(count, 6));
    CHECK(d12 == dt_dt(count, 12));
    CHECK(d20 == 1.0);
  }
  SECTION("across a variable recorded between statements") {
    const real v = t.variable(2.0);
    const real q1 = ts[count] * v;
    const real q2 = q1 * 3.0 + ts[15];
    const real q3 = q2 * q2;
    const auto [dv, d15, dy] = t.gradient(q3, v, ts[15], y);
    // q3 = q2^2, q2 = 3 t20 v + t15: dq3 = 2 q2 dq2, and t15 depends on y too.
    const double q2v = q2.value();
    CHECK(close(dv, 2 * q2v * 3 * ts[count].value()));
    CHECK(close(d15, 2 * q2v * (3 * v.value() * dt_dt(count, 15) + 1)));
    CHECK(close(dy, 2 * q2v * (3 * v.value() * dt_dy(count) + dt_dy(15))));
  }
  SECTION("a block that holds a range statement") {
    const real s = etad::sum(std::span<const real>(ts).subspan(5, 10));  // t[5] + ... + t[14]
    const real r = s * ts[count];
    const auto [d0, d3] = t.gradient(r, ts[0], ts[3]);
    double ds_d0 = 0, ds_d3 = 0;
    for (std::size_t k = 5; k < 15; ++k) {
      ds_d0 += dt_dt(k, 0);
      ds_d3 += dt_dt(k, 3);
    }
    CHECK(close(d0, ds_d0 * ts[count].value() + s.value() * dt_dt(count, 0)));
    CHECK(close(d3, ds_d3 * ts[count].value() + s.value() * dt_dt(count, 3)));
  }
}
