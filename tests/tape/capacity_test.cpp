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
