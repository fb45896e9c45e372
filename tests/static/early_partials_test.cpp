// tests/static/early_partials_test.cpp — where the sweeps compute a rule's partials: the static
// front doors take them in the forward sweep, right after the node's value (before it, for a
// rule that declares partials_need_value = false), once per node, but not below a gate or a rule
// without a gradient; tape statements take them in their reverse sweep, and only when a tape
// records. Mock rules log every call of value() and partials(), so the tests see the order, not
// just the numbers.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace early {

/// What the rules below were asked, in order: "<name>.v" for value(), "<name>.p" for partials().
inline std::string calls;

/// k x, logging its calls; a parameter of the rule, so that its nodes are never shared slots.
struct scaled_op {
  static constexpr std::string_view name = "scaled";
  static constexpr std::size_t arity = 1;
  char id;
  double k;
  auto value(const auto& x) const {
    calls += std::string{id} + ".v ";
    return k * x;
  }
  auto partials(const auto&, const auto&) const {
    calls += std::string{id} + ".p ";
    return std::array{k};
  }
};
inline auto scaled(char id, double k) { return etad::op_fn<scaled_op>{scaled_op{id, k}}; }

/// The same, promising that partials() does not read f.
struct scaled_free_op : scaled_op {
  static constexpr bool partials_need_value = false;
};
inline auto scaled_free(char id, double k) {
  return etad::op_fn<scaled_free_op>{scaled_free_op{{id, k}}};
}

/// k x, with its partial written as f / x: right (k) only when f is really the value.
struct from_value_op {
  static constexpr std::string_view name = "from_value";
  static constexpr std::size_t arity = 1;
  double k;
  constexpr auto value(const auto& x) const { return k * x; }
  constexpr auto partials(const auto& x, const auto& f) const { return std::array{f / x}; }
};

/// 2x, logging its calls as "<Id>.v" and "<Id>.p"; stateless, so that its nodes on inputs are
/// shared slots. NeedValue: its partials_need_value.
template <char Id, bool NeedValue>
struct logged_op {
  static constexpr std::string_view name = "logged";
  static constexpr std::size_t arity = 1;
  static constexpr bool partials_need_value = NeedValue;
  static auto value(const auto& x) {
    calls += std::string{Id} + ".v ";
    return 2 * x;
  }
  static auto partials(const auto&, const auto&) {
    calls += std::string{Id} + ".p ";
    return std::array{2};
  }
};
inline constexpr etad::op_fn<logged_op<'s', true>> logged{};
inline constexpr etad::op_fn<logged_op<'t', false>> logged_free{};

/// A rule that says, as is the default, that its partials read f.
struct says_true {
  static constexpr bool partials_need_value = true;
};

/// x^3, partial 3 x^2 (a partial that changes with x), logging nothing.
struct cube_op {
  static constexpr std::string_view name = "cube";
  static constexpr std::size_t arity = 1;
  double unused = 0;  // a parameter: never a shared slot
  constexpr auto value(const auto& x) const { return x * x * x; }
  constexpr auto partials(const auto& x, const auto&) const { return std::array{3 * x * x}; }
};

}  // namespace early

using early::calls;
using early::logged;
using early::logged_free;
using early::scaled;
using early::scaled_free;

TEST_CASE("early partials: gradient takes each node's partials right after its value, once",
          "[static][early]") {
  // Forward order: a's value, then b's, then c's (c holds a and b). Taken at the end, the
  // partials would come after every value, in reverse: c, b, a.
  const auto f = [](auto x, auto y) {
    return scaled('c', 5.0)(scaled('a', 2.0)(x) + scaled('b', 3.0)(y));
  };
  calls.clear();
  const auto r = etad::gradient(f, 1.5, -0.5);
  CHECK(calls == "a.v a.p b.v b.p c.v c.p ");
  CHECK(r.value == 5.0 * (2.0 * 1.5 + 3.0 * -0.5));
  CHECK(r.gradient[0] == 10.0);
  CHECK(r.gradient[1] == 15.0);
}

TEST_CASE("early partials: a rule that does not need its value has its partials taken first",
          "[static][early]") {
  const auto f = [](auto x) { return scaled('b', 3.0)(scaled_free('a', 2.0)(x)); };
  calls.clear();
  const auto r = etad::gradient(f, 0.25);
  CHECK(calls == "a.p a.v b.v b.p ");
  CHECK(r.gradient[0] == 6.0);
}

TEST_CASE("early partials: a rule that reads f gets the value, taken early or not",
          "[static][early]") {
  const auto f = [](auto x) { return etad::apply(early::from_value_op{4.0}, x) * x; };
  const auto r = etad::gradient(f, 3.0);  // f = 4 x^2, f' = 8 x
  CHECK(r.value == 36.0);
  CHECK(r.gradient[0] == 24.0);
  etad::tape t;
  etad::real x = t.variable(3.0);
  etad::real v = etad::apply(early::from_value_op{4.0}, x) * x;
  CHECK(t.gradient(v, x)[0] == 24.0);
}

TEST_CASE("early partials: jvp, vjp and jacobian use the partials kept by the forward sweep",
          "[static][early]") {
  const auto f = [](auto x, auto y) { return scaled('c', 5.0)(scaled('a', 2.0)(x) * y); };
  calls.clear();
  const auto j = etad::jvp(f, std::array{1.5, 2.0}, std::array{1.0, -1.0});
  CHECK(calls == "a.v a.p c.v c.p ");
  // d/dx = 10 y = 20, d/dy = 10 x = 15; J v = 20 - 15.
  CHECK(j.tangent == 5.0);
  calls.clear();
  const auto v = etad::vjp(f, std::array{1.5, 2.0}, 2.0);
  CHECK(calls == "a.v a.p c.v c.p ");
  CHECK(v.gradient[0] == 40.0);
  CHECK(v.gradient[1] == 30.0);
  calls.clear();
  const auto jac = etad::jacobian(
      [](auto x, auto y) { return std::tuple{scaled('a', 2.0)(x) * y, scaled('b', 3.0)(y)}; }, 1.5,
      2.0);
  CHECK(calls == "a.v a.p b.v b.p ");  // one forward sweep for both rows
  CHECK(jac.jacobian[0][0] == 4.0);
  CHECK(jac.jacobian[0][1] == 3.0);
  CHECK(jac.jacobian[1][1] == 3.0);
}

TEST_CASE("early partials: partials_need_value_v reads the optional trait", "[static][early]") {
  STATIC_REQUIRE(etad::partials_need_value_v<early::scaled_op>);          // absent
  STATIC_REQUIRE_FALSE(etad::partials_need_value_v<early::scaled_free_op>);  // false
  STATIC_REQUIRE(etad::partials_need_value_v<early::says_true>);
  STATIC_REQUIRE_FALSE(etad::partials_need_value_v<etad::log_op>);
  STATIC_REQUIRE_FALSE(etad::partials_need_value_v<etad::atan2_op>);
  STATIC_REQUIRE(etad::partials_need_value_v<etad::exp_op>);  // its partial is its value
}

TEST_CASE("early partials: none below a rule without a gradient, none early below a gate",
          "[static][early]") {
  SECTION("stop_gradient: nothing flows back, no partials at all") {
    calls.clear();
    const auto r = etad::gradient(
        [](auto x) { return x * etad::stop_gradient(scaled('a', 2.0)(x)); }, 1.5);
    CHECK(calls == "a.v ");
    CHECK(r.gradient[0] == 3.0);
  }
  SECTION("a condition: no partials") {
    calls.clear();
    const auto r = etad::gradient(
        [](auto x) { return etad::select(scaled('c', 2.0)(x) > 0, x, 2.0 * x); }, 1.5);
    CHECK(calls == "c.v ");
    CHECK(r.gradient[0] == 1.0);
  }
  SECTION("select: the taken side's partials in the reverse sweep, the other side's never") {
    calls.clear();
    const auto r = etad::gradient(
        [](auto x) { return etad::select(x > 0, scaled('a', 2.0)(x), scaled('b', 3.0)(x)); }, 1.5);
    CHECK(calls == "a.v b.v a.p ");
    CHECK(r.gradient[0] == 2.0);
    calls.clear();
    const auto s = etad::gradient(
        [](auto x) { return etad::select(x > 0, scaled('a', 2.0)(x), scaled('b', 3.0)(x)); }, -1.5);
    CHECK(calls == "a.v b.v b.p ");
    CHECK(s.gradient[0] == 3.0);
  }
  SECTION("above the gate, and beside it, partials are still taken early") {
    calls.clear();
    const auto r = etad::gradient(
        [](auto x) {
          const auto gated = etad::select(x > 0, scaled('a', 2.0)(x), x);
          return scaled('c', 5.0)(gated + scaled('b', 3.0)(x));
        },
        1.5);
    CHECK(calls == "a.v b.v b.p c.v c.p a.p ");
    CHECK(r.gradient[0] == 25.0);
  }
  SECTION("in a constant expression, the untaken side's partial is never computed") {
    // sqrt's partial at 0 is 1 / (2 * 0), not a constant expression: computed early, the
    // gradient below would not compile. (g++ evaluates std::sqrt in constant expressions.)
#if !defined(__clang__)
    constexpr auto r = etad::gradient(
        [](auto x) { return etad::select(x > 1.0, etad::sqrt(x * 1.0), x * 2.0); }, 0.0);
    STATIC_REQUIRE(r.gradient[0] == 2.0);
    constexpr auto s = etad::gradient(
        [](auto x, auto y) { return x * etad::stop_gradient(etad::sqrt(y * 1.0)); }, 1.0, 0.0);
    STATIC_REQUIRE(s.gradient[0] == 0.0);
#endif
    SUCCEED();
  }
}

TEST_CASE("early partials: a loop's value on numbers computes no partials", "[static][early]") {
  calls.clear();
  const double v = etad::loop(2, [](auto t, auto y) { return scaled('a', 0.5)(t) * y; }, 1.0, 2.0);
  CHECK(v == 1.0);
  CHECK(calls == "a.v a.v ");
  calls.clear();  // differentiated, each iteration's forward sweep takes them
  const auto r = etad::gradient(
      [](auto x, auto y) {
        return etad::loop(2, [](auto t, auto p) { return scaled('a', 0.5)(t) * p; }, x, y);
      },
      1.0, 2.0);
  CHECK(calls == "a.v a.p a.v a.p ");
  CHECK(r.gradient[0] == 1.0);  // (y / 2)^2
  CHECK(r.gradient[1] == 1.0);  // d/dy of x y^2 / 4 at (1, 2)
}

TEST_CASE("early partials: call()'s function takes its partials early, recorded or not",
          "[static][early][tape]") {
  const auto f = [](auto t, auto y) { return scaled('b', 3.0)(scaled('a', 2.0)(t) + y); };
  etad::tape t;
  etad::real x = t.variable(1.5), y = t.variable(0.5);
  calls.clear();
  etad::real z = etad::call(f, x, y);
  CHECK(calls == "a.v a.p b.v b.p ");
  const auto g = t.gradient(z, x, y);
  CHECK(g[0] == 6.0);
  CHECK(g[1] == 3.0);
  calls.clear();  // constants in: a number, its partials computed all the same (call.hpp)
  etad::real c = etad::call(f, etad::real<double>(1.5), 0.5);
  CHECK(c.value() == 10.5);
  CHECK(calls == "a.v a.p b.v b.p ");
}

TEST_CASE("early partials: map_sum's element program takes each element's own partials",
          "[static][early][tape]") {
  // d/dm sum_i (y_i - m)^3 = -3 sum_i (y_i - m)^2: a partial kept from another element would
  // give another number.
  const std::array<double, 4> y{1.0, 2.0, 4.0, -1.0};
  etad::tape t;
  etad::real m = t.variable(0.5);
  etad::real s = etad::map_sum(
      [](auto yi, auto mu) { return etad::apply(early::cube_op{}, yi - mu); }, y, m);
  double expected = 0;
  for (double v : y) expected += -3 * (v - 0.5) * (v - 0.5);
  CHECK(t.gradient(s, m)[0] == Approx(expected).epsilon(1e-15));
}

TEST_CASE("early partials: evaluate() computes values only", "[static][early]") {
  calls.clear();
  const double v = etad::evaluate(scaled('b', 3.0)(scaled_free('a', 2.0)(etad::real<double>(1.0))));
  CHECK(v == 6.0);
  CHECK(calls == "a.v b.v ");
}

TEST_CASE("early partials: a tape statement takes its partials in its reverse sweep, only when "
          "a tape records",
          "[static][early][tape]") {
  {
    etad::tape t;
    etad::real x = t.variable(1.5);
    calls.clear();
    etad::real z = scaled('b', 3.0)(scaled_free('a', 2.0)(x));
    CHECK(calls == "a.v b.v b.p a.p ");
    CHECK(t.gradient(z, x)[0] == 6.0);
  }
  // No tape: a number, and no partials.
  calls.clear();
  etad::real<double> c(1.5);
  etad::real z = scaled('b', 3.0)(scaled_free('a', 2.0)(c));
  CHECK(z.value() == 9.0);
  CHECK(calls == "a.v b.v ");
}

TEST_CASE("early partials: shared slots take them early with clang only, where no gate is",
          "[static][early]") {
  // logged(x) is a slot, computed ahead of the tree; b is a node of the tree.
  const auto f = [](auto x) { return scaled('b', 3.0)(early::logged(x)); };
  calls.clear();
  const auto r = etad::gradient(f, 0.5);
  CHECK(r.gradient[0] == 6.0);
  if constexpr (etad::detail::early_slot_partials)
    CHECK(calls == "s.v s.p b.v b.p ");
  else
    CHECK(calls == "s.v b.v b.p s.p ");  // the slot's partials in the reverse sweep of the slots
#if defined(__clang__)
  CHECK(etad::detail::early_slot_partials);
#else
  CHECK_FALSE(etad::detail::early_slot_partials);
#endif
  calls.clear();  // a rule that does not need its value: before it
  const auto q = etad::gradient([](auto x) { return scaled('b', 3.0)(logged_free(x)); }, 0.5);
  CHECK(q.gradient[0] == 6.0);
  if constexpr (etad::detail::early_slot_partials)
    CHECK(calls == "t.p t.v b.v b.p ");
  else
    CHECK(calls == "t.v b.v b.p t.p ");
  calls.clear();  // a program with a gate: the slots' partials wait for an adjoint
  const auto g = etad::gradient(
      [](auto x) { return etad::select(x > 0, scaled('b', 3.0)(logged(x)), x); }, 0.5);
  CHECK(g.gradient[0] == 6.0);
  CHECK(calls == "s.v b.v b.p s.p ");
}
