// tests/tape/range_statement_test.cpp — range statements: a reduction whose inputs are
// consecutive values of the tape (variables() makes them so) stores the range's first index and
// length, and no partials at all when they are all equal (sum, mean). The same reductions over
// the same values laid out otherwise (consecutive intermediates, permuted, ends consecutive but
// not the middle, with duplicates and constants) must give the same gradients, which are checked
// against closed forms. Also: gradients with many sources (one pass after the sweep), leading
// variables (not stored), stop_gradients and unconnected sources through range statements.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace {

using real = etad::real<double>;

const std::vector<double> values{0.7, -1.2, 1.9, 0.4, -0.3, 1.1, 0.95};
const std::vector<double> coefficients{0.5, -2.0, 3.0, 0.25, 1.5, -0.75, 2.0};

// Closed forms of the reductions' gradients at v.
std::vector<double> expected(const std::string& name, const std::vector<double>& v) {
  const std::size_t n = v.size();
  std::vector<double> g(n);
  double z = 0;
  for (const double e : v) z += std::exp(e);
  for (std::size_t i = 0; i < n; ++i) {
    if (name == "sum") g[i] = 1;
    if (name == "mean") g[i] = 1.0 / static_cast<double>(n);
    if (name == "squared_norm") g[i] = 2 * v[i];
    if (name == "dot") g[i] = coefficients[i];
    if (name == "log_sum_exp") g[i] = std::exp(v[i]) / z;
    if (name == "prod") {
      g[i] = 1;
      for (std::size_t j = 0; j < n; ++j)
        if (j != i) g[i] *= v[j];
    }
  }
  return g;
}

real reduce(const std::string& name, std::span<const real> x) {
  if (name == "sum") return etad::sum(x);
  if (name == "mean") return etad::mean(x);
  if (name == "squared_norm") return etad::squared_norm(x);
  if (name == "dot") return etad::dot(x, std::span<const double>(coefficients).first(x.size()));
  if (name == "log_sum_exp") return etad::log_sum_exp(x);
  return etad::prod(x);
}

const std::array<std::string, 6> names{"sum", "mean", "squared_norm", "dot", "log_sum_exp", "prod"};

}  // namespace

TEST_CASE("range statements: the same reduction over every layout of its inputs", "[tape][range]") {
  for (const auto& name : names) {
    INFO(name);
    const std::vector<double> g_want = expected(name, values);
    const std::size_t n = values.size();
    SECTION(name + ": consecutive variables (a range statement)") {
      etad::tape t;
      const std::vector<real> x = t.variables(values);
      const real r = reduce(name, x);
      std::vector<double> g(n);
      t.gradient(r, x, g);
      for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == Approx(g_want[i]).epsilon(1e-14));
    }
    SECTION(name + ": consecutive intermediates y_i = 2 x_i, and a later variable in between") {
      etad::tape t{etad::persistent};
      const real early = t.variable(5.0);  // not part of the range
      std::vector<real> x;
      for (const double v : values) x.push_back(t.variable(v / 2));
      std::vector<real> y;
      for (const auto& e : x) y.push_back(2.0 * e);  // consecutive statements
      const real late = t.variable(1.0);  // a variable after statements: stored, not leading
      const real r = reduce(name, y) * late;
      std::vector<double> g(n);
      t.gradient(r, x, g);
      for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == Approx(2 * g_want[i]).epsilon(1e-14));
      CHECK(t.gradient(r, early, late)[0] == 0.0);
    }
    SECTION(name + ": reversed (no range)") {
      etad::tape t;
      const std::vector<real> x = t.variables(values);
      std::vector<real> rev(x.rbegin(), x.rend());
      std::vector<double> v_rev(values.rbegin(), values.rend());
      if (name == "dot") continue;  // coefficients are not reversed with it
      const real r = reduce(name, rev);
      std::vector<double> g(n);
      t.gradient(r, x, g);
      const std::vector<double> w = expected(name, v_rev);
      for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == Approx(w[n - 1 - i]).epsilon(1e-14));
    }
    SECTION(name + ": first and last consecutive, the middle swapped (rewritten in place)") {
      etad::tape t{etad::persistent};
      const std::vector<real> x = t.variables(values);
      std::vector<real> s = x;
      std::swap(s[2], s[4]);
      std::vector<double> vs = values;
      std::swap(vs[2], vs[4]);
      const real r = reduce(name, s);
      std::vector<double> g(n);
      t.gradient(r, s, g);
      const std::vector<double> w = expected(name, vs);
      for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == Approx(w[i]).epsilon(1e-14));
      CHECK(t.partials() == n);  // one partial per input, whatever the layout
      // With respect to x, which is consecutive (gradient()'s path for a reduction over its
      // sources must not take the rewritten statement for the range it was recorded as).
      t.gradient(r, x, g);
      std::vector<double> wx = w;
      std::swap(wx[2], wx[4]);
      for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == Approx(wx[i]).epsilon(1e-14));
    }
    SECTION(name + ": first and last consecutive, a constant in the middle (recorded again)") {
      etad::tape t;
      const std::vector<real> x = t.variables(values);
      std::vector<real> s = x;
      s[3] = real(values[3]);  // the same value as a constant: x[3] is unconnected
      const real r = reduce(name, s);
      std::vector<double> g(n);
      t.gradient(r, x, g);
      for (std::size_t i = 0; i < n; ++i)
        CHECK(g[i] == Approx(i == 3 ? 0.0 : g_want[i]).epsilon(1e-14));
    }
  }
}

TEST_CASE("range statements: duplicates and constants in the range", "[tape][range]") {
  etad::tape t{etad::persistent};
  const std::vector<real> x = t.variables(std::vector<double>{1.5, -2.0, 0.5});
  // x0 twice and a constant: sum -> (2, 1, 0); prod of (x0, x0, x1, 3) -> (2 x0 x1 3, x0^2 3).
  const std::vector<real> d{x[0], x[0], x[1], real(3.0)};
  const real s = etad::sum(d);
  CHECK(s.value() == 1.5 + 1.5 - 2.0 + 3.0);
  CHECK(t.gradient(s, x[0], x[1], x[2]) == std::array{2.0, 1.0, 0.0});
  const real p = etad::prod(d);
  CHECK(t.gradient(p, x[0], x[1]) == std::array{2 * 1.5 * -2.0 * 3.0, 1.5 * 1.5 * 3.0});
  // A range of constants is a constant.
  const std::vector<real> c{real(1.0), real(2.0)};
  CHECK(etad::sum(c).is_constant());
  CHECK(etad::prod(c).is_constant());
}

TEST_CASE("range statements: memory independent of the range's length for sum", "[tape][range]") {
  etad::tape t;
  const std::vector<real> x = t.variables(std::vector<double>(1000, 0.5));
  CHECK(t.used_bytes() == 0);  // leading variables store nothing
  const real s = etad::sum(x);
  CHECK(t.statements() == 1001);
  CHECK(t.partials() == 1000);
  const std::size_t sum_bytes = t.used_bytes();
  CHECK(sum_bytes <= 64);  // a header, no index or partial per element
  const real p = etad::prod(x);
  // prod stores its 1000 partials, but no indices: 2 header slots + 1000 slots of 12 bytes.
  CHECK(t.used_bytes() - sum_bytes <= 12 * 1002 + 4);
  std::vector<double> g(1000);
  t.gradient(s + p, x, g);
  for (const double e : g) CHECK(e == Approx(1 + std::pow(0.5, 999)).epsilon(1e-14));
}

TEST_CASE("range statements: gradients with many sources", "[tape][range]") {
  etad::tape t{etad::persistent};
  std::vector<double> v(40);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * static_cast<double>(i) - 1.0;
  const std::vector<real> x = t.variables(v);
  const real q = etad::squared_norm(x);  // d/dx_i = 2 x_i
  std::vector<double> g(x.size());
  SECTION("consecutive") {
    t.gradient(q, x, g);
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(g[i] == 2 * v[i]);
  }
  SECTION("permuted, with a constant, an intermediate and a duplicate") {
    std::vector<real> s(x.rbegin(), x.rend());
    s[3] = real(7.0);  // constant: 0
    s[5] = q;          // the target itself: 1
    s[6] = s[7];       // a duplicate
    t.gradient(q, s, g);
    for (std::size_t k = 0; k < s.size(); ++k) {
      const double want = k == 3 ? 0.0 : k == 5 ? 1.0 : 2 * v[v.size() - 1 - (k == 6 ? 7 : k)];
      CHECK(g[k] == want);
    }
  }
  SECTION("a source from another tape, or from before reset(), is an error") {
    std::vector<real> s = x;
    {
      etad::tape other;  // active while it lives
      s[20] = other.variable(1.0);
    }
    CHECK_THROWS_AS(t.gradient(q, s, g), etad::error);
    std::vector<real> old = x;
    t.reset();
    const std::vector<real> y = t.variables(v);
    const real r = etad::sum(y);
    CHECK_THROWS_AS(t.gradient(r, old, g), etad::error);
    t.gradient(r, y, g);
    for (const double e : g) CHECK(e == 1.0);
  }
}

TEST_CASE("range statements: leading variables are targets and sources", "[tape][range]") {
  etad::tape t{etad::persistent};
  const real x = t.variable(2.0), y = t.variable(3.0);
  CHECK(t.gradient(x, x, y) == std::array{1.0, 0.0});  // the target is a variable
  const real z = x * y;
  const real w = t.variable(4.0);  // after a statement: stored
  const real u = z * w;
  CHECK(t.gradient(u, x, y, w, z) == std::array{12.0, 8.0, 6.0, 4.0});
  CHECK(t.gradient(w, x, w) == std::array{0.0, 1.0});
  t.reset();
  const real a = t.variable(1.0);
  CHECK(t.gradient(a, a)[0] == 1.0);
}

TEST_CASE("range statements: stop_gradients and unconnected sources", "[tape][range]") {
  etad::tape t{etad::persistent};
  const std::vector<real> x = t.variables(std::vector<double>{1.0, 2.0, 3.0});
  const real unused = t.variable(5.0);
  std::vector<real> y;
  for (const auto& e : x) y.push_back(2.0 * e);  // consecutive: sum(y) is a range statement
  const real s = etad::sum(y);
  const real targets[] = {s};
  std::vector<real> sources = x;
  sources.push_back(y[1]);
  sources.push_back(unused);
  const real stops[] = {y[1]};
  const auto g = t.gradients(targets, sources, {.stop_gradients = stops});
  // Through y[1] nothing flows to x[1]; y[1] reports its own gradient, 1; unused: none.
  REQUIRE(g.size() == 5);
  CHECK(g[0] == std::optional<double>(2.0));
  CHECK(g[1] == std::optional<double>());  // reached only through a stopped value
  CHECK(g[2] == std::optional<double>(2.0));
  CHECK(g[3] == std::optional<double>(1.0));
  CHECK_FALSE(g[4].has_value());
  const auto z = t.gradients(targets, sources, {.unconnected_gradients = etad::unconnected::zero});
  CHECK(z[1] == std::optional<double>(2.0));
  CHECK(z[4] == std::optional<double>(0.0));
}

// gradient() reads a range statement's partials directly when its sweep would visit that one
// statement only and the sources lie in its range (a reduction's gradient with respect to its
// inputs). Checked against the closed forms and, exactly, against gradients(), whose general
// sweep zeroes the adjoints, adds 1 * partial into them and copies them out.
TEST_CASE("range statements: a reduction's gradient with respect to its own inputs", "[tape][range]") {
  const auto sweep_of = [](etad::tape& t, const real& r, std::span<const real> s) {
    const real targets[] = {r};
    std::vector<double> g;
    for (const auto& e : t.gradients(targets, s, {.unconnected_gradients = etad::unconnected::zero}))
      g.push_back(*e);
    return g;
  };
  // 7 sources take the short path (at most 16), 40 the path that checks the sources' keys as it
  // reads.
  for (const std::size_t n : {std::size_t(7), std::size_t(40)}) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = values[i % values.size()] * (1 + 0.01 * double(i));
    for (const auto& name : names) {
      if (name == "dot" && n > coefficients.size()) continue;  // (7 coefficients)
      INFO(name << ", " << n << " inputs");
      etad::tape t{etad::persistent};
      const std::vector<real> x = t.variables(v);
      const real r = reduce(name, x);
      const std::vector<double> want = expected(name, v);
      std::vector<double> g(n);
      t.gradient(r, x, g);
      const std::vector<double> swept = sweep_of(t, r, x);
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(g[i] == Approx(want[i]).epsilon(1e-13));
        CHECK(g[i] == swept[i]);
      }
      // Part of the range: the same partials.
      const std::span<const real> part = std::span<const real>(x).subspan(2, n - 4);
      std::vector<double> gp(part.size());
      t.gradient(r, part, gp);
      for (std::size_t i = 0; i < gp.size(); ++i) CHECK(gp[i] == g[i + 2]);
    }
  }
  SECTION("read without a sweep: no adjoints allocated") {
    // The direct read needs no adjoint array; a sweep grows one (kept across calls, counted in
    // reserved_bytes()). So on a fresh tape reserved_bytes() tells the two paths apart.
    for (const std::size_t n : {std::size_t(7), std::size_t(40)}) {
      for (const auto& name : {"sum", "prod"}) {
        INFO(name << ", " << n << " inputs");
        etad::tape t{etad::persistent};
        const std::vector<real> x = t.variables(std::vector<double>(n, 0.5));
        const real r = reduce(name, x);
        std::vector<double> g(n);
        const std::size_t before = t.reserved_bytes();
        t.gradient(r, x, g);
        CHECK(t.reserved_bytes() == before);
        const real r2 = 2.0 * r;  // two statements to sweep
        const std::size_t recorded = t.reserved_bytes();
        t.gradient(r2, x, g);
        CHECK(t.reserved_bytes() > recorded);
      }
    }
  }
  SECTION("more than 16 sources: permuted inside the range, or reaching past it") {
    std::vector<double> v(40);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.9 + 0.005 * double(i);
    etad::tape t{etad::persistent};
    const std::vector<real> x = t.variables(v);
    const std::span<const real> head = std::span<const real>(x).first(30);
    const real p = etad::prod(head);
    const std::vector<double> want = expected("prod", std::vector<double>(v.begin(), v.begin() + 30));
    std::vector<double> g(x.size());
    t.gradient(p, x, g);  // x[30..39] are past the range: 0
    for (std::size_t i = 0; i < x.size(); ++i)
      CHECK(g[i] == (i < 30 ? Approx(want[i]).epsilon(1e-13) : Approx(0.0).margin(0)));
    std::vector<real> s(x.begin(), x.begin() + 30);
    std::swap(s[5], s[17]);  // the first source in the range, the keys not consecutive
    std::vector<double> gs(s.size());
    t.gradient(p, s, gs);
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::size_t j = i == 5 ? 17 : i == 17 ? 5 : i;
      CHECK(gs[i] == Approx(want[j]).epsilon(1e-13));
    }
  }
  SECTION("sources beyond the range, or the statement not the only one to sweep") {
    etad::tape t{etad::persistent};
    const std::vector<real> x = t.variables(values);
    const std::span<const real> tail = std::span<const real>(x).subspan(1);
    const real p = etad::prod(tail);
    std::vector<double> g(x.size());
    t.gradient(p, x, g);  // x[0] is a source outside p's range: 0
    const std::vector<double> want = expected("prod", std::vector<double>(values.begin() + 1, values.end()));
    CHECK(g[0] == 0.0);
    for (std::size_t i = 1; i < x.size(); ++i) CHECK(g[i] == Approx(want[i - 1]).epsilon(1e-14));
    const real q = 3.0 * p;  // two statements to sweep
    t.gradient(q, x, g);
    for (std::size_t i = 1; i < x.size(); ++i) CHECK(g[i] == Approx(3 * want[i - 1]).epsilon(1e-14));
  }
  SECTION("after reset(), an ordinary statement where the range statement was") {
    // The same indices again: y (index 4) is where prod was; its own partials must answer.
    etad::tape t;
    std::vector<real> x = t.variables(std::vector<double>{0.5, 2.0, -1.5});
    const real p = etad::prod(x);
    std::vector<double> g(3);
    t.gradient(p, x, g);
    CHECK(g == std::vector<double>{2.0 * -1.5, 0.5 * -1.5, 0.5 * 2.0});
    t.reset();
    x = t.variables(std::vector<double>{0.5, 2.0, -1.5});
    const real y = 3.0 * x[0] + 5.0 * x[1] - x[2];
    t.gradient(y, x, g);
    CHECK(g == std::vector<double>{3.0, 5.0, -1.0});
  }
  SECTION("signed zeros, infinities and NaN as the sweep gives them") {
    // prod's partials: products of the other elements. With -0 among them the sweep gives
    // 0 + 1 * (-0) = +0; with inf, inf; with inf and 0, NaN.
    for (const std::size_t n : {std::size_t(3), std::size_t(20)}) {
      for (const double special : {-0.0, std::numeric_limits<double>::infinity()}) {
        INFO(n << " inputs, special value " << special);
        std::vector<double> v(n, 2.0);
        v[0] = special;
        if (special != 0.0) v[1] = 0.0;  // inf * 0: NaN in the partials of the others
        etad::tape t{etad::persistent};
        const std::vector<real> x = t.variables(v);
        const real p = etad::prod(x);
        std::vector<double> g(n);
        t.gradient(p, x, g);
        const std::vector<double> swept = sweep_of(t, p, x);
        for (std::size_t i = 0; i < n; ++i) {
          CHECK(std::isnan(g[i]) == std::isnan(swept[i]));
          if (!std::isnan(g[i])) {
            CHECK(g[i] == swept[i]);
            CHECK(std::signbit(g[i]) == std::signbit(swept[i]));
          }
        }
        if (special == 0.0) {
          CHECK(g[0] == std::pow(2.0, double(n - 1)));
          for (std::size_t i = 1; i < n; ++i) CHECK((g[i] == 0.0 && !std::signbit(g[i])));
        } else {
          CHECK(g[0] == 0.0);  // the product of the others: 0 * 2 * ...
          CHECK(g[1] == std::numeric_limits<double>::infinity());
          for (std::size_t i = 2; i < n; ++i) CHECK(std::isnan(g[i]));
        }
      }
    }
  }
  SECTION("a non-persistent tape answers once; a foreign source is an error") {
    etad::tape t;
    const std::vector<real> x = t.variables(values);
    const real s = etad::sum(x);
    std::vector<double> g(x.size());
    std::vector<real> foreign = x;
    {
      etad::tape other;  // active while it lives
      foreign[3] = other.variable(1.0);
    }
    CHECK_THROWS_AS(t.gradient(s, foreign, g), etad::error);
    t.gradient(s, x, g);  // the failed call did not count
    for (const double e : g) CHECK(e == 1.0);
    CHECK_THROWS_AS(t.gradient(s, x, g), etad::error);
  }
}
