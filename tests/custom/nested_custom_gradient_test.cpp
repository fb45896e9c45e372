// tests/custom/nested_custom_gradient_test.cpp — a rule's own derivative rule, TensorFlow's nested
// custom_gradient: a rule whose partials() calls another custom rule makes that rule's partials
// the second derivative, on nested tapes. Expected values are derived by hand in comments.
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

// A named namespace: clang warns of a rule's unused `name` in an anonymous one.
namespace nested_custom_gradient_test {

/// 3x^2 as a rule of its own, whose derivative is given as the constant Slope (not 6x): the
/// "second_order_and_transpose" of TF's example, chosen wrong on purpose so that a result that
/// differentiated 3x^2 instead would show.
template <int Slope>
struct cube_slope_op {
  static constexpr std::string_view name = "cube_slope";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return 3 * x * x; }
  static constexpr auto partials(const auto& x, const auto&) {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{T(Slope)};
  }
};

/// x^3 whose partial is cube_slope_op<Slope>(x): the first derivative's own rule.
template <int Slope>
struct cube_op {
  static constexpr std::string_view name = "cube";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return x * x * x; }
  static constexpr auto partials(const auto& x, const auto&) {
    return std::array{etad::apply(cube_slope_op<Slope>{}, x)};
  }
};

/// f'(x) and f''(x) of f = cube_op<Slope>, by a tape nested in an outer one.
template <int Slope>
std::array<double, 2> cube_first_and_second(double x) {
  return etad_tape_test::first_and_second(
      [](const auto& v) { return etad::apply(cube_op<Slope>{}, v); }, x);
}

}  // namespace nested_custom_gradient_test

using namespace nested_custom_gradient_test;

TEST_CASE("nested custom gradient: the partial's own rule is the second derivative",
          "[custom][nested]") {
  // f = x^3 at x = 2: f' = 3 x^2 = 12 (cube_slope's value); f'' = the declared slope, 100, not
  // 6x = 12.
  const auto [d1, d2] = cube_first_and_second<100>(2.0);
  CHECK(d1 == 12.0);
  CHECK(d2 == 100.0);
  // Declared right (6x would need x; a constant 12 is right at x = 2 only): f'' = 12 at 2.
  const auto [e1, e2] = cube_first_and_second<12>(2.0);
  CHECK(e1 == 12.0);
  CHECK(e2 == 12.0);
  // The static gradient uses the first-order rule alone: f' = 3 x^2 at x = -1.5 is 6.75.
  const auto g = etad::gradient([](auto x) { return etad::apply(cube_op<100>{}, x); }, -1.5);
  CHECK(g.value == -3.375);
  CHECK(g.gradient[0] == 6.75);
}
