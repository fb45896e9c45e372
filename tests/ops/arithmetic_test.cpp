// tests/ops/arithmetic_test.cpp — + - * / and unary minus: gradients against finite differences,
// constants of every arithmetic type, n-ary sums, closed forms, division by zero, NaN.
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <type_traits>

using etad_test::binary;
using etad_test::box;
using etad_test::check_ops;
using etad_test::nary;
using etad_test::ternary;
using etad_test::unary;

TEST_CASE("arithmetic: gradients match finite differences", "[ops][arithmetic]") {
  check_ops(binary("x + y", [](auto x, auto y) { return x + y; }, {-10, 10}, {-10, 10}),
            binary("x - y", [](auto x, auto y) { return x - y; }, {-10, 10}, {-10, 10}),
            binary("x * y", [](auto x, auto y) { return x * y; }, {-10, 10}, {-10, 10}),
            binary("x / y, y > 0", [](auto x, auto y) { return x / y; }, {-10, 10}, {0.5, 10}),
            binary("x / y, y < 0", [](auto x, auto y) { return x / y; }, {-10, 10}, {-10, -0.5}),
            unary("-x", [](auto x) { return -x; }, {-10, 10}),
            unary("+x", [](auto x) { return +x; }, {-10, 10}),
            unary("x * x", [](auto x) { return x * x; }, {-10, 10}),
            unary("x / x", [](auto x) { return x / x; }, {0.5, 10}));
}

TEST_CASE("arithmetic: one constant argument of each arithmetic type", "[ops][arithmetic]") {
  check_ops(unary("x + 2.0", [](auto x) { return x + 2.0; }, {-10, 10}),
            unary("2.0f + x", [](auto x) { return 2.0f + x; }, {-10, 10}),
            unary("x - 3", [](auto x) { return x - 3; }, {-10, 10}),
            unary("3 - x", [](auto x) { return 3 - x; }, {-10, 10}),
            unary("1.5L - x", [](auto x) { return 1.5L - x; }, {-10, 10}),
            unary("x * 2.0", [](auto x) { return x * 2.0; }, {-10, 10}),
            unary("2.5f * x", [](auto x) { return 2.5f * x; }, {-10, 10}),
            unary("x * 7L", [](auto x) { return x * 7L; }, {-10, 10}),
            unary("x / 4", [](auto x) { return x / 4; }, {-10, 10}),
            unary("x / 0.1", [](auto x) { return x / 0.1; }, {-10, 10}),
            unary("2 / x", [](auto x) { return 2 / x; }, {0.5, 10}),
            unary("-3.0f / x", [](auto x) { return -3.0f / x; }, {-10, -0.5}),
            unary("x * 2u + 1ull", [](auto x) { return x * 2u + 1ull; }, {-10, 10}),
            unary("x * 2 + 3.0f - 1.5 * x / 7", [](auto x) { return x * 2 + 3.0f - 1.5 * x / 7; }, {-10, 10}));
}

TEST_CASE("arithmetic: sums and differences of many terms, nested and mixed", "[ops][arithmetic]") {
  check_ops(nary("x + y + z + w", [](auto x, auto y, auto z, auto w) { return x + y + z + w; }, box<4>({-10, 10})),
            nary("8-term sum", [](auto a, auto b, auto c, auto d, auto e, auto f, auto g, auto h) {
              return a + 2 * b + c * c + d / 3.0 + e - f + g * h + 1.0f;
            }, box<8>({-3, 3})),
            ternary("a - b - c", [](auto a, auto b, auto c) { return a - b - c; }, {-10, 10}, {-10, 10}, {-10, 10}),
            ternary("a + b - c", [](auto a, auto b, auto c) { return a + b - c; }, {-10, 10}, {-10, 10}, {-10, 10}),
            ternary("a - (b - c)", [](auto a, auto b, auto c) { return a - (b - c); }, {-10, 10}, {-10, 10}, {-10, 10}),
            nary("(x + y) - (z + w)", [](auto x, auto y, auto z, auto w) { return (x + y) - (z + w); }, box<4>({-10, 10})),
            ternary("-(x + y) + z", [](auto x, auto y, auto z) { return -(x + y) + z; }, {-10, 10}, {-10, 10}, {-10, 10}),
            ternary("(x + y) * (x - y) / (z + 20)",
                    [](auto x, auto y, auto z) { return (x + y) * (x - y) / (z + 20); }, {-10, 10}, {-10, 10}, {-10, 10}),
            ternary("x y + y z + z x", [](auto x, auto y, auto z) { return x * y + y * z + z * x; }, {-10, 10}, {-10, 10},
                    {-10, 10}),
            unary("x + x + x - x", [](auto x) { return x + x + x - x; }, {-10, 10}),
            binary("(x + 1) / (y * y + 1) - 2 / (x * x + 1)",
                   [](auto x, auto y) { return (x + 1) / (y * y + 1) - 2 / (x * x + 1); }, {-5, 5}, {-5, 5}));
}

TEMPLATE_TEST_CASE("arithmetic: closed forms", "[ops][arithmetic]", float, double, long double) {
  using T = TestType;
  const auto mul = etad::gradient([](auto x, auto y) { return x * y; }, T(3), T(4));
  CHECK(mul.value == 12);
  CHECK(mul.gradient == std::array<T, 2>{4, 3});
  const auto div = etad::gradient([](auto x, auto y) { return x / y; }, T(1), T(2));
  CHECK(div.value == 0.5);
  CHECK(div.gradient == std::array<T, 2>{0.5, -0.25});
  const auto sum = etad::gradient([](auto a, auto b, auto c, auto d, auto e) { return a + b + c + d + e; }, T(1), T(2),
                                  T(3), T(4), T(5));
  CHECK(sum.value == 15);
  CHECK(sum.gradient == std::array<T, 5>{1, 1, 1, 1, 1});
  const auto sub = etad::gradient([](auto a, auto b, auto c) { return a - b - c; }, T(1), T(2), T(3));
  CHECK(sub.value == -4);
  CHECK(sub.gradient == std::array<T, 3>{1, -1, -1});
  const auto mixed = etad::gradient([](auto a, auto b, auto c) { return a + b - c - 2 * a; }, T(1), T(2), T(3));
  CHECK(mixed.gradient == std::array<T, 3>{-1, 1, -1});
  CHECK(etad::gradient([](auto x) { return x + x + x; }, T(7)).gradient[0] == 3);
  CHECK(etad::gradient([](auto x) { return x * x * x; }, T(2)).gradient[0] == 12);
  CHECK(etad::gradient([](auto x) { return -(-x); }, T(2)).gradient[0] == 1);
  CHECK(etad::gradient([](auto x) { return 1 / x; }, T(4)).gradient[0] == T(-1) / 16);
}

TEST_CASE("arithmetic: a + b + c is one n-ary sum node, evaluated left to right", "[ops][arithmetic]") {
  using x_t = etad::arg<0>;
  using y_t = etad::arg<1>;
  using z_t = etad::arg<2>;
  using sum3 = decltype(x_t{} + y_t{} + z_t{});
  static_assert(std::is_same_v<sum3::op_type, etad::sum_op> && sum3::arity == 3);
  // A parenthesised right operand stays one term: the user's grouping is kept.
  using sum4 = decltype((x_t{} + y_t{}) + (z_t{} + x_t{}));
  static_assert(std::is_same_v<sum4::op_type, etad::sum_op> && sum4::arity == 3);
  using diff = decltype(x_t{} + y_t{} - z_t{});  // a sum's difference extends the sum
  static_assert(std::is_same_v<diff::op_type, etad::sum_op> && diff::arity == 3);
  using sub1 = decltype(x_t{} - y_t{});
  static_assert(std::is_same_v<sub1::op_type, etad::sub_op>);
  using sub2 = decltype(x_t{} - y_t{} - z_t{});  // a chain of differences becomes a sum too
  static_assert(std::is_same_v<sub2::op_type, etad::sum_op> && sub2::arity == 2);
  // Grouping is C++'s: 1e16 + (1 + -1e16) == 0 in double, while (1e16 + 1) + -1e16 == 0 too but
  // 1 + (1e16 + -1e16) == 1.
  const auto grouped = [](auto x, auto y, auto z) { return x + (y + z); };
  CHECK(etad::gradient(grouped, 1.0, 1e16, -1e16).value == 1.0 + (1e16 + -1e16));
  CHECK(etad::gradient([](auto x, auto y, auto z) { return x - y - z; }, 1.0, 1e16, -1e16).value ==
        (1.0 - 1e16) - -1e16);
  // Wider than detail::max_sum_width, a chain opens a new node whose first child is the full one.
  const auto wide = [](auto x) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) { return ((x * 0) + ... + (x * double(K + 1))); }(
        std::make_index_sequence<200>{});
  };
  using wide_t = decltype(wide(x_t{}));
  static_assert(wide_t::arity <= etad::detail::max_sum_width);
  CHECK(etad::gradient(wide, 2.0).gradient[0] == 200.0 * 201.0 / 2);
  // The value is that of the chain of binary operations: (1e16 + 1) - 1e16 == 0 in double.
  const auto f = [](auto x, auto y, auto z) { return x + y + z; };
  CHECK(etad::gradient(f, 1e16, 1.0, -1e16).value == (1e16 + 1.0) + -1e16);
  const auto g = [](auto x, auto y, auto z) { return x + y - z; };
  CHECK(etad::gradient(g, 1e16, 1.0, 1e16).value == (1e16 + 1.0) - 1e16);
}

TEMPLATE_TEST_CASE("arithmetic: division by zero, infinities and NaN follow IEEE", "[ops][arithmetic]", float, double,
                   long double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto div = [](auto x, auto y) { return x / y; };
  // Partials 1/b and -f/b.
  const auto a = etad::gradient(div, T(1), T(0));
  CHECK(a.value == inf);
  CHECK(a.gradient[0] == inf);
  CHECK(a.gradient[1] == -inf);
  const auto b = etad::gradient(div, T(-1), T(0));
  CHECK(b.value == -inf);
  CHECK(b.gradient[1] == inf);
  const auto c = etad::gradient(div, T(1), T(-0.0));
  CHECK(c.gradient[0] == -inf);
  CHECK(c.gradient[1] == -inf);
  const auto d = etad::gradient(div, T(0), T(0));
  CHECK(std::isnan(d.value));
  CHECK(d.gradient[0] == inf);
  CHECK(std::isnan(d.gradient[1]));
  // Products: the partial for x is y, whatever x is (also NaN or inf).
  const auto mul = [](auto x, auto y) { return x * y; };
  const auto m = etad::gradient(mul, nan, T(3));
  CHECK(std::isnan(m.value));
  CHECK(m.gradient[0] == 3);
  CHECK(std::isnan(m.gradient[1]));
  const auto mi = etad::gradient(mul, inf, T(0));
  CHECK(std::isnan(mi.value));
  CHECK(mi.gradient[0] == 0);
  CHECK(mi.gradient[1] == inf);
  // Sums and negation: partials ±1 always.
  const auto s = etad::gradient([](auto x, auto y) { return x - y + x; }, nan, inf);
  CHECK(std::isnan(s.value));
  CHECK(s.gradient == std::array<T, 2>{2, -1});
  CHECK(etad::gradient([](auto x) { return -x; }, nan).gradient[0] == -1);
}

TEST_CASE("arithmetic: the result type is the common type of the inputs", "[ops][arithmetic]") {
  const auto f = [](auto x, auto y) { return x * y + 2; };
  const auto a = etad::gradient(f, 1.0f, 2.0f);
  const auto b = etad::gradient(f, 1.0f, 2.0);
  const auto c = etad::gradient(f, 1.0, 2.0L);
  static_assert(std::is_same_v<decltype(a.value), float> && std::is_same_v<decltype(a.gradient), std::array<float, 2>>);
  static_assert(std::is_same_v<decltype(b.value), double> && std::is_same_v<decltype(b.gradient), std::array<double, 2>>);
  static_assert(std::is_same_v<decltype(c.value), long double> &&
                std::is_same_v<decltype(c.gradient), std::array<long double, 2>>);
  CHECK(b.gradient == std::array{2.0, 1.0});
  // A double constant in a float computation is rounded to float: 0.1 * x at x = 10 is 10 * 0.1f.
  CHECK(etad::gradient([](auto x) { return 0.1 * x; }, 10.0f).value == 10 * 0.1f);
}
