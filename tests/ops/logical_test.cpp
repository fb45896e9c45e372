// tests/ops/logical_test.cpp — comparisons, && || !, and select(c, a, b): comparisons as
// conditions (no gradient through them), only the taken side of a select receives gradient (no
// 0 * inf = NaN from the other side), plain bool conditions, finite differences away from the
// switching surfaces.
#include "support/finite_difference.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

using etad_test::binary;
using etad_test::check_ops;
using etad_test::unary;

namespace {
// select(x OP y, sin(x) y, cos(y) + x) against the same thing written out: the condition from
// the plain comparison, the value and gradient of the taken branch by hand.
template <class T, class F, class Compare>
void check_condition(const char* name, F f, Compare cmp) {
  for (const auto& [x, y] : {std::array<T, 2>{1, 2}, std::array<T, 2>{2, 2}, std::array<T, 2>{3, 2},
                             std::array<T, 2>{-1, -0.0}, std::array<T, 2>{0, -0.0}}) {
    INFO(name << " at (" << x << ", " << y << ")");
    const bool c = cmp(x, y);
    const auto r = etad::gradient(f, x, y);
    CHECK(r.value == (c ? std::sin(x) * y : std::cos(y) + x));
    CHECK(r.gradient[0] == (c ? std::cos(x) * y : T(1)));
    CHECK(r.gradient[1] == (c ? std::sin(x) : -std::sin(y)));
  }
}
}  // namespace

TEMPLATE_TEST_CASE("logical: each comparison works as a select condition", "[ops][logical]", float, double, long double) {
  using T = TestType;
  // etad::sin etc. on the placeholders; the expectation uses std:: on numbers.
  check_condition<T>("<", [](auto x, auto y) { return etad::select(x < y, etad::sin(x) * y, etad::cos(y) + x); }, std::less<>{});
  check_condition<T>("<=", [](auto x, auto y) { return etad::select(x <= y, etad::sin(x) * y, etad::cos(y) + x); },
                     std::less_equal<>{});
  check_condition<T>(">", [](auto x, auto y) { return etad::select(x > y, etad::sin(x) * y, etad::cos(y) + x); },
                     std::greater<>{});
  check_condition<T>(">=", [](auto x, auto y) { return etad::select(x >= y, etad::sin(x) * y, etad::cos(y) + x); },
                     std::greater_equal<>{});
  check_condition<T>("==", [](auto x, auto y) { return etad::select(x == y, etad::sin(x) * y, etad::cos(y) + x); },
                     std::equal_to<>{});
  check_condition<T>("!=", [](auto x, auto y) { return etad::select(x != y, etad::sin(x) * y, etad::cos(y) + x); },
                     std::not_equal_to<>{});
  // Logic on comparisons, and with plain bools on either side.
  check_condition<T>("&&", [](auto x, auto y) { return etad::select((x > 0) && (y > 0), etad::sin(x) * y, etad::cos(y) + x); },
                     [](T x, T y) { return x > 0 && y > 0; });
  check_condition<T>("||", [](auto x, auto y) { return etad::select((x > 2) || (y < 0), etad::sin(x) * y, etad::cos(y) + x); },
                     [](T x, T y) { return x > 2 || y < 0; });
  check_condition<T>("!", [](auto x, auto y) { return etad::select(!(x < y), etad::sin(x) * y, etad::cos(y) + x); },
                     [](T x, T y) { return !(x < y); });
  check_condition<T>("&& true", [](auto x, auto y) { return etad::select((x >= y) && true, etad::sin(x) * y, etad::cos(y) + x); },
                     [](T x, T y) { return x >= y; });
  check_condition<T>("false ||", [](auto x, auto y) { return etad::select(false || (x != y), etad::sin(x) * y, etad::cos(y) + x); },
                     [](T x, T y) { return x != y; });
  // Comparisons with constants of several types, on either side.
  check_condition<T>("x > 0.5", [](auto x, auto y) { return etad::select(x > 0.5, etad::sin(x) * y, etad::cos(y) + x); },
                     [](T x, T) { return x > 0.5; });
  check_condition<T>("2 <= x", [](auto x, auto y) { return etad::select(2 <= x, etad::sin(x) * y, etad::cos(y) + x); },
                     [](T x, T) { return 2 <= x; });
  check_condition<T>("y == 2.0f", [](auto x, auto y) { return etad::select(y == 2.0f, etad::sin(x) * y, etad::cos(y) + x); },
                     [](T, T y) { return y == 2; });
  check_condition<T>("x * y < -0.5L", [](auto x, auto y) { return etad::select(x * y < -0.5L, etad::sin(x) * y, etad::cos(y) + x); },
                     [](T x, T y) { return x * y < T(-0.5); });
}

TEST_CASE("logical: piecewise functions match finite differences away from the switch", "[ops][logical]") {
  check_ops(binary("select(x < y, x y, x + y)", [](auto x, auto y) { return etad::select(x < y, x * y, x + y); }, {-5, 5},
                   {-5, 5}),
            unary("select(x * x > 2, exp(x), x)", [](auto x) { return etad::select(x * x > 2, etad::exp(x), x); }, {-3, 3}),
            binary("max by select", [](auto x, auto y) { return etad::select(x > y, x, y); }, {-5, 5}, {-5, 5}),
            binary("nested select",
                   [](auto x, auto y) { return etad::select(x > 0, etad::select(y > 0, x * y, x - y), -x * x); },
                   {-5, 5}, {-5, 5}),
            binary("select(x > 0 && y > 0, log(x y), 0.5 x^2)",
                   [](auto x, auto y) { return etad::select((x > 0) && (y > 0), etad::log(x * y), 0.5 * x * x); }, {-5, 5},
                   {-5, 5}));
}

TEMPLATE_TEST_CASE("logical: select(x > 0, sqrt(x), 0) has gradient 0 at 0, not NaN", "[ops][logical]", float, double,
                   long double) {
  using T = TestType;
  const auto f = [](auto x) { return etad::select(x > 0, etad::sqrt(x), 0); };
  const auto at0 = etad::gradient(f, T(0));
  CHECK(at0.value == 0);
  CHECK(at0.gradient[0] == 0);
  CHECK(etad::jvp(f, std::array{T(0)}, std::array{T(1)}).tangent == 0);
  const auto at4 = etad::gradient(f, T(4));
  CHECK(at4.value == 2);
  CHECK(at4.gradient[0] == 0.25);
  // Below 0 both sides are evaluated (sqrt(-1) = NaN) but only the taken one counts.
  const auto neg = etad::gradient(f, T(-1));
  CHECK(neg.value == 0);
  CHECK(neg.gradient[0] == 0);
  // The same with the infinite slope inside a node holding a constant (a frame, not a slot).
  const auto g = [](auto x) { return etad::select(x > 0, 2.0 * etad::sqrt(x), 1.0); };
  CHECK(etad::gradient(g, T(0)).gradient[0] == 0);
  // The taken side passes its infinite slope on.
  const auto h = [](auto x) { return etad::select(x >= 0, etad::sqrt(x), 0); };
  CHECK(etad::gradient(h, T(0)).gradient[0] == std::numeric_limits<T>::infinity());
  // A NaN compares false: the else side is taken.
  const auto n = etad::gradient([](auto x) { return etad::select(x > 0, x * x, 3 * x); }, std::numeric_limits<T>::quiet_NaN());
  CHECK(std::isnan(n.value));
  CHECK(n.gradient[0] == 3);
}

TEMPLATE_TEST_CASE("logical: select with a plain bool condition", "[ops][logical]", float, double, long double) {
  using T = TestType;
  const auto t = etad::gradient([](auto x, auto y) { return etad::select(true, x * y, y); }, T(2), T(3));
  CHECK(t.value == 6);
  CHECK(t.gradient == std::array<T, 2>{3, 2});
  const auto f = etad::gradient([](auto x, auto y) { return etad::select(false, x * y, y); }, T(2), T(3));
  CHECK(f.value == 3);
  CHECK(f.gradient == std::array<T, 2>{0, 1});
  for (const bool b : {true, false}) {
    CAPTURE(b);
    const auto r = etad::gradient([b](auto x) { return etad::select(b, etad::sqrt(x), x); }, T(0));
    CHECK(r.gradient[0] == (b ? std::numeric_limits<T>::infinity() : T(1)));
  }
  // Constant branches: the selected constant, no gradient at all.
  const auto c = etad::gradient([](auto x) { return etad::select(x > 1, 1.0, 2); }, T(3));
  CHECK(c.value == 1);
  CHECK(c.gradient[0] == 0);
  // On plain numbers select is c ? a : b.
  CHECK(etad::select(true, 1.0, 2.0) == 1.0);
  CHECK(etad::select(false, 1.0, 2) == 2.0);
}

TEMPLATE_TEST_CASE("logical: comparisons take no gradient, also with stop_gradient", "[ops][logical]", float, double,
                   long double) {
  using T = TestType;
  // Only the branches are differentiated: the condition x * x > y contributes nothing.
  const auto r = etad::gradient([](auto x, auto y) { return etad::select(x * x > y, 1.0, 2.0); }, T(2), T(3));
  CHECK(r.value == 1);
  CHECK(r.gradient == std::array<T, 2>{0, 0});
  // x > y as the condition of a max; stop_gradient inside the comparison changes nothing.
  const auto m = [](auto x, auto y) { return etad::select(x > y, x, y); };
  const auto ms = [](auto x, auto y) { return etad::select(etad::stop_gradient(x) > y, x, y); };
  for (const auto& [x, y] : {std::array<T, 2>{3, 2}, std::array<T, 2>{2, 3}, std::array<T, 2>{2, 2}}) {
    INFO("at (" << x << ", " << y << ")");
    const std::array<T, 2> expected = x > y ? std::array<T, 2>{1, 0} : std::array<T, 2>{0, 1};
    CHECK(etad::gradient(m, x, y).gradient == expected);
    CHECK(etad::gradient(ms, x, y).gradient == expected);
  }
  // One condition used twice (a shared subexpression): select(c, x, y) + select(c, y, x) = x + y.
  const auto twice = etad::gradient([](auto x, auto y) {
    const auto c = x > y;
    return etad::select(c, x, y) + etad::select(c, 2 * y, 3 * x);
  }, T(5), T(1));
  CHECK(twice.value == 7);
  CHECK(twice.gradient == std::array<T, 2>{1, 2});
  // A comparison is a predicate: bool-valued, never differentiated.
  using cmp = decltype(etad::arg<0>{} < etad::arg<1>{});
  static_assert(etad::is_predicate_v<cmp::op_type> && !etad::is_differentiable_v<cmp::op_type>);
  using both = decltype((etad::arg<0>{} < 1) && !(etad::arg<1>{} == 2.0));
  static_assert(etad::is_predicate_v<both::op_type>);
  // On plain numbers the operators are the built-in ones.
  static_assert(std::is_same_v<decltype(T(1) < T(2)), bool>);
}
