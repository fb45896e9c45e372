// tests/core/node_copy_test.cpp — how nodes are copied (node's copy constructor in
// core/expression.hpp): not trivially, so that compilers build them in place, at no cost in
// space; a copy of a node with state or of an input-only node is the same expression.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>
#include <type_traits>

namespace {

using x = etad::arg<0>;
using y = etad::arg<1>;
using c = etad::constant<double>;

using with_constant = decltype(c{2.0} * x{});
using nested_with_constant = decltype(c{2.0} * x{} * x{} + c{3.0} * sin(x{} * y{}));

// The gradient of a fixed expression (its placeholders are the function's arguments).
constexpr auto as_function = [](const auto& expr) { return [expr](auto, auto) { return expr; }; };

}  // namespace

TEST_CASE("node copies: a node with state copies its values, in place", "[core]") {
  STATIC_REQUIRE(!with_constant::input_only);
  STATIC_REQUIRE(!std::is_trivially_copyable_v<with_constant>);
  STATIC_REQUIRE(!std::is_trivially_copyable_v<nested_with_constant>);
  STATIC_REQUIRE(sizeof(with_constant) == sizeof(double));
  const auto e = c{2.5} * x{} * x{} + c{-1.5} * y{};
  const auto copy = e;
  const auto g = etad::gradient(as_function(copy), 3.0, 4.0);
  CHECK(g.value == 2.5 * 9.0 - 1.5 * 4.0);
  CHECK(g.gradient[0] == 2.5 * 2 * 3.0);
  CHECK(g.gradient[1] == -1.5);
}

TEST_CASE("node copies: an input-only node's copy is the same expression", "[core]") {
  const auto e = sin(x{}) * cos(x{} * y{}) + x{} * x{};
  using E = std::remove_const_t<decltype(e)>;
  STATIC_REQUIRE(E::input_only);
  const E copy = e;
  // In a constant expression too.
  constexpr auto p = x{} * y{} + y{};
  constexpr auto p_copy = p;
  STATIC_REQUIRE(etad::gradient(as_function(p_copy), 2.0, 5.0).gradient[0] == 5.0);
  STATIC_REQUIRE(etad::gradient(as_function(p_copy), 2.0, 5.0).gradient[1] == 3.0);
  const double x0 = 0.7, y0 = -1.3;
  const auto g = etad::gradient(as_function(copy), x0, y0);
  CHECK(g.value == Approx(std::sin(x0) * std::cos(x0 * y0) + x0 * x0).epsilon(1e-15));
  CHECK(g.gradient[0] == Approx(std::cos(x0) * std::cos(x0 * y0) -
                                std::sin(x0) * std::sin(x0 * y0) * y0 + 2 * x0)
                             .epsilon(1e-15));
  CHECK(g.gradient[1] == Approx(-std::sin(x0) * std::sin(x0 * y0) * x0).epsilon(1e-15));
}
