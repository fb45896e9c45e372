// tests/tape/ops_agreement_test.cpp — every op, written once as a generic f, differentiated three
// ways: by the static front door (etad::gradient), on the run-time tape (etad::real z = f(x, y)),
// and by finite differences of f on plain numbers. The tape must give the static gradient to a
// few ulps and both must match the finite differences; each call of f is ONE tape statement.
#include "support/finite_difference.hpp"
#include "support/tape_support.hpp"

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string_view>

namespace tape_ops_test {

using etad_test::interval;

/// How one f at one point fares in the three modes.
template <std::size_t N>
struct agreement {
  bool one_statement = false;              // f recorded exactly one statement
  bool same_value = false;                 // tape and static values equal (bitwise, or both NaN)
  bool value_ok = false;                   // ... and equal to f on long doubles, to 1e-13
  std::array<bool, N> tape_is_static{};    // tape gradient == static gradient to 64 ulps
  std::array<bool, N> tape_is_difference{};  // tape gradient == finite difference to 1e-6
  bool ok() const {
    bool r = one_statement && same_value && value_ok;
    for (std::size_t i = 0; i < N; ++i) r = r && tape_is_static[i] && tape_is_difference[i];
    return r;
  }
};

template <class F, std::size_t N>
agreement<N> compare_modes(const F& f, const std::array<double, N>& x, bool differences = true) {
  using etad_test::close;
  const auto s = etad_tape_test::static_gradient(f, x);
  const auto r = etad_tape_test::tape_gradient(f, x);
  agreement<N> a;
  a.one_statement = r.statements == 1;
  a.same_value = etad_test::same(r.value, s.value);
  a.value_ok = close(r.value, etad_test::eval(f, x), 1e-13, 1e-13);
  const auto d = etad_test::fd_gradient(f, x);
  for (std::size_t i = 0; i < N; ++i) {
    a.tape_is_static[i] = close(r.gradient[i], s.gradient[i], etad_test::mode_rel<double>, 1e-300);
    a.tape_is_difference[i] = !differences || close(r.gradient[i], d[i].value, 1e-6, 1e-9 + d[i].error);
  }
  return a;
}

/// CHECKs compare_modes at one point, with every number in the failure message.
template <class F, std::size_t N>
void check_modes(std::string_view name, const F& f, const std::array<double, N>& x) {
  const auto s = etad_tape_test::static_gradient(f, x);
  const auto r = etad_tape_test::tape_gradient(f, x);
  const auto d = etad_test::fd_gradient(f, x);
  std::ostringstream m;
  m << name << " at " << etad_test::fmt(x) << ": value tape " << etad_test::fmt(r.value) << ", static "
    << etad_test::fmt(s.value) << "; statements " << r.statements;
  for (std::size_t i = 0; i < N; ++i)
    m << "\nd/dx" << i << ": tape " << etad_test::fmt(r.gradient[i]) << ", static "
      << etad_test::fmt(s.gradient[i]) << ", finite difference " << etad_test::fmt(d[i].value) << " +- "
      << etad_test::fmt(d[i].error);
  INFO(m.str());
  const auto a = compare_modes(f, x);
  CHECK(a.one_statement);
  CHECK(a.same_value);
  CHECK(a.value_ok);
  for (std::size_t i = 0; i < N; ++i) {
    CHECK(a.tape_is_static[i]);
    CHECK(a.tape_is_difference[i]);
  }
}

/// One row: a name, a generic f of N inputs, and the box its seeded points come from.
template <std::size_t N, class F>
struct op_case {
  std::string_view name;
  F f;
  std::array<interval, N> domain;
};
template <class F>
op_case<1, F> one_input(std::string_view name, F f, interval a) {
  return {name, f, {a}};
}
template <class F>
op_case<2, F> two_inputs(std::string_view name, F f, interval a, interval b) {
  return {name, f, {a, b}};
}
template <class F>
op_case<3, F> three_inputs(std::string_view name, F f, interval a, interval b, interval c) {
  return {name, f, {a, b, c}};
}

template <class... Cases>
void check_cases(const Cases&... c) {
  const auto one = [](const auto& k) {
    for (const auto& x : etad_test::points<double>(k.domain, 6, etad_test::seed_for(k.name)))
      check_modes(k.name, k.f, x);
  };
  (one(c), ...);
}

constexpr interval wide{-3, 3};
constexpr interval positive{0.2, 4};

}  // namespace tape_ops_test

using namespace tape_ops_test;

TEST_CASE("tape ops: arithmetic agrees with the static gradient and finite differences", "[tape][ops]") {
  check_cases(
      two_inputs("x + y + 1.5", [](auto x, auto y) { return x + y + 1.5; }, wide, wide),
      two_inputs("x - y - 2 and 2 - x", [](auto x, auto y) { return (x - y - 2) * (2.0 - x); }, wide, wide),
      two_inputs("3 x y", [](auto x, auto y) { return 3.0 * x * y; }, wide, wide),
      two_inputs("x / y + 1 / x", [](auto x, auto y) { return x / y + 1.0 / x; }, positive, positive),
      two_inputs("-x * y", [](auto x, auto y) { return -x * y + -(y / 2); }, wide, wide),
      // The same leaf used many times: one statement, one partial per occurrence.
      one_input("x x x - x / 3", [](auto x) { return x * x * x - x / 3 + x; }, wide));
}

TEST_CASE("tape ops: trigonometric functions agree", "[tape][ops]") {
  check_cases(
      two_inputs("sin(x) y", [](auto x, auto y) { return etad::sin(x) * y; }, wide, wide),
      two_inputs("cos(x y) + 1", [](auto x, auto y) { return etad::cos(x * y) + 1; }, wide, wide),
      one_input("tan(x) / 2", [](auto x) { return etad::tan(x) / 2; }, {-1.4, 1.4}),
      two_inputs("asin(x) - y", [](auto x, auto y) { return etad::asin(x) - y * y; }, {-0.95, 0.95}, wide),
      one_input("acos(x) x", [](auto x) { return etad::acos(x) * x; }, {-0.95, 0.95}),
      one_input("atan(3 x)", [](auto x) { return etad::atan(3.0 * x); }, wide),
      two_inputs("atan2(x, y) exp(y)", [](auto x, auto y) { return etad::atan2(x, y) * etad::exp(y); }, wide, wide),
      two_inputs("atan2(2, y) + atan2(x, -1)",
             [](auto x, auto y) { return etad::atan2(2.0, y) + etad::atan2(x, -1.0); }, wide, wide),
      one_input("sinh(x) - x", [](auto x) { return etad::sinh(x) - 0.5 * x; }, wide),
      two_inputs("cosh(x) y", [](auto x, auto y) { return etad::cosh(x) * y; }, wide, wide),
      one_input("tanh(x) + x", [](auto x) { return etad::tanh(x) + x; }, wide),
      one_input("asinh(x) x", [](auto x) { return etad::asinh(x) * x; }, wide),
      one_input("acosh(x)", [](auto x) { return etad::acosh(x) * 2.0; }, {1.1, 5}),
      one_input("atanh(x) - 1", [](auto x) { return etad::atanh(x) - 1; }, {-0.9, 0.9}));
}

TEST_CASE("tape ops: exponentials and logarithms agree", "[tape][ops]") {
  check_cases(
      two_inputs("exp(x y)", [](auto x, auto y) { return etad::exp(x * y); }, {-1.5, 1.5}, {-1.5, 1.5}),
      one_input("exp2(x) / 3", [](auto x) { return etad::exp2(x) / 3; }, wide),
      one_input("expm1(x) + x", [](auto x) { return etad::expm1(x) + x; }, wide),
      two_inputs("log(x) y", [](auto x, auto y) { return etad::log(x) * y; }, positive, wide),
      one_input("log2(x + 1)", [](auto x) { return etad::log2(x + 1.0); }, positive),
      one_input("log10(x) x", [](auto x) { return etad::log10(x) * x; }, positive),
      one_input("log1p(x)", [](auto x) { return etad::log1p(x) - 2.0; }, {-0.8, 3}));
}

TEST_CASE("tape ops: powers and roots agree, all four pow variants", "[tape][ops]") {
  check_cases(
      one_input("sqrt(x) + 1", [](auto x) { return etad::sqrt(x) + 1; }, positive),
      one_input("cbrt(x) x", [](auto x) { return etad::cbrt(x) * x; }, {0.3, 5}),
      one_input("cbrt(x), x < 0", [](auto x) { return etad::cbrt(x); }, {-5, -0.3}),
      two_inputs("pow(x, y) real^real", [](auto x, auto y) { return etad::pow(x, y); }, positive, wide),
      one_input("pow(x, 3) real^int", [](auto x) { return etad::pow(x, 3) - x; }, wide),
      one_input("pow(x, -2) real^int", [](auto x) { return etad::pow(x, -2); }, positive),
      one_input("pow(x, 2.5) real^double", [](auto x) { return etad::pow(x, 2.5); }, positive),
      one_input("pow(2.5, x) double^real", [](auto x) { return etad::pow(2.5, x) * x; }, wide),
      two_inputs("hypot(x, y)", [](auto x, auto y) { return etad::hypot(x, y); }, wide, wide),
      one_input("hypot(3, x)", [](auto x) { return etad::hypot(3.0, x) * x; }, wide));
}

TEST_CASE("tape ops: nonsmooth ops agree away from their kinks", "[tape][ops]") {
  check_cases(
      one_input("abs(x) x", [](auto x) { return etad::abs(x) * x + etad::abs(x); }, wide),
      two_inputs("fmin(x, y)", [](auto x, auto y) { return etad::fmin(x, y) * 2.0; }, wide, wide),
      two_inputs("fmax(x, y) + fmax(x, 0.5)",
             [](auto x, auto y) { return etad::fmax(x, y) + etad::fmax(x, 0.5); }, wide, wide),
      two_inputs("min(x, y) y", [](auto x, auto y) { return etad::min(x, y) * y; }, wide, wide),
      two_inputs("max(x, y) - max(1, y)", [](auto x, auto y) { return etad::max(x, y) - etad::max(1.0, y); },
             wide, wide),
      two_inputs("floor(x) y + x", [](auto x, auto y) { return etad::floor(x) * y + x; }, wide, wide),
      two_inputs("ceil(x) y + x", [](auto x, auto y) { return etad::ceil(x) * y + x; }, wide, wide),
      two_inputs("round(x) y + y", [](auto x, auto y) { return etad::round(x) * y + y; }, wide, wide),
      two_inputs("trunc(x) y - x", [](auto x, auto y) { return etad::trunc(x) * y - x; }, wide, wide),
      three_inputs("fma(x, y, z)", [](auto x, auto y, auto z) { return etad::fma(x, y, z); }, wide, wide, wide),
      two_inputs("fma(x, 2, y) x", [](auto x, auto y) { return etad::fma(x, 2.0, y) * x; }, wide, wide));
}

TEST_CASE("tape ops: error and gamma functions agree", "[tape][ops]") {
  check_cases(
      one_input("erf(x) + x", [](auto x) { return etad::erf(x) + x; }, wide),
      two_inputs("erfc(x) y", [](auto x, auto y) { return etad::erfc(x) * y; }, wide, wide),
      one_input("tgamma(x)", [](auto x) { return etad::tgamma(x); }, {0.3, 5}),
      one_input("tgamma(x), x < 0", [](auto x) { return etad::tgamma(x); }, {-2.9, -2.1}),
      one_input("lgamma(x)", [](auto x) { return etad::lgamma(x) * 2.0; }, {0.3, 20}),
      one_input("lgamma(x), x < 0", [](auto x) { return etad::lgamma(x); }, {-1.9, -1.1}));
}

TEST_CASE("tape ops: select and comparisons agree away from the switch", "[tape][ops]") {
  check_cases(
      two_inputs("select(x > y, sin x, y y)",
             [](auto x, auto y) { return etad::select(x > y, etad::sin(x), y * y); }, wide, wide),
      two_inputs("select(x <= 1, x y, 2)", [](auto x, auto y) { return etad::select(x <= 1.0, x * y, 2.0); },
             wide, wide),
      two_inputs("select(x < y && y < 1, ...)",
             [](auto x, auto y) { return etad::select(x < y && y < 1.0, x - y, x * y); }, wide, wide));
}

TEST_CASE("tape ops: compositions with shared subexpressions agree", "[tape][ops]") {
  // The static sweep computes sin(x) once and sums its adjoints before multiplying by cos x; the
  // tape pushes each occurrence: the two agree to rounding.
  check_cases(
      two_inputs("sin(x) sin(x) + sin(x) / y",
             [](auto x, auto y) { return etad::sin(x) * etad::sin(x) + etad::sin(x) / y; }, wide, positive),
      three_inputs("softplus-like mix",
              [](auto x, auto y, auto z) {
                return etad::log1p(etad::exp(x * y)) - etad::sqrt(z * z + 1) * etad::tanh(y) + etad::pow(z, 2);
              },
              wide, wide, wide),
      three_inputs("a polynomial and a ratio",
              [](auto x, auto y, auto z) { return (x * x - 2 * x * y + 3) / (1 + z * z) + etad::hypot(x, z); },
              wide, wide, wide));
}

TEST_CASE("tape ops: stop_gradient agrees with its closed form", "[tape][ops]") {
  // Finite differences see through stop_gradient (it is the identity on numbers); the closed form
  // does not. f = x * stop_gradient(x y) + y: df/dx = x y, df/dy = 1.
  const auto f = [](auto x, auto y) { return x * etad::stop_gradient(x * y) + y; };
  for (const auto& x : etad_test::points<double>(std::array{wide, wide}, 6, 7)) {
    INFO("at " << etad_test::fmt(x));
    const auto a = compare_modes(f, x, /*differences=*/false);
    CHECK(a.ok());
    const auto r = etad_tape_test::tape_gradient(f, x);
    CHECK(r.value == x[0] * (x[0] * x[1]) + x[1]);
    CHECK(r.gradient[0] == x[0] * x[1]);
    CHECK(r.gradient[1] == 1.0);
    // x, y, and x, y inside stop_gradient (whose partials are 0), unless merged
    CHECK(r.partials >= 2);
    CHECK(r.partials <= 4);
  }
}

namespace tape_ops_test {
/// A deliberately wrong rule: sin with derivative 2 cos. Static and tape share the rule (and
/// agree); only the finite differences can tell, so the harness must report it.
struct wrong_sin_op {
  static constexpr std::string_view name = "wrong_sin";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { using std::sin; return sin(x); }
  static constexpr auto partials(const auto& x, const auto&) { using std::cos; return std::array{2 * cos(x)}; }
};
inline constexpr etad::op_fn<wrong_sin_op> wrong_sin{};
}  // namespace tape_ops_test

TEST_CASE("tape ops: the harness catches a wrong derivative", "[tape][ops]") {
  const std::array<double, 1> x{0.7};
  const auto wrong = compare_modes([](auto v) { return tape_ops_test::wrong_sin(v) * 3.0; }, x);
  CHECK(wrong.tape_is_static[0]);
  CHECK_FALSE(wrong.tape_is_difference[0]);
  CHECK_FALSE(wrong.ok());
  const auto right = compare_modes([](auto v) { return etad::sin(v) * 3.0; }, x);
  CHECK(right.ok());
}

TEST_CASE("tape ops: one statement with at most one partial per real leaf occurrence", "[tape][ops]") {
  // A statement has one partial per occurrence of a real in the expression, except where the
  // optimizer proves two occurrences to be one real (then one partial, their sum: see
  // tests/tape/merge_test.cpp). So the count lies between the distinct inputs and the
  // occurrences, whatever the optimizer saw.
  using etad_tape_test::tape_gradient;
  const std::array<double, 2> p{0.8, -1.3};
  const auto between = [](std::size_t partials, std::size_t distinct, std::size_t occurrences) {
    INFO(partials << " partials for " << distinct << " inputs in " << occurrences << " occurrences");
    CHECK(partials >= distinct);
    CHECK(partials <= occurrences);
  };
  between(tape_gradient([](auto x, auto y) { return x * y + etad::sin(x); }, p).partials, 2, 3);
  between(tape_gradient([](auto x, auto y) { return etad::atan2(x, y) * etad::exp(y); }, p).partials, 2, 3);
  CHECK(tape_gradient([](auto x, auto) { return etad::pow(x, 3) + 2.0; }, p).partials == 1);
  CHECK(tape_gradient([](auto x, auto y) { return x * etad::sin(y); }, p).partials == 2);
  // A comparison's leaves are occurrences too: x, y in the condition and x, y in the branches.
  between(tape_gradient([](auto x, auto y) { return etad::select(x > y, x, y); }, p).partials, 2, 4);
  const auto r = tape_gradient([](auto x, auto y) { return x * x * x * y * y + 1.0; }, p);
  CHECK(r.statements == 1);
  between(r.partials, 2, 5);
  CHECK(r.gradient[0] == Approx(3 * 0.8 * 0.8 * 1.3 * 1.3).epsilon(1e-15));
  CHECK(r.gradient[1] == Approx(2 * 0.8 * 0.8 * 0.8 * -1.3).epsilon(1e-15));
}
