// tests/support/finite_difference.hpp — the numerical harness of the op tests: finite differences
// in long double, a NaN/inf-aware comparison, seeded points, and check_gradient, which holds
// etad::gradient, etad::vjp, etad::jvp and finite differences against each other at one point.
#pragma once

#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace etad_test {

// --- evaluation at numbers --------------------------------------------------------------------

/// f at a point, in long double. etad's ops applied to plain numbers return numbers, so the very
/// generic f that etad differentiates is evaluated here on long doubles: write the ops in f as
/// etad::sin(x) etc. (an unqualified sin(x) on a long double finds ::sin(double) and loses the
/// extra precision).
template <class F, class T, std::size_t N>
long double eval(const F& f, const std::array<T, N>& x) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return static_cast<long double>(f(static_cast<long double>(x[I])...));
  }(std::make_index_sequence<N>{});
}

// --- finite differences -----------------------------------------------------------------------

/// A finite-difference derivative and an estimate of its absolute error.
struct difference {
  long double value;
  long double error;
};

/// The central-difference step at x: cbrt(eps) max(scale, |x|), which balances truncation (h^2)
/// and rounding (eps / h), rounded so that (x + h) - x == h exactly. scale is 1 unless the points
/// lie much closer to a singularity at 0 than 1 (e.g. sqrt on [1e-8, 1e-4]).
inline long double fd_step(long double x, long double scale = 1) {
  const long double h =
      std::cbrt(std::numeric_limits<long double>::epsilon()) * std::max(scale, std::fabs(x));
  const long double xh = x + h;
  return xh - x;
}

/// d f / d x_i at x by central differences in long double with steps h and h/2, combined by one
/// Richardson step ((4 D(h/2) - D(h)) / 3, truncation O(h^4)). The error estimate is the distance
/// to the plain central difference D(h/2) (truncation) plus the rounding of f's values amplified
/// by 1/h, assuming f is good to 16 ulps of long double.
template <class F, std::size_t N>
difference partial_difference(const F& f, std::array<long double, N> x, std::size_t i,
                              long double scale = 1) {
  const long double xi = x[i];
  const long double h = fd_step(xi, scale);
  const auto at = [&](long double t) {
    x[i] = t;
    return eval(f, x);
  };
  const long double f0 = at(xi);
  const long double d1 = (at(xi + h) - at(xi - h)) / (2 * h);
  const long double d2 = (at(xi + h / 2) - at(xi - h / 2)) / h;
  const long double r = (4 * d2 - d1) / 3;
  const long double noise = 16 * std::numeric_limits<long double>::epsilon() * std::fabs(f0) / h;
  return {r, std::fabs(r - d2) + noise};
}

/// The finite-difference gradient of f at x (x converted exactly to long double).
template <class F, class T, std::size_t N>
std::array<difference, N> fd_gradient(const F& f, const std::array<T, N>& x, long double scale = 1) {
  std::array<long double, N> xl{};
  for (std::size_t k = 0; k < N; ++k) xl[k] = static_cast<long double>(x[k]);
  std::array<difference, N> d{};
  for (std::size_t k = 0; k < N; ++k) d[k] = partial_difference(f, xl, k, scale);
  return d;
}

// --- comparison -------------------------------------------------------------------------------

/// |a - b| <= max(rel * max(|a|, |b|), abs); two NaNs are equal, an infinity equals only the same
/// infinity.
inline bool close(long double a, long double b, long double rel, long double abs = 0) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  const long double d = std::fabs(a - b);
  return d <= abs || d <= rel * std::max(std::fabs(a), std::fabs(b));
}

/// a and b are the same number: equal (0 == -0), or both NaN.
inline bool same(long double a, long double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

/// Numbers printed with all their digits, for failure messages.
inline std::string fmt(long double v) {
  std::ostringstream s;
  s << std::setprecision(std::numeric_limits<long double>::max_digits10) << v;
  return s.str();
}
template <class T, std::size_t N>
std::string fmt(const std::array<T, N>& x) {
  std::string s = "(";
  for (std::size_t k = 0; k < N; ++k) s += (k ? ", " : "") + fmt(static_cast<long double>(x[k]));
  return s + ")";
}

template <class T>
constexpr std::string_view type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "long double";
}

// --- seeded points ----------------------------------------------------------------------------

/// A closed interval [lo, hi] to draw points from.
struct interval {
  long double lo, hi;
};

inline constexpr std::uint64_t default_seed = 0x5eed'e7ad'0000'0001ULL;

/// A seed per op name (FNV-1a), so each op gets its own points and a run is reproducible.
constexpr std::uint64_t seed_for(std::string_view name) {
  std::uint64_t h = 0xcbf2'9ce4'8422'2325ULL;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100'0000'01b3ULL;
  return h ^ default_seed;
}

/// count points uniform over the box `domain`, rounded to T; std::mt19937_64 with a fixed seed
/// and our own mapping to [0, 1) (std::uniform_real_distribution differs between libraries).
template <class T, std::size_t N>
std::vector<std::array<T, N>> points(const std::array<interval, N>& domain, std::size_t count,
                                     std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::array<T, N>> r(count);
  for (auto& p : r)
    for (std::size_t k = 0; k < N; ++k) {
      const long double u = static_cast<long double>(rng() >> 11) * 0x1p-53L;
      p[k] = static_cast<T>(domain[k].lo + (domain[k].hi - domain[k].lo) * u);
    }
  return r;
}

// --- tolerances -------------------------------------------------------------------------------

/// Relative tolerance with an absolute floor, for one floating type.
struct tol {
  double rel;
  double abs = 0;
};

/// Tolerances of a gradient against finite differences, per input type. The defaults: 1e-4
/// relative for float, 1e-6 for double, 1e-9 for long double (the finite difference itself is
/// good to about 1e-12 relative; its own error estimate is added to the absolute floor).
/// fd_scale: the scale of the finite-difference step (see fd_step).
struct tolerance {
  tol f{1e-4};
  tol d{1e-6};
  tol ld{1e-9};
  long double fd_scale = 1;
  template <class T>
  constexpr tol of() const {
    if constexpr (std::is_same_v<T, float>) return f;
    else if constexpr (std::is_same_v<T, double>) return d;
    else return ld;
  }
};

/// gradient, vjp and jvp use the same partials: they agree to a few ulps (the order of the
/// products along a path differs between reverse and forward mode).
template <class T>
inline constexpr long double mode_rel = 64 * static_cast<long double>(std::numeric_limits<T>::epsilon());

// --- the check --------------------------------------------------------------------------------

/// What check_gradient computed at one point, in long double (exact for float and double), for
/// report_gradient: the checks and their messages are compiled once per test file, not once per
/// function and type checked (the op tests instantiate check_gradient for hundreds of functions,
/// each in three types: Catch's macros there were most of their compile time).
struct gradient_report {
  std::string_view name;
  std::string_view type;
  std::string point;
  tol tt;
  long double mode_rel;
  long double value, reference, vjp_value;
  std::vector<long double> gradient, vjp, jvp_value, jvp;
  std::vector<difference> fd;
};

/// The checks of check_gradient on its report.
inline void report_gradient(const gradient_report& r) {
  INFO(r.name << " <" << r.type << "> at " << r.point);
  {
    // Relative to max(1, |value|): a value that is a difference of larger terms (float's
    // a - (b - c) = 0.0024 from terms near 10) is only good to the terms' ulps.
    INFO("value: etad " << fmt(r.value) << ", long double " << fmt(r.reference));
    CHECK(close(r.value, r.reference, r.tt.rel, std::max<long double>(r.tt.abs, r.tt.rel)));
  }
  for (std::size_t i = 0; i < r.gradient.size(); ++i) {
    INFO("d/dx" << i << ": gradient " << fmt(r.gradient[i]) << ", vjp " << fmt(r.vjp[i])
                << ", jvp " << fmt(r.jvp[i]) << ", finite difference " << fmt(r.fd[i].value)
                << " +- " << fmt(r.fd[i].error));
    CHECK(same(r.vjp_value, r.value));
    CHECK(same(r.jvp_value[i], r.value));
    CHECK(close(r.vjp[i], r.gradient[i], r.mode_rel));
    CHECK(close(r.jvp[i], r.gradient[i], r.mode_rel));
    CHECK(close(r.gradient[i], r.fd[i].value, r.tt.rel, r.tt.abs + r.fd[i].error));
  }
}

/// etad::gradient(f, x...) at one point: its value against f in long double, its gradient against
/// vjp with seed 1 and jvp in each unit direction (a few ulps), and against finite differences
/// (tolerance t). Also that float / double / long double inputs give results of that type.
template <class T, class F, std::size_t N>
void check_gradient(std::string_view name, const F& f, const std::array<T, N>& x, const tolerance& t = {}) {
  const auto g = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return etad::gradient(f, x[I]...);
  }(std::make_index_sequence<N>{});
  static_assert(std::is_same_v<decltype(g.value), T>, "gradient's value has the input type");
  static_assert(std::is_same_v<decltype(g.gradient), std::array<T, N>>, "gradient has the input type");
  gradient_report r{name, type_name<T>(), fmt(x), t.of<T>(), mode_rel<T>,
                    g.value, eval(f, x), 0, {}, {}, {}, {}, {}};
  const auto v = etad::vjp(f, x, T(1));
  r.vjp_value = v.value;
  const auto d = fd_gradient(f, x, t.fd_scale);
  for (std::size_t i = 0; i < N; ++i) {
    std::array<T, N> e{};
    e[i] = T(1);
    const auto j = etad::jvp(f, x, e);
    r.gradient.push_back(g.gradient[i]);
    r.vjp.push_back(v.gradient[i]);
    r.jvp_value.push_back(j.value);
    r.jvp.push_back(j.tangent);
    r.fd.push_back(d[i]);
  }
  report_gradient(r);
}

// --- table-driven op checks -------------------------------------------------------------------

/// One row of an op table: a name, a generic f of N inputs, the box its points come from, and
/// the tolerances against finite differences.
template <std::size_t N, class F>
struct op_case {
  std::string_view name;
  F f;
  std::array<interval, N> domain;
  tolerance tol{};
  std::size_t count = 50;
};

template <class F>
op_case<1, F> unary(std::string_view name, F f, interval a, tolerance t = {}) {
  return {name, f, {a}, t};
}
template <class F>
op_case<2, F> binary(std::string_view name, F f, interval a, interval b, tolerance t = {}) {
  return {name, f, {a, b}, t};
}
template <class F>
op_case<3, F> ternary(std::string_view name, F f, interval a, interval b, interval c, tolerance t = {}) {
  return {name, f, {a, b, c}, t};
}

/// N inputs, each from `domain[k]`; box<N>(i) gives N copies of one interval.
template <std::size_t N, class F>
op_case<N, F> nary(std::string_view name, F f, const std::array<interval, N>& domain, tolerance t = {}) {
  return {name, f, domain, t};
}
template <std::size_t N>
std::array<interval, N> box(interval i) {
  std::array<interval, N> b{};
  b.fill(i);
  return b;
}

/// check_gradient at count seeded points of the case's domain, for float, double and long double.
template <std::size_t N, class F>
void check_op(const op_case<N, F>& c) {
  const auto run = [&]<class T>(T*) {
    for (const auto& x : points<T>(c.domain, c.count, seed_for(c.name))) check_gradient(c.name, c.f, x, c.tol);
  };
  run(static_cast<float*>(nullptr));
  run(static_cast<double*>(nullptr));
  run(static_cast<long double*>(nullptr));
}

/// Runs every row of a table: check_ops(unary("sin", ...), binary("atan2", ...), ...).
template <class... Cases>
void check_ops(const Cases&... cases) {
  (check_op(cases), ...);
}

}  // namespace etad_test
