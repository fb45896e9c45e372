// examples/custom_gradient.cpp — a custom gradient, after TensorFlow's tf.custom_gradient
// example: log(1 + e^x), whose derivative, computed as written, is NaN for large x.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>

/// log(1 + e^x). d/dx = e^x / (1 + e^x), written as 1 - 1/(1 + e^x) so that it is 1, not
/// inf/inf = NaN, once e^x overflows. The value is computed without overflowing, too.
struct log1pexp_op {
  static constexpr std::string_view name = "log1pexp";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) {
    using std::exp, std::log1p;
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
  }
  static constexpr auto partials(const auto& x, const auto& /*f = value(x)*/) {
    using std::exp;
    return std::array{1 - 1 / (1 + exp(x))};  // one partial per argument
  }
};
inline constexpr etad::op_fn<log1pexp_op> log1pexp{};

TEST_CASE("example: custom gradient") {
  // Differentiated as written, log(1 + e^x) has the gradient 1/(1 + e^x) * e^x, which at
  // x = 1000 is 0 * inf = NaN, because e^1000 overflows. (In float that happens at x = 100.)
  auto naive = etad::gradient([](auto x) { return log(1 + exp(x)); }, 1000.0);
  CHECK(std::isnan(naive.gradient[0]));

  // With the rule: 1 - 1/(1 + inf) = 1 exactly, and the value is 1000 + log1p(e^-1000) = 1000.
  auto custom = etad::gradient([](auto x) { return log1pexp(x); }, 1000.0);
  CHECK(custom.gradient[0] == 1.0);
  CHECK(custom.value == 1000.0);

  // Where both work they agree: at x = 0 the gradient is e^0 / (1 + e^0) = 1/2.
  CHECK(etad::gradient([](auto x) { return log1pexp(x); }, 0.0).gradient[0] == 0.5);

  // A rule is a plain function of numbers too: log1pexp(0.0) = log 2 ~ 0.6931.
  CHECK(log1pexp(0.0) == Approx(std::log(2.0)));
}

/// x0 x1 x2 as one rule that declares itself a product: partial i is the product of the others,
/// and the static sweep may then give a factor repeated k times one partial, k times another's.
struct mul3_op {
  static constexpr std::string_view name = "mul3";
  static constexpr std::size_t arity = 3;
  static constexpr bool product = true;
  static constexpr auto value(const auto& a, const auto& b, const auto& c) { return a * b * c; }
  static constexpr auto partials(const auto& a, const auto& b, const auto& c, const auto&) {
    return std::array{b * c, a * c, a * b};
  }
};
inline constexpr etad::op_fn<mul3_op> mul3{};

TEST_CASE("example: a product rule") {
  // mul3(x, y, x) = x^2 y: d/dx = 2 x y, d/dy = x^2 (exact at these points).
  auto [v, g] = etad::gradient([](auto x, auto y) { return mul3(x, y, x); }, 1.5, -2.0);
  CHECK(v == -4.5);
  CHECK(g == std::array{2 * 1.5 * -2.0, 1.5 * 1.5});
  // Nested with the built-in * (also a product rule): mul3(x, x y, x) = x^3 y is one product of
  // four factors, x three times: d/dx = 3 x^2 y, d/dy = x^3.
  auto [v2, g2] = etad::gradient([](auto x, auto y) { return mul3(x, x * y, x); }, 1.5, -2.0);
  CHECK(v2 == 1.5 * 1.5 * 1.5 * -2.0);
  CHECK(g2 == std::array{3 * 1.5 * 1.5 * -2.0, 1.5 * 1.5 * 1.5});
}
