// tests/core/node_copy_test.cpp — how nodes are copied (detail::copy_policy in
// core/expression.hpp): input-only nodes (no state) are trivially copyable, nodes with state are
// copied by a non-trivial copy constructor (so that compilers build them in place), and neither
// policy costs space.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <type_traits>

namespace {

using x = etad::arg<0>;
using y = etad::arg<1>;
using c = etad::constant<double>;

using sin_x = decltype(sin(x{}));
using sin_x_times_y = decltype(sin(x{}) * y{});
using nested_input_only = decltype(sin(x{}) * cos(x{} * y{}) + x{} * x{});
using with_constant = decltype(c{2.0} * x{});
using nested_with_constant = decltype(c{2.0} * x{} * x{} + c{3.0} * sin(x{} * y{}));

}  // namespace

TEST_CASE("node copies: input-only nodes are trivially copyable", "[core]") {
  STATIC_REQUIRE(sin_x::input_only);
  STATIC_REQUIRE(nested_input_only::input_only);
  STATIC_REQUIRE(std::is_trivially_copyable_v<sin_x>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<sin_x_times_y>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<nested_input_only>);
}

TEST_CASE("node copies: nodes with state are not trivially copyable and take no extra space",
          "[core]") {
  STATIC_REQUIRE(!with_constant::input_only);
  STATIC_REQUIRE(!std::is_trivially_copyable_v<with_constant>);
  STATIC_REQUIRE(!std::is_trivially_copyable_v<nested_with_constant>);
  STATIC_REQUIRE(std::is_copy_constructible_v<nested_with_constant>);
  STATIC_REQUIRE(sizeof(with_constant) == sizeof(double));
  // A copy holds the same values: the gradient of the copy is the original's.
  const auto e = etad::constant<double>{2.5} * x{} * x{} + etad::constant<double>{-1.5} * y{};
  const auto copy = e;
  constexpr auto f = [](const auto& expr) {
    return [expr](auto, auto) { return expr; };
  };
  const auto a = etad::gradient(f(e), 3.0, 4.0);
  const auto b = etad::gradient(f(copy), 3.0, 4.0);
  CHECK(a.value == 2.5 * 9.0 - 1.5 * 4.0);
  CHECK(b.value == a.value);
  CHECK(b.gradient[0] == 2.5 * 2 * 3.0);
  CHECK(b.gradient[1] == -1.5);
}
