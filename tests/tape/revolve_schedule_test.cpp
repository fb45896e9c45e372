// tests/tape/revolve_schedule_test.cpp — the binomial checkpointing schedule (tape/detail/revolve.hpp)
// run by a simulator that tracks which state is current and which slot holds which state, against
// a brute-force dynamic program for small chains and hand-computed binomial optima for large ones.
#include <etad/tape/detail/revolve.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace {

using etad::detail::revolve_action;
using etad::detail::revolve_kind;
using etad::detail::revolve_recomputations;
using etad::detail::revolve_schedule;
using etad::detail::revolve_split;

constexpr std::size_t no_state = std::numeric_limits<std::size_t>::max();

struct run_result {
  bool ok = false;               // every check passed (the first failure is reported by CHECK)
  std::size_t recomputed = 0;    // sum of (to - from) over advances
  std::size_t max_depth = 0;     // deepest the schedule's stack got
};

/// Executes the schedule for (n, s) on a chain whose state is its index (F(x) = x + 1, x_0 = 0)
/// and checks it: advances start at the current state and never pass the next step to reverse;
/// stores and restores name the right state and a slot below s; a restore reads a slot that
/// holds that state; reverses come at the current state in the order n - 1, ..., 0, each once;
/// done comes after the last of them and stays. Stops at the first failure.
run_result simulate(std::size_t n, std::size_t s) {
  run_result res;
  revolve_schedule schedule(n, s);
  std::map<std::size_t, std::size_t> slot_state{{0, 0}};  // slot -> state index; x_0 in slot 0
  std::size_t current = 0;
  std::size_t next_reverse = n;  // steps n - 1, ..., next_reverse are reversed
  // Each step is split off once at most: n - 1 advances, n - 1 stores, n - 1 restores, n reverses.
  const std::size_t limit = 4 * n + 1;
  for (std::size_t count = 0;; ++count) {
    if (count > limit) {
      FAIL_CHECK("more than " << limit << " actions for n = " << n << ", s = " << s);
      return res;
    }
    const revolve_action act = schedule.next();
    res.max_depth = std::max(res.max_depth, schedule.depth());
    INFO("n = " << n << ", s = " << s << ", action " << count);
    switch (act.kind) {
      case revolve_kind::advance:
        if (current == no_state || act.from != current || act.to <= act.from ||
            act.to >= next_reverse) {
          FAIL_CHECK("bad advance " << act.from << " -> " << act.to << " at state " << current);
          return res;
        }
        res.recomputed += act.to - act.from;
        current = act.to;
        break;
      case revolve_kind::store:
        if (current == no_state || act.at != current || act.slot >= s) {
          FAIL_CHECK("bad store of " << act.at << " in slot " << act.slot << " at " << current);
          return res;
        }
        slot_state[act.slot] = act.at;
        break;
      case revolve_kind::restore: {
        const auto it = slot_state.find(act.slot);
        if (act.slot >= s || it == slot_state.end() || it->second != act.at) {
          FAIL_CHECK("bad restore of " << act.at << " from slot " << act.slot);
          return res;
        }
        current = act.at;
        break;
      }
      case revolve_kind::reverse:
        if (next_reverse == 0 || act.at != next_reverse - 1 || current != act.at) {
          FAIL_CHECK("bad reverse of step " << act.at << " at state " << current
                                            << ", expected step " << next_reverse - 1);
          return res;
        }
        --next_reverse;
        current = no_state;  // the taped step leaves no usable current state
        break;
      case revolve_kind::done:
        if (next_reverse != 0) {
          FAIL_CHECK("done with steps 0.." << next_reverse - 1 << " not reversed");
          return res;
        }
        if (schedule.next().kind != revolve_kind::done) {
          FAIL_CHECK("an action after done");
          return res;
        }
        res.ok = true;
        return res;
    }
  }
}

constexpr std::size_t max_n = 60;
constexpr std::size_t max_s = 12;
constexpr std::size_t infinite = std::numeric_limits<std::size_t>::max() / 4;

/// t[l][c]: the fewest advances to reverse l steps from a stored x_a with c slots, by brute force:
/// t(1, c) = 0, t(l, 1) = l (l - 1) / 2, t(l, c) = min over 0 < m < l of m + t(l - m, c - 1) +
/// t(m, c). Row c = 0 is "no slot": only a single step, reversed from the current state.
std::vector<std::vector<std::size_t>> brute_force() {
  std::vector<std::vector<std::size_t>> t(max_n + 1, std::vector<std::size_t>(max_s + 1, infinite));
  for (std::size_t c = 0; c <= max_s; ++c) t[1][c] = 0;
  for (std::size_t l = 2; l <= max_n; ++l) {
    t[l][1] = l * (l - 1) / 2;
    for (std::size_t c = 2; c <= max_s; ++c)
      for (std::size_t m = 1; m < l; ++m)
        t[l][c] = std::min(t[l][c], m + t[l - m][c - 1] + t[m][c]);
  }
  return t;
}

}  // namespace

TEST_CASE("revolve: schedule and closed form agree with brute force for n <= 60, s <= 12",
          "[tape][revolve]") {
  const auto t = brute_force();
  for (std::size_t n = 1; n <= max_n; ++n) {
    for (std::size_t s = 1; s <= max_s; ++s) {
      INFO("n = " << n << ", s = " << s);
      CHECK(revolve_recomputations(n, s) == t[n][s]);
      const run_result run = simulate(n, s);
      REQUIRE(run.ok);
      CHECK(run.recomputed == t[n][s]);
      CHECK(run.max_depth <= std::min(n, s));
    }
  }
}

TEST_CASE("revolve: every split point is an optimal one", "[tape][revolve]") {
  const auto t = brute_force();
  for (std::size_t l = 2; l <= max_n; ++l) {
    for (std::size_t c = 1; c <= max_s; ++c) {
      INFO("l = " << l << ", c = " << c);
      const std::size_t m = revolve_split(l, c);
      REQUIRE(m >= 1);
      REQUIRE(m < l);
      CHECK(m + t[l - m][c - 1] + t[m][c] == t[l][c]);
    }
  }
}

TEST_CASE("revolve: edge cases", "[tape][revolve]") {
  SECTION("n = 0 is done at once") {
    revolve_schedule schedule(0, 3);
    CHECK(schedule.next().kind == revolve_kind::done);
    CHECK(schedule.next().kind == revolve_kind::done);
    CHECK(revolve_recomputations(0, 1) == 0);
  }
  SECTION("n = 1 is one reverse at x_0 and no advance") {
    for (std::size_t s : {std::size_t(1), std::size_t(2), std::size_t(50)}) {
      revolve_schedule schedule(1, s);
      const revolve_action first = schedule.next();
      CHECK(first.kind == revolve_kind::reverse);
      CHECK(first.at == 0);
      CHECK(schedule.next().kind == revolve_kind::done);
      CHECK(revolve_recomputations(1, s) == 0);
    }
  }
  SECTION("s >= n gives n - 1, as does s = n - 1; s = n - 2 gives n") {
    for (std::size_t n : {std::size_t(2), std::size_t(7), std::size_t(100), std::size_t(1000)}) {
      INFO("n = " << n);
      for (std::size_t s : {n - 1, n, n + 1, 3 * n}) {
        if (s == 0) continue;
        CHECK(revolve_recomputations(n, s) == n - 1);
        const run_result run = simulate(n, s);
        REQUIRE(run.ok);
        CHECK(run.recomputed == n - 1);
      }
      if (n >= 3) {
        CHECK(revolve_recomputations(n, n - 2) == n);
        CHECK(simulate(n, n - 2).recomputed == n);
      }
    }
    const std::size_t huge = std::numeric_limits<std::size_t>::max();
    CHECK(revolve_recomputations(10'000'000, huge) == 9'999'999);
    CHECK(revolve_recomputations(10'000'000, huge - 1) == 9'999'999);
    CHECK(revolve_recomputations(10'000'000, 9'999'998) == 10'000'000);
    const run_result run = simulate(300, huge);
    REQUIRE(run.ok);
    CHECK(run.recomputed == 299);
  }
  SECTION("s = 0 throws") {
    CHECK_THROWS_AS(revolve_schedule(5, 0), etad::error);
    CHECK_THROWS_AS(revolve_recomputations(5, 0), etad::error);
    CHECK_THROWS_WITH(revolve_schedule(5, 0), Catch::Contains("at least one snapshot slot"));
  }
}

// Expected values by hand, r the least with C(s + r, s) >= n, t = r n - C(s + r, s + 1):
//   n = 10^4,  s = 1:   t = n (n - 1) / 2 = 49 995 000
//   n = 10^4,  s = 10:  C(16,10) = 8008 < n <= C(17,10) = 19448, r = 7: 70 000 - C(17,11) = 12376
//                        -> 57 624
//   n = 10^4,  s = 100: C(102,100) = 5151 < n <= C(103,100) = 176 851, r = 3:
//                        30 000 - C(103,101) = 5253 -> 24 747
//   n = 10^5,  s = 10:  C(19,10) = 92 378 < n <= C(20,10) = 184 756, r = 10:
//                        1 000 000 - C(20,11) = 167 960 -> 832 040
//   n = 10^5,  s = 1:   4 999 950 000 (the 10^5-deep case of a recursive version)
//   n = 10^7,  s = 1:   49 999 995 000 000;  s = 2: r = 4471 (4472 * 4471 / 2 < n <= 4473 * 4472 / 2),
//                        44 710 000 000 - C(4473, 3) = 14 905 759 596 -> 29 804 240 404
TEST_CASE("revolve: large chains", "[tape][revolve]") {
  struct large_case {
    std::size_t n, s, expected;
  };
  for (const large_case& k : {large_case{10'000, 1, 49'995'000}, large_case{10'000, 10, 57'624},
                              large_case{10'000, 100, 24'747}, large_case{100'000, 10, 832'040},
                              large_case{100'000, 1, 4'999'950'000}}) {
    INFO("n = " << k.n << ", s = " << k.s);
    CHECK(revolve_recomputations(k.n, k.s) == k.expected);
    const run_result run = simulate(k.n, k.s);
    REQUIRE(run.ok);
    CHECK(run.recomputed == k.expected);
    CHECK(run.max_depth <= k.s);
  }
  if constexpr (sizeof(std::size_t) >= 8) {
    CHECK(revolve_recomputations(10'000'000, 1) == std::size_t(49'999'995'000'000));
    CHECK(revolve_recomputations(10'000'000, 2) == std::size_t(29'804'240'404));
    // n (n - 1) / 2 with n = 2^40 is about 2^79: too large for std::size_t.
    CHECK_THROWS_AS(revolve_recomputations(std::size_t(1) << 40, 1), etad::error);
  }
}
