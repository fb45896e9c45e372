// tests/tape/threads_test.cpp — one tape per thread: the active tape is thread_local, so four
// threads recording and differentiating at the same time get results bitwise equal to the same
// computations run one after another on one thread.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <latch>
#include <thread>
#include <vector>

namespace {

using real = etad::real<double>;

struct result {
  double value;
  std::array<double, 3> gradient;
  double second;  // d2/dx2 by nested tapes
  std::size_t statements;
  bool own_tape_active;
};

/// A computation with a data-dependent loop, reductions, map_sum and a nested tape, all of which
/// use per-thread state (the active tapes, map_sum's buffers).
result compute(double input) {
  result r{};
  etad::tape t{etad::persistent};
  r.own_tape_active = etad::tape::current() == &t;
  const real x = t.variable(input);
  const real y = t.variable(1.0 + input * input);
  const real c = t.variable(0.5);
  real z = x;
  while (z < 20.0) z = z * y + etad::exp(c);
  std::vector<real> v;
  for (int i = 0; i < 50; ++i) v.push_back(etad::sin(x * (i + 1.0)) * c + y);
  const real total = etad::log_sum_exp(v) + etad::squared_norm(v) * 1e-3 +
                     etad::map_sum([](auto a, auto b) { return a * b; }, v, c) + etad::log(z);
  r.value = total.value();
  r.gradient = t.gradient(total, x, y, c);
  r.statements = t.statements();
  // d2/dx2 of x^3 sin(x) by nested tapes.
  real d;
  {
    etad::basic_tape<real> inner;
    const etad::real<real> xi = inner.variable(x);
    const etad::real<real> f = xi * xi * xi * etad::sin(xi);
    d = inner.gradient(f, xi)[0];
  }
  r.second = t.gradient(d, x)[0];
  r.own_tape_active = r.own_tape_active && etad::tape::current() == &t;
  return r;
}

bool bitwise_equal(const result& a, const result& b) {
  return std::memcmp(&a.value, &b.value, sizeof a.value) == 0 &&
         std::memcmp(a.gradient.data(), b.gradient.data(), sizeof a.gradient) == 0 &&
         std::memcmp(&a.second, &b.second, sizeof a.second) == 0 && a.statements == b.statements &&
         a.own_tape_active == b.own_tape_active;
}

}  // namespace

TEST_CASE("tape threads: four threads with their own tapes match the serial results bitwise",
          "[tape][threads]") {
  constexpr int threads = 4;
  constexpr int per_thread = 100;
  const auto input = [](int thread, int k) { return 0.1 + 0.37 * thread + 0.011 * k; };

  std::vector<result> serial;
  for (int th = 0; th < threads; ++th)
    for (int k = 0; k < per_thread; ++k) serial.push_back(compute(input(th, k)));

  std::vector<result> parallel(serial.size());
  std::latch start(threads);
  std::vector<std::thread> pool;
  for (int th = 0; th < threads; ++th)
    pool.emplace_back([&, th] {
      start.arrive_and_wait();  // all four record at the same time
      for (int k = 0; k < per_thread; ++k) parallel[th * per_thread + k] = compute(input(th, k));
    });
  for (auto& p : pool) p.join();

  int mismatches = 0;
  for (std::size_t i = 0; i < serial.size(); ++i) {
    if (!bitwise_equal(serial[i], parallel[i])) ++mismatches;
    CHECK(serial[i].own_tape_active);
  }
  CHECK(mismatches == 0);
  // Different inputs give different results (the comparison above is not vacuous).
  CHECK(serial[0].gradient != serial[per_thread].gradient);
  // Spot-check the nested second derivative against its closed form:
  // d2/dx2 x^3 sin x = 6 x sin x + 6 x^2 cos x - x^3 sin x.
  const double x = input(2, 7);
  CHECK(serial[2 * per_thread + 7].second ==
        Approx(6 * x * std::sin(x) + 6 * x * x * std::cos(x) - x * x * x * std::sin(x)).epsilon(1e-13));
}

TEST_CASE("tape threads: the active tape is per thread", "[tape][threads]") {
  etad::tape mine;
  const real x = mine.variable(2.0);
  bool other_sees_none = false, other_throws = false;
  std::thread([&] {
    other_sees_none = etad::tape::current() == nullptr;
    try {
      const real y = x * x;  // x is on this thread's tape; the other thread has none
      (void)y;
    } catch (const etad::error&) {
      other_throws = true;
    }
  }).join();
  CHECK(other_sees_none);
  CHECK(other_throws);
  CHECK(etad::tape::current() == &mine);
  const real z = x * x;
  CHECK(mine.gradient(z, x)[0] == 4.0);
}

TEST_CASE("tape threads: epochs stay distinct across threads and many resets", "[tape][threads]") {
  // Threads take epochs in batches (detail::epoch_batch); a real of one thread's tape must never
  // look current on another's. 4 threads x 3 batches of resets each, all epochs distinct.
  constexpr std::size_t threads = 4;
  const std::size_t per_thread = 3 * etad::detail::epoch_batch + 7;
  std::vector<std::vector<std::uint32_t>> seen(threads);
  std::latch start(threads);
  std::vector<std::thread> pool;
  for (std::size_t k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      start.arrive_and_wait();  // interleave the threads' batches
      etad::tape t;
      for (std::size_t r = 0; r < per_thread; ++r) {
        seen[k].push_back(t.epoch());
        t.reset();
      }
    });
  for (auto& th : pool) th.join();
  std::vector<std::uint32_t> all;
  for (const auto& s : seen) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  CHECK(all.size() == threads * per_thread);
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
  CHECK(all.front() != 0);
}
