// tests/custom/rule_parameters_test.cpp — rules with parameters: a plain number (double, int)
// kept by a rule works on numbers, in static gradients and on the tape, and a real kept by a rule
// is recognized (detail::rule_holds_active_leaf_v) wherever core/rule.hpp says it is, so that
// apply() rejects it (tests/compile_fail/rule_holds_real.cpp, rule_constructor_real.cpp) instead
// of silently dropping its gradient. Expected values are derived by hand in comments.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <any>
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// A named namespace: clang warns of a rule's unused `name` in an anonymous one.
namespace rule_parameters_test {

/// s x for a number s fixed when the rule is made. d/dx = s.
struct scaled_op {
  static constexpr std::string_view name = "scaled";
  static constexpr std::size_t arity = 1;
  double s;
  constexpr auto value(const auto& x) const { return s * x; }
  constexpr auto partials(const auto& x, const auto&) const {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{T(s)};
  }
};

/// x^n + offset for an integer n >= 1 and a number offset. d/dx = n x^(n-1).
struct shifted_power_op {
  static constexpr std::string_view name = "shifted_power";
  static constexpr std::size_t arity = 1;
  int n;
  double offset = 0;
  constexpr auto value(const auto& x) const { return etad::pow(x, n) + offset; }
  constexpr auto partials(const auto& x, const auto&) const {
    return std::array{n * etad::pow(x, n - 1)};
  }
};

/// s x with s an argument: the way to let s have a gradient. d/ds = x, d/dx = s.
struct scaled_by_op {
  static constexpr std::string_view name = "scaled_by";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& s, const auto& x) { return s * x; }
  static constexpr auto partials(const auto& s, const auto& x, const auto&) {
    return std::array{x, s};
  }
};

/// A rule whose parameter is given to a constructor (not an aggregate), as a number.
class scaled_ctor_op {
 public:
  static constexpr std::string_view name = "scaled_ctor";
  static constexpr std::size_t arity = 1;
  constexpr explicit scaled_ctor_op(double s) : s_(s) {}
  constexpr auto value(const auto& x) const { return s_ * x; }
  constexpr auto partials(const auto& x, const auto&) const {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{T(s_)};
  }

 private:
  double s_;
};

// --- kinds of data, for the detection trait ---------------------------------------------------
// Only the types matter: none of these is applied.

using r = etad::real<double>;
using rr = etad::real<etad::real<double>>;

template <class M>
struct holding {
  M m;
};
template <class M>
inline constexpr bool holds_v = etad::detail::rule_holds_active_leaf_v<holding<M>>;

struct params {
  double a;
  r b;
};
struct with_base : holding<r> {
  double extra;
};
struct several {
  int n;
  double c[3];
  std::vector<double> v;
  r s;  // the fourth member, sixth position (the C array takes three)
};
struct reference_member {
  const r& s;
};
struct nested_five {  // a real five levels down: struct, vector, tuple, array, real
  holding<std::vector<std::tuple<int, std::array<r, 2>>>> m;
};
struct deep6 {
  r s;
};
struct deep5 { deep6 m; };
struct deep4 { deep5 m; };
struct deep3 { deep4 m; };
struct deep2 { deep3 m; };
struct deep1 { deep2 m; };
struct deep {  // nested aggregates, seven levels: brace elision reaches the real at any depth
  deep1 m;
};
struct after_any {  // a member that takes anything hides only itself
  double d;
  std::any a;
  r s;
};
struct long_table {  // more than 64 positions (one per element of the C array): not probed
  double table[100];
  r s;
};
struct tree {  // self-referential: must not recurse forever
  std::vector<tree> kids;
  double v;
};
class ctor_real {
 public:
  explicit ctor_real(const r& s) : s_(s.value()) {}  // keeps only the value: the gradient is lost
  double value() const { return s_; }

 private:
  double s_;
};
class ctor_two {
 public:
  ctor_two(double a, const r& s) : a_(a), s_(s) {}
  double sum() const { return a_ + s_.value(); }

 private:
  double a_;
  r s_;
};
class ctor_anything {
 public:
  template <class A>
  explicit ctor_anything(const A&) {}
  double sum() const { return s_; }

 private:
  double s_ = 0;
};

// A real, of any scalar, kept directly or inside the kinds of data core/rule.hpp lists.
static_assert(holds_v<r>);
static_assert(holds_v<rr>);
static_assert(holds_v<etad::real<float>>);
static_assert(holds_v<std::array<r, 2>>);
static_assert(holds_v<std::array<rr, 1>>);
static_assert(holds_v<std::tuple<double, r>>);
static_assert(holds_v<std::pair<int, r>>);
static_assert(holds_v<std::tuple<const r&>>);
static_assert(holds_v<std::vector<r>>);
static_assert(holds_v<std::optional<r>>);
static_assert(holds_v<std::shared_ptr<r>>);
static_assert(holds_v<const r*>);
static_assert(holds_v<r[2]>);
static_assert(holds_v<decltype(std::declval<r>() * 2.0)>);  // an expression of reals
static_assert(holds_v<params>);
static_assert(etad::detail::rule_holds_active_leaf_v<params>);
static_assert(etad::detail::rule_holds_active_leaf_v<with_base>);
static_assert(etad::detail::rule_holds_active_leaf_v<several>);
static_assert(etad::detail::rule_holds_active_leaf_v<reference_member>);
static_assert(etad::detail::rule_holds_active_leaf_v<nested_five>);
static_assert(etad::detail::rule_holds_active_leaf_v<deep>);
static_assert(etad::detail::rule_holds_active_leaf_v<after_any>);
static_assert(etad::detail::rule_holds_active_leaf_v<ctor_real>);

// Plain numbers and other data are parameters as before.
static_assert(!etad::detail::rule_holds_active_leaf_v<scaled_op>);
static_assert(!etad::detail::rule_holds_active_leaf_v<shifted_power_op>);
static_assert(!etad::detail::rule_holds_active_leaf_v<scaled_ctor_op>);
static_assert(!holds_v<int>);
static_assert(!holds_v<std::array<double, 3>>);
static_assert(!holds_v<std::vector<double>>);
static_assert(!holds_v<std::tuple<int, double>>);
static_assert(!holds_v<std::function<double(double)>>);
static_assert(!holds_v<double (*)(double)>);
static_assert(!holds_v<decltype(etad::arg<0>{} * 2.0)>);  // an expression of placeholders
static_assert(!etad::detail::rule_holds_active_leaf_v<tree>);
// etad's own rules with parameters.
static_assert(!etad::detail::rule_holds_active_leaf_v<etad::powi_op>);
static_assert(!etad::detail::rule_holds_active_leaf_v<etad::pow_constant_exponent_op<double>>);

// The limits core/rule.hpp states: what it cannot see is not reported.
static_assert(!holds_v<std::any>);                                   // takes anything
static_assert(!etad::detail::rule_holds_active_leaf_v<long_table>);  // 101 positions
static_assert(!etad::detail::rule_holds_active_leaf_v<ctor_two>);    // two parameters
static_assert(!etad::detail::rule_holds_active_leaf_v<ctor_anything>);  // takes anything
inline const auto captures_real = [s = r{}](double x) { return s.value() * x; };
static_assert(!holds_v<std::remove_const_t<decltype(captures_real)>>);  // a lambda's captures

}  // namespace rule_parameters_test

using namespace rule_parameters_test;

TEST_CASE("rule parameters: a double parameter on numbers, static gradients and the tape",
          "[custom]") {
  const etad::op_fn<scaled_op> scaled{{2.5}};
  // On numbers: 2.5 * 4 = 10.
  CHECK(scaled(4.0) == 10.0);
  // Static: f(x) = 2.5 x^2 via scaled(x * x): value 2.5 * 9 = 22.5, f' = 2.5 * 2x = 15 at x = 3.
  const auto g = etad::gradient([&](auto x) { return scaled(x * x); }, 3.0);
  CHECK(g.value == 22.5);
  CHECK(g.gradient[0] == 15.0);
  // Tape: the same at x = 3.
  etad::tape t{etad::persistent};
  const etad::real<double> x = t.variable(3.0);
  const etad::real<double> z = scaled(x * x);
  CHECK(z.value() == 22.5);
  CHECK(t.gradient(z, x)[0] == 15.0);
}

TEST_CASE("rule parameters: an int and a double parameter", "[custom]") {
  // x^3 + 1 at x = 2: value 9, d/dx = 3 x^2 = 12.
  const etad::op_fn<shifted_power_op> cube_plus_one{{3, 1.0}};
  CHECK(cube_plus_one(2.0) == 9.0);
  const auto g = etad::gradient([&](auto x) { return cube_plus_one(x); }, 2.0);
  CHECK(g.value == 9.0);
  CHECK(g.gradient[0] == 12.0);
  etad::tape t;
  const etad::real<double> x = t.variable(2.0);
  const etad::real<double> z = etad::apply(shifted_power_op{3, 1.0}, x);
  CHECK(z.value() == 9.0);
  CHECK(t.gradient(z, x)[0] == 12.0);
}

TEST_CASE("rule parameters: a rule with a constructor that takes a number", "[custom]") {
  // 2 x at x = 5: value 10, d/dx = 2.
  etad::tape t;
  const etad::real<double> x = t.variable(5.0);
  const etad::real<double> z = etad::apply(scaled_ctor_op{2.0}, x);
  CHECK(z.value() == 10.0);
  CHECK(t.gradient(z, x)[0] == 2.0);
}

TEST_CASE("rule parameters: a real passed as an argument gets its gradient", "[custom]") {
  // What the compile error asks for instead of a rule that holds s: s x at s = 2, x = 3, value
  // 6, d/ds = x = 3, d/dx = s = 2.
  etad::tape t{etad::persistent};
  const etad::real<double> s = t.variable(2.0), x = t.variable(3.0);
  const etad::real<double> z = etad::apply(scaled_by_op{}, s, x);
  CHECK(z.value() == 6.0);
  const auto g = t.gradient(z, s, x);
  CHECK(g[0] == 3.0);
  CHECK(g[1] == 2.0);
}
