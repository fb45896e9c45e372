// tests/core/node_copy_test.cpp — how nodes are laid out and copied (node and node_storage in
// core/expression.hpp): only state takes space (constants, rules with parameters), nested nodes
// with one rule are not padded apart; copies are not trivial, so that compilers build them in
// place; a copy of a node with state or of an input-only node is the same expression.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <utility>
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

namespace node_copy_test {
/// A rule with a parameter (core/rule.hpp): scale(x) = k x. (Not in the anonymous namespace,
/// where clang flags its unused name.)
struct scale_op {
  static constexpr std::string_view name = "scale";
  static constexpr std::size_t arity = 1;
  double k;
  constexpr auto value(const auto& x) const { return k * x; }
  constexpr auto partials(const auto& x, const auto& /*f*/) const {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{T(k)};
  }
};
/// An empty rule whose default constructor is user-provided: stored (it is not built for free),
/// and still input-only, so its nodes are shared.
struct square_op {
  static constexpr std::string_view name = "square";
  static constexpr std::size_t arity = 1;
  constexpr square_op() {}
  static constexpr auto value(const auto& v) { return v * v; }
  static constexpr auto partials(const auto& v, const auto& /*f*/) {
    using T = std::remove_cvref_t<decltype(v)>;
    return std::array{T(2) * v};
  }
};

/// An input-only leaf that is empty but not built for free (nor in a constant expression): it
/// is stored, not replaced by a static default-built one.
struct two_leaf {
  using etad_expression = void;
  static constexpr bool input_only = true;
  static constexpr double value = 2.0;
  two_leaf() {}
};
}  // namespace node_copy_test

TEST_CASE("node layout: only state takes space", "[core]") {
  const c k{2.0};
  // Input-only nodes hold nothing.
  STATIC_REQUIRE(std::is_empty_v<decltype(sin(x{}) * cos(x{} * y{}))>);
  // Nested nodes with one rule (mul) and input-only children: one double, no padding.
  STATIC_REQUIRE(sizeof(decltype(k * sin(x{}) * sin(x{} * y{}))) == sizeof(double));
  STATIC_REQUIRE(sizeof(decltype(k * x{} * y{} * k)) == 2 * sizeof(double));
  using term = decltype(k * sin(x{}) * cos(y{}));
  using sum3 = decltype(term{} + term{} + term{});
  STATIC_REQUIRE(sizeof(sum3) == 3 * sizeof(double));
  // Past one chunk of 32 children (a sum node nests), still nothing but the constants.
  const auto s = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return (... + (c{double(I + 1)} * sin(x{})));
  }(std::make_index_sequence<40>{});
  STATIC_REQUIRE(sizeof(s) == 40 * sizeof(double));
  const auto gs = etad::gradient(as_function(s), 0.5, 0.0);
  CHECK(gs.value == Approx(820 * std::sin(0.5)).epsilon(1e-14));  // 1 + 2 + ... + 40 = 820
  CHECK(gs.gradient[0] == Approx(820 * std::cos(0.5)).epsilon(1e-14));
  // A rule with a parameter is stored (once), and its parameter used.
  const etad::op_fn<node_copy_test::scale_op> scale{{3.0}};
  const auto e = scale(x{});
  STATIC_REQUIRE(sizeof(e) == sizeof(double));
  STATIC_REQUIRE(!decltype(e)::input_only);
  CHECK(e.op().k == 3.0);
  const auto ge = etad::gradient(as_function(scale(sin(x{})) * k), 0.5, 0.0);
  CHECK(ge.value == Approx(3.0 * std::sin(0.5) * 2.0).epsilon(1e-15));
  CHECK(ge.gradient[0] == Approx(3.0 * std::cos(0.5) * 2.0).epsilon(1e-15));
}

TEST_CASE("node layout: rules and leaves that are empty but not built for free", "[core]") {
  using node_copy_test::square_op;
  using node_copy_test::two_leaf;
  const auto sq = etad::apply(square_op{}, x{});
  STATIC_REQUIRE(decltype(sq)::input_only);
  // Shared slots of sq * sq: sq (computed once) and the product (placeholders take no slot).
  using slots = etad::detail::shared_t<decltype(sq * sq)>;
  STATIC_REQUIRE(boost::mp11::mp_size<slots>::value == 2);
  STATIC_REQUIRE(std::is_same_v<boost::mp11::mp_front<slots>, std::remove_const_t<decltype(sq)>>);
  const auto gq = etad::gradient(as_function(sq * sq), 1.5, 0.0);
  CHECK(gq.value == Approx(std::pow(1.5, 4)).epsilon(1e-15));
  CHECK(gq.gradient[0] == Approx(4 * std::pow(1.5, 3)).epsilon(1e-15));
  // sin(two) * x: the leaf's value 2 is used.
  const auto e = etad::sin(two_leaf{}) * x{};
  const auto ge = etad::gradient(as_function(e), 0.5, 0.0);
  CHECK(ge.value == Approx(std::sin(2.0) * 0.5).epsilon(1e-15));
  CHECK(ge.gradient[0] == Approx(std::sin(2.0)).epsilon(1e-15));
}

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
