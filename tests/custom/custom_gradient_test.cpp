// tests/custom/custom_gradient_test.cpp — users' custom gradients as etad rules, after the
// examples of TensorFlow's tf.custom_gradient, and the gradient-control ops stop_gradient and
// grad_pass_through. Every expected value is derived by hand in a comment.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

// A named namespace, not an anonymous one: clang's -Wunused-const-variable flags a rule's
// `static constexpr name` with internal linkage, since nothing in etad reads it yet.
namespace custom_test {

// --- the rules under test ---------------------------------------------------------------------

/// log(1 + e^x) (softplus), TensorFlow's log1pexp. d/dx = e^x / (1 + e^x) = 1 - 1/(1 + e^x),
/// written in the second form, which is 1 - 0 = 1 when e^x overflows instead of inf/inf = NaN.
/// The value is computed as x + log1p(e^-x) for x > 0, so it does not overflow either.
struct log1pexp_op {
  static constexpr std::string_view name = "log1pexp";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) {
    using std::exp, std::log1p;
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
  }
  static constexpr auto partials(const auto& x, const auto& /*f*/) {
    using std::exp;
    return std::array{1 - 1 / (1 + exp(x))};
  }
};
inline constexpr etad::op_fn<log1pexp_op> log1pexp{};

/// The same function differentiated by etad itself, as TensorFlow would without the custom rule.
constexpr auto naive_log1pexp = [](auto x) { return log(1 + exp(x)); };

/// bar(x, y) = x y with its gradient given by hand: (y, x). TensorFlow's second example.
struct bar_op {
  static constexpr std::string_view name = "bar";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& x, const auto& y) { return x * y; }
  static constexpr auto partials(const auto& x, const auto& y, const auto& /*f*/) {
    return std::array{y, x};
  }
};
inline constexpr etad::op_fn<bar_op> bar{};

/// A rule with a parameter: leaky ReLU, x for x > 0 and alpha x otherwise; d/dx = 1 or alpha
/// (alpha at the kink x = 0).
struct leaky_relu_op {
  static constexpr std::string_view name = "leaky_relu";
  static constexpr std::size_t arity = 1;
  double alpha;
  constexpr auto value(const auto& x) const { return x > 0 ? x : alpha * x; }
  constexpr auto partials(const auto& x, const auto& /*f*/) const {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{x > 0 ? T(1) : T(alpha)};
  }
};

/// max(a, b) choosing b on a tie (ungated): partials (1, 0) or (0, 1). The argument not chosen
/// still receives adjoint * 0.
struct choose_op {
  static constexpr std::string_view name = "choose";
  static constexpr std::size_t arity = 2;
  static constexpr bool second(const auto& a, const auto& b) { return !(a > b); }
  static constexpr auto value(const auto& a, const auto& b) { return second(a, b) ? b : a; }
  static constexpr auto partials(const auto& a, const auto& b, const auto& /*f*/) {
    using T = std::remove_cvref_t<decltype(a)>;
    return std::array{second(a, b) ? T(0) : T(1), second(a, b) ? T(1) : T(0)};
  }
};

/// The same rule, gated: the argument not chosen receives no gradient at all (not adjoint * 0).
struct gated_choose_op : choose_op {
  static constexpr std::string_view name = "gated_choose";
  static constexpr bool gated = true;
  static constexpr auto gate(const auto& a, const auto& b, const auto& /*f*/) {
    return std::array{!second(a, b), second(a, b)};
  }
};

/// x y with partials (1, 1), which are NOT its derivatives: shows where a gradient comes from.
struct fake_op {
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& x, const auto& y) { return x * y; }
  static constexpr auto partials(const auto&, const auto&, const auto&) { return std::array{1, 1}; }
};

inline constexpr etad::op_fn<choose_op> choose{};
inline constexpr etad::op_fn<gated_choose_op> gated_choose{};

}  // namespace custom_test

using namespace custom_test;

// --- log1pexp -----------------------------------------------------------------------------------

TEST_CASE("custom gradient: log1pexp's naive gradient is NaN at x = 100 in float") {
  // float: e^100 overflows to inf, so the naive gradient is (1/(1 + inf)) * inf = 0 * inf = NaN.
  const auto naive = etad::gradient(naive_log1pexp, 100.0f);
  CHECK(std::isnan(naive.gradient[0]));

  // The rule: 1 - 1/(1 + inf) = 1 - 0 = 1 exactly; value 100 + log1p(e^-100) = 100 in float.
  const auto custom = etad::gradient([](auto x) { return log1pexp(x); }, 100.0f);
  static_assert(std::is_same_v<decltype(custom.value), float>);
  CHECK(custom.gradient[0] == 1.0f);
  CHECK(custom.value == 100.0f);
}

TEST_CASE("custom gradient: log1pexp's naive gradient is NaN at x = 1000 in double") {
  // double: e^x overflows beyond x ~ 709.78; at 1000 as above, naive NaN and custom exactly 1.
  CHECK(std::isnan(etad::gradient(naive_log1pexp, 1000.0).gradient[0]));
  const auto custom = etad::gradient([](auto x) { return log1pexp(x); }, 1000.0);
  CHECK(custom.gradient[0] == 1.0);
  CHECK(custom.value == 1000.0);  // 1000 + log1p(e^-1000) = 1000 + 0
}

TEST_CASE("custom gradient: log1pexp agrees with the naive gradient at moderate x") {
  const double e = std::exp(1.0);
  // x = 0: value log 2, gradient 1 - 1/2 = 0.5 (and e^0/(1 + e^0) = 0.5 naively).
  // x = 1: value log(1 + e), gradient e/(1 + e) ~ 0.7311.
  // x = -3: value log(1 + e^-3), gradient e^-3/(1 + e^-3) ~ 0.0474.
  for (const double x : {0.0, 1.0, -3.0, 20.0}) {
    CAPTURE(x);
    const auto naive = etad::gradient(naive_log1pexp, x);
    const auto custom = etad::gradient([](auto v) { return log1pexp(v); }, x);
    CHECK(custom.value == Approx(naive.value));
    CHECK(custom.gradient[0] == Approx(naive.gradient[0]));
    CHECK(custom.gradient[0] == Approx(std::exp(x) / (1 + std::exp(x))));
  }
  CHECK(etad::gradient([](auto v) { return log1pexp(v); }, 0.0).gradient[0] == 0.5);
  CHECK(etad::gradient([](auto v) { return log1pexp(v); }, 0.0).value == Approx(std::log(2.0)));
  CHECK(etad::gradient([](auto v) { return log1pexp(v); }, 1.0).gradient[0] == Approx(e / (1 + e)));
}

TEST_CASE("custom gradient: a rule's value() works on plain numbers") {
  // With numbers only, op_fn computes the value at once: log1pexp(2.0) is a double,
  // log(1 + e^2) = 2 + log1p(e^-2) ~ 2.1269.
  const auto v = log1pexp(2.0);
  static_assert(std::is_same_v<decltype(v), const double>);
  CHECK(v == Approx(std::log(1 + std::exp(2.0))));
  static_assert(std::is_same_v<decltype(log1pexp(2.0f)), float>);
  static_assert(std::is_same_v<decltype(bar(2.0, 3.0)), double>);
  CHECK(bar(2.0, 3.0) == 6.0);
  // The same through etad::apply.
  CHECK(etad::apply(bar_op{}, 2.0, 3.0) == 6.0);
}

// --- bar(x, y) = x y, gradient (y, x) -----------------------------------------------------------

TEST_CASE("custom gradient: bar(x, y) = x y with gradient (y, x)") {
  // At (2, 3): value 6, d/dx = y = 3, d/dy = x = 2.
  const auto [value, grad] = etad::gradient([](auto x, auto y) { return bar(x, y); }, 2.0, 3.0);
  CHECK(value == 6.0);
  CHECK(grad[0] == 3.0);
  CHECK(grad[1] == 2.0);

  // etad::apply is the same as calling the op_fn object.
  const auto via_apply = [](auto x, auto y) { return etad::apply(bar_op{}, x, y); };
  const auto r = etad::gradient(via_apply, 2.0, 3.0);
  CHECK(r.gradient == std::array{3.0, 2.0});
}

TEST_CASE("custom gradient: the gradient comes from partials(), not from value()") {
  // fake_op's partials are deliberately not the derivative of its value: value x y, partials
  // (1, 1). The result must show the partials, proving the sweep uses them as given.
  const auto fake = [](auto x, auto y) { return etad::apply(fake_op{}, x, y); };
  const auto r = etad::gradient(fake, 2.0, 3.0);
  CHECK(r.value == 6.0);
  CHECK(r.gradient == std::array{1.0, 1.0});
}

// --- a rule with a parameter --------------------------------------------------------------------

TEST_CASE("custom gradient: a rule with a parameter (non-static members)") {
  const etad::op_fn<leaky_relu_op> leaky{{0.1}};
  // x = -2: value 0.1 * -2 = -0.2, gradient alpha = 0.1.
  const auto neg = etad::gradient([&](auto x) { return leaky(x); }, -2.0);
  CHECK(neg.value == Approx(-0.2));
  CHECK(neg.gradient[0] == 0.1);
  // x = 3: value 3, gradient 1.
  const auto pos = etad::gradient([&](auto x) { return leaky(x); }, 3.0);
  CHECK(pos.value == 3.0);
  CHECK(pos.gradient[0] == 1.0);
  // On numbers: leaky(-2) = -0.2.
  CHECK(leaky(-2.0) == Approx(-0.2));
}

TEST_CASE("custom gradient: two nodes of one rule type with different parameters stay apart") {
  // leaky_0.1(x) + leaky_0.2(x) have the same type; at x = -1: value -0.1 - 0.2 = -0.3,
  // gradient 0.1 + 0.2 = 0.3. Were the two nodes merged as one shared subexpression, the result
  // would be -0.2 / 0.2 or -0.4 / 0.4.
  const etad::op_fn<leaky_relu_op> a{{0.1}};
  const etad::op_fn<leaky_relu_op> b{{0.2}};
  const auto r = etad::gradient([&](auto x) { return a(x) + b(x); }, -1.0);
  CHECK(r.value == Approx(-0.3));
  CHECK(r.gradient[0] == Approx(0.3));
}

// --- a gated rule -------------------------------------------------------------------------------

TEST_CASE("custom gradient: a gated rule sends nothing to the argument it did not choose") {
  // choose(sqrt(x), y) at x = 0, y = 1 chooses y: value 1, d/dy = 1. d/dx: sqrt's partial at 0 is
  // 1/(2 sqrt 0) = +inf, so the ungated rule gives d/dx = (1 * 0) * inf = NaN ...
  const auto ungated = etad::gradient([](auto x, auto y) { return choose(sqrt(x), y); }, 0.0, 1.0);
  CHECK(ungated.value == 1.0);
  CHECK(std::isnan(ungated.gradient[0]));
  CHECK(ungated.gradient[1] == 1.0);

  // ... while the gated rule closes the edge into sqrt(x): d/dx = 0 (no contribution at all).
  const auto f = [](auto x, auto y) { return gated_choose(sqrt(x), y); };
  const auto gated = etad::gradient(f, 0.0, 1.0);
  CHECK(gated.value == 1.0);
  CHECK(gated.gradient[0] == 0.0);
  CHECK(gated.gradient[1] == 1.0);

  // Where sqrt(x) is chosen (x = 4, y = 1): value 2, d/dx = 1/(2 * 2) = 0.25, d/dy = 0.
  const auto other = etad::gradient(f, 4.0, 1.0);
  CHECK(other.value == 2.0);
  CHECK(other.gradient == std::array{0.25, 0.0});

  // In forward mode too: tangent along (1, 0) at x = 0, y = 1 is 0, not NaN.
  const auto t = etad::jvp(f, std::array{0.0, 1.0}, std::array{1.0, 0.0});
  CHECK(t.tangent == 0.0);
}

// --- custom rules inside larger expressions, in every mode --------------------------------------

namespace {
// f(x, y) = x log1pexp(x y) + bar(x, y). With s = 1 - 1/(1 + e^(xy)) (the sigmoid of xy):
//   df/dx = log1pexp(xy) + x s y + y,    df/dy = x s x + x.
// At (1, 0): xy = 0, log1pexp(0) = ln 2, s = 1/2, so f = ln 2, df/dx = ln 2, df/dy = 1/2 + 1 = 3/2.
constexpr auto mixed = [](auto x, auto y) { return x * log1pexp(x * y) + bar(x, y); };
}  // namespace

TEST_CASE("custom gradient: a custom rule inside a larger expression (gradient)") {
  const auto r = etad::gradient(mixed, 1.0, 0.0);
  CHECK(r.value == Approx(std::log(2.0)));
  CHECK(r.gradient[0] == Approx(std::log(2.0)));
  CHECK(r.gradient[1] == 1.5);
}

TEST_CASE("custom gradient: a custom rule inside a larger expression (jvp, vjp)") {
  // J v along v = (1, 2) at (1, 0): ln 2 * 1 + 3/2 * 2 = ln 2 + 3.
  const auto j = etad::jvp(mixed, std::array{1.0, 0.0}, std::array{1.0, 2.0});
  CHECK(j.value == Approx(std::log(2.0)));
  CHECK(j.tangent == Approx(std::log(2.0) + 3));
  // seed 2: 2 * (ln 2, 3/2) = (2 ln 2, 3).
  const auto v = etad::vjp(mixed, std::array{1.0, 0.0}, 2.0);
  CHECK(v.gradient[0] == Approx(2 * std::log(2.0)));
  CHECK(v.gradient[1] == 3.0);
}

TEST_CASE("custom gradient: custom rules in a function with two outputs (jacobian, jvp)") {
  // g(x, y) = (log1pexp(x) y, bar(x, y)) at (0, 3):
  //   output 0: ln 2 * 3;  row 0: (s(0) y, log1pexp(0)) = (1/2 * 3, ln 2) = (1.5, ln 2)
  //   output 1: 0 * 3 = 0; row 1: (y, x) = (3, 0)
  const auto g = [](auto x, auto y) { return std::tuple{log1pexp(x) * y, bar(x, y)}; };
  const double ln2 = std::log(2.0);

  const auto r = etad::jacobian(g, 0.0, 3.0);
  CHECK(r.value[0] == Approx(3 * ln2));
  CHECK(r.value[1] == 0.0);
  CHECK(r.jacobian[0][0] == 1.5);
  CHECK(r.jacobian[0][1] == Approx(ln2));
  CHECK(r.jacobian[1][0] == 3.0);
  CHECK(r.jacobian[1][1] == 0.0);

  // jvp along (1, 1) = the row sums: (1.5 + ln 2, 3).
  const auto t = etad::jvp(g, std::array{0.0, 3.0}, std::array{1.0, 1.0});
  CHECK(t.value[0] == Approx(3 * ln2));
  CHECK(t.tangent[0] == Approx(1.5 + ln2));
  CHECK(t.tangent[1] == 3.0);
}

// --- stop_gradient and grad_pass_through --------------------------------------------------------

TEST_CASE("stop_gradient: x * stop_gradient(x) has gradient x, not 2x") {
  // At x = 3: value 9; only the left factor is differentiated: d/dx = stop_gradient(x) = 3.
  const auto f = [](auto x) { return x * etad::stop_gradient(x); };
  const auto r = etad::gradient(f, 3.0);
  CHECK(r.value == 9.0);
  CHECK(r.gradient[0] == 3.0);
  // Forward mode agrees: tangent along 1 is 3.
  CHECK(etad::jvp(f, std::array{3.0}, std::array{1.0}).tangent == 3.0);
  // On a number it is the number.
  CHECK(etad::stop_gradient(2.5) == 2.5);
}

TEST_CASE("grad_pass_through: an assignment runs once and passes the gradient through") {
  // z * z at z = 3 is 9, stored by assign; the gradient is that of z * z: 2z = 6.
  double stored = 0;
  int calls = 0;
  const auto assign = [&](double v) {
    stored = v;
    ++calls;
    return v;
  };
  const auto r =
      etad::gradient([&](auto z) { return etad::grad_pass_through(assign)(z * z); }, 3.0);
  CHECK(r.value == 9.0);
  CHECK(r.gradient[0] == 6.0);
  CHECK(stored == 9.0);
  CHECK(calls == 1);
}

TEST_CASE("grad_pass_through: a quantizer gets the gradient of its input") {
  // round(1.3 x) at x = 2: round(2.6) = 3; the gradient passes through round: d(1.3 x)/dx = 1.3.
  const auto quantize = etad::grad_pass_through([](double v) { return std::round(v); });
  const auto r = etad::gradient([&](auto x) { return quantize(x * 1.3); }, 2.0);
  CHECK(r.value == 3.0);
  CHECK(r.gradient[0] == 1.3);
  // Without grad_pass_through, round has gradient 0 everywhere.
  CHECK(etad::gradient([](auto x) { return round(x * 1.3); }, 2.0).gradient[0] == 0.0);
}
