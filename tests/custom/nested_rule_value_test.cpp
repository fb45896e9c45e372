// tests/custom/nested_rule_value_test.cpp — a custom rule on nested tapes: the outer tape records
// the rule itself, with the partials the rule declares, as TensorFlow records a custom_gradient op
// on every active GradientTape; it does not differentiate the rule's value formula. The two
// differ only for rules whose partials are not the derivative of their value (straight-through
// estimators, clipped gradients). Every expected value is derived by hand in a comment.
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <type_traits>

// A named namespace: clang warns of a rule's unused `name` in an anonymous one.
namespace nested_rule_value_test {

/// A straight-through estimator: value round(x), partial 1.
struct ste_op {
  static constexpr std::string_view name = "ste";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::round; return round(x); }
  static constexpr auto partials(const auto& x, const auto&) {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{T(1)};
  }
};
inline constexpr etad::op_fn<ste_op> ste{};

/// x^2 with its gradient clipped to [-1, 1]: value x^2, partial clip(2x, -1, 1) (TF: a
/// custom_gradient returning tf.clip_by_value(2 * x, -1, 1) * dy).
struct clipped_square_op {
  static constexpr std::string_view name = "clipped_square";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return x * x; }
  static constexpr auto partials(const auto& x, const auto&) {
    using T = std::remove_cvref_t<decltype(x)>;
    using std::fmax, std::fmin;
    return std::array{T(fmin(fmax(2 * x, T(-1)), T(1)))};
  }
};
inline constexpr etad::op_fn<clipped_square_op> clipped_square{};

using real = etad::real<double>;
using real2 = etad::real<real>;

using etad_tape_test::first_and_second;

}  // namespace nested_rule_value_test

using namespace nested_rule_value_test;

TEST_CASE("nested custom rule: a straight-through estimator is straight-through on the outer tape too",
          "[custom][higher_order]") {
  // f = s(x) x with s = ste: s(2.7) = 3, s' = 1 on every tape. f' = s' x + s = 2.7 + 3 = 5.7;
  // f'' = s' + s' = 2 (TensorFlow: 2). (Before: the outer tape differentiated round, slope 0,
  // and f'' was 1.)
  const auto d = first_and_second([](const auto& x) { return real2(ste(x) * x); }, 2.7);
  CHECK(d[0] == Approx(5.7));
  CHECK(d[1] == 2.0);
  // f = s(x)^2: f' = 2 s s' = 2 * 3 = 6; f'' = 2 s'^2 = 2 (before: 0).
  const auto e = first_and_second([](const auto& x) { return real2(ste(x) * ste(x)); }, 2.7);
  CHECK(e[0] == 6.0);
  CHECK(e[1] == 2.0);
}

TEST_CASE("nested custom rule: a clipped gradient as TensorFlow's custom_gradient", "[custom][higher_order]") {
  // f = c(x) x with c = clipped_square: c = x^2, c' = clip(2x, -1, 1) on every tape.
  // f' = c' x + c; f'' = (d/dx c') x + c' + c' = 2 x [|2x| < 1] + 2 clip(2x, -1, 1).
  // At x = 2 (clipped): f' = 1 * 2 + 4 = 6, f'' = 0 + 1 + 1 = 2 (before: the outer tape saw
  // c = x^2 as written, slope 2x = 4, and f'' was 5).
  const auto at2 = first_and_second([](const auto& x) { return real2(clipped_square(x) * x); }, 2.0);
  CHECK(at2[0] == 6.0);
  CHECK(at2[1] == 2.0);
  // At x = 0.25 (not clipped, c' = 2x the true slope): f' = 0.5 * 0.25 + 0.0625 = 0.1875,
  // f'' = 2 * 0.25 + 0.5 + 0.5 = 1.5, as before.
  const auto at025 = first_and_second([](const auto& x) { return real2(clipped_square(x) * x); }, 0.25);
  CHECK(at025[0] == 0.1875);
  CHECK(at025[1] == 1.5);
  // At x = -3 (clipped from below): f' = -1 * -3 + 9 = 12, f'' = 0 - 1 - 1 = -2.
  const auto atm3 = first_and_second([](const auto& x) { return real2(clipped_square(x) * x); }, -3.0);
  CHECK(atm3[0] == 12.0);
  CHECK(atm3[1] == -2.0);
}

TEST_CASE("nested custom rule: Hessian of a two-variable straight-through expression", "[custom][higher_order]") {
  // f(x, y) = s(x y) y with s = ste, s' = 1 on every tape: f_x = s' y y = y^2,
  // f_y = s' x y + s(x y) = x y + s(x y). f_xx = 0, f_xy = 2y, f_yx = y + s' y = 2y,
  // f_yy = x + s' x = 2x. At (0.7, 0.4): [[0, 0.8], [0.8, 1.4]] (before: the outer tape saw
  // round's slope 0 in s, and the second row was [0.4, 0.7]).
  const auto h = etad_tape_test::nested_hessian([](auto x, auto y) { return ste(x * y) * y; },
                                                std::array{0.7, 0.4});
  CHECK(h[0][0] == 0.0);
  CHECK(h[0][1] == Approx(0.8));
  CHECK(h[1][0] == Approx(0.8));
  CHECK(h[1][1] == Approx(1.4));
}

TEST_CASE("nested custom rule: three tapes deep", "[custom][higher_order]") {
  // f = s(x) x^2 with s = ste (s' = 1, s'' = 0 on every tape): f' = x^2 + 2 x s,
  // f'' = 2x + 2s + 2x = 4x + 2s, f''' = 4 + 2 = 6. At 2.7 (s = 3): f' = 7.29 + 16.2 = 23.49,
  // f'' = 10.8 + 6 = 16.8.
  const double xv = 2.7;
  etad::tape t1{etad::persistent};
  const real x1 = t1.variable(xv);
  real d2;
  {
    etad::basic_tape<real> t2;
    const real2 x2 = t2.variable(x1);
    real2 d1;
    {
      etad::basic_tape<real2> t3;
      const etad::real<real2> x3 = t3.variable(x2);
      const etad::real<real2> y = ste(x3) * x3 * x3;
      d1 = t3.gradient(y, x3)[0];
    }
    CHECK(d1.value().value() == Approx(23.49));
    d2 = t2.gradient(d1, x2)[0];
  }
  CHECK(d2.value() == Approx(16.8));
  CHECK(t1.gradient(d2, x1)[0] == 6.0);
}
