// tests/tape/capacity_test.cpp — a tape's indices are 32-bit: index 0 stands for constants and
// 2^32 - 1 is never handed out, so a tape holds 2^32 - 2 values. The next one, whether a variable,
// a block of variables or a statement, is an etad::error that says so (never a wrapped index,
// which would silently alias value 0 or 1), and the tape is usable again after reset().
// Variables at the start of a recording store nothing (a counter moves), so filling a tape costs
// seconds, not memory.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using real = etad::real<double>;

bool says_full(const etad::error& e) {
  return std::string_view(e.what()).find("etad: the tape is full (2^32 - 2 values)") !=
         std::string_view::npos;
}

}  // namespace

TEST_CASE("tape capacity: the value after the last index is an error, and reset() recovers",
          "[tape][storage][errors]") {
  constexpr std::uint64_t capacity = (std::uint64_t(1) << 32) - 2;  // indices 1 .. 2^32 - 2
  etad::tape t;
  const real x = t.variable(3.0);
  // All but the last ten indices, as variables (nothing stored), then ten more in one block.
  for (std::uint64_t i = 1; i < capacity - 10; ++i) (void)t.variable(0.0);
  std::array<real, 10> last;
  const std::array<double, 10> values{};
  t.variables(values, last);
  REQUIRE(t.statements() == capacity);
  CHECK(last[9].index() == capacity);

  // A statement, a variable, a block of variables: each would need index 2^32 - 1.
  int thrown = 0;
  try {
    const real y = x * x;
    FAIL("a statement past the last index was recorded at index " << y.index());
  } catch (const etad::error& e) {
    CHECK(says_full(e));
    ++thrown;
  }
  try {
    (void)t.variable(1.0);
    FAIL("a variable past the last index was recorded");
  } catch (const etad::error& e) {
    CHECK(says_full(e));
    ++thrown;
  }
  try {
    const std::array<double, 1> one{2.0};
    std::array<real, 1> out;
    t.variables(one, out);
    FAIL("variables() past the last index were recorded");
  } catch (const etad::error& e) {
    CHECK(says_full(e));
    ++thrown;
  }
  CHECK(thrown == 3);
  // The throws left the tape as it was.
  CHECK(t.statements() == capacity);

  // After reset() the tape records and differentiates again: d(a^3 + 2a)/da = 3a^2 + 2 = 14 at 2.
  t.reset();
  const real a = t.variable(2.0);
  const real f = a * a * a + 2.0 * a;
  CHECK(f.value() == 12.0);
  CHECK(t.gradient(f, a)[0] == 14.0);
}

TEST_CASE("tape capacity: statements take the last indices on a tape that kept its blocks",
          "[tape][storage][errors]") {
  // append() finds the last index through the end limit of its recording cursor (there is no
  // separate test of the index), which depends on the first index of the block. A tape that
  // kept a block from an earlier recording has the cursor from the start, and variables before
  // any statement move the block's first index: one by one (variable()) and in one call
  // (variables()). Statements must then stop exactly at the last index.
  constexpr std::uint64_t capacity = (std::uint64_t(1) << 32) - 2;
  etad::tape t;
  {
    const real a = t.variable(1.0);
    const real b = a * a;
    CHECK(b.value() == 1.0);
  }
  t.reset();  // keeps the block
  const real x = t.variable(3.0);
  for (std::uint64_t i = 0; i < capacity - 14; ++i) (void)t.variable(0.0);
  std::array<real, 10> last;
  const std::array<double, 10> values{};
  t.variables(values, last);
  CHECK(last[9].index() == capacity - 3);
  real y = x;
  for (int k = 0; k < 3; ++k) y = y * x;  // indices capacity - 2 .. capacity
  CHECK(y.index() == capacity);
  CHECK(y.value() == 81.0);
  CHECK(t.statements() == capacity);
  try {
    const real w = y * x;
    FAIL("a statement past the last index was recorded at index " << w.index());
  } catch (const etad::error& e) {
    CHECK(says_full(e));
  }
  CHECK(t.statements() == capacity);

  t.reset();
  const real a = t.variable(2.0);
  const real f = a * a * a;
  CHECK(t.gradient(f, a)[0] == 12.0);
}
