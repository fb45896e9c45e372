// tests/tape/memory_test.cpp — the tape's memory() by kind and its peak_memory(): what a recording
// holds (statement offsets, partials with their input indices, block values, callback entries),
// counted from what was recorded, and the peak kept across reset() until reset_peak_memory().
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

using etad::real;

TEST_CASE("tape memory: by kind, from what was recorded", "[tape][memory]") {
  etad::tape t;
  CHECK(t.memory().total() == 0);
  real x = t.variable(2.0), y = t.variable(3.0);
  CHECK(t.memory().total() == 0);  // leading variables are not stored
  real z = x * y;                  // one statement of two partials
  etad::memory_use m = t.memory();
  CHECK(m.statements == sizeof(std::uint32_t));
  CHECK(m.partials == 2 * (sizeof(double) + sizeof(std::uint32_t)));
  CHECK(m.values == 0);
  CHECK(m.callbacks == 0);
  real w = z * z + x;              // two more partials (z once, merged or not: at most 3)
  m = t.memory();
  CHECK(m.statements == 2 * sizeof(std::uint32_t));
  CHECK(m.partials == t.partials() * (sizeof(double) + sizeof(std::uint32_t)));
  // A block of 10 values: at least their bytes, rounded up to whole cache lines.
  const std::vector<double> v(10, 1.0);
  auto b = t.variable_block(v);
  CHECK(t.memory().values >= 10 * sizeof(double));
  CHECK(t.memory().values < 10 * sizeof(double) + 64);
  // A callback entry holds its object and inputs.
  auto f = etad::custom_gradient([](const real<>& a) {
    return std::pair{2 * a, [](double d) { return 2 * d; }};
  });
  real u = f(w);
  CHECK(t.memory().callbacks > 0);
  // Variables made after statements, and an entry's output, take an offset each: 10 + 1.
  CHECK(t.memory().statements == m.statements + 11 * sizeof(std::uint32_t));
  CHECK(t.memory().partials == m.partials);
  (void)u;
  (void)b;
}

TEST_CASE("tape memory: the peak of a recording, and taken-back recordings", "[tape][memory]") {
  etad::tape t;
  real x = t.variable(1.0);
  real s = x;
  for (int i = 0; i < 100; ++i) s = s * x;
  const std::size_t full = t.memory().total();
  CHECK(full == 100 * sizeof(std::uint32_t) + t.partials() * (sizeof(double) + sizeof(std::uint32_t)));
  CHECK(t.peak_memory() == full);
  t.reset();
  CHECK(t.memory().total() == 0);
  CHECK(t.peak_memory() == 0);  // a new recording, a new peak
  // A custom gradient's forward pass records 50 statements and takes them back: the peak saw
  // them, the recording keeps the entry only.
  real y = t.variable(1.0);
  auto g = etad::custom_gradient([](const real<>& a) {
    real b = a;
    for (int i = 0; i < 50; ++i) b = b * a;
    return std::pair{b, [](double d) { return 51 * d; }};
  });
  real z = g(y);
  CHECK(t.memory().partials == 0);
  CHECK(t.peak_memory() >= 50 * (sizeof(double) + sizeof(std::uint32_t)));
  CHECK(t.gradient(z, y)[0] == 51.0);
}
