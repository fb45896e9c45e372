// tests/tape/map_reduce_test.cpp — map_sum, quadratic_form and matvec: whole loops recorded as
// single statements whose partials come from compiled code. Checked against closed forms and
// against the same computation recorded element by element.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace {
using real = etad::real<double>;
}  // namespace

TEST_CASE("tape map_sum: the normal log-density's core is one statement with two partials", "[tape][map_reduce]") {
  // sum_i ((y_i - mu) / s)^2: d/dmu = -2 sum (y_i - mu) / s^2, d/ds = -2 sum (y_i - mu)^2 / s^3.
  const std::vector<double> data{1.0, 2.5, -0.5, 3.0, 0.25};
  const double muv = 0.7, sv = 1.3;
  etad::tape t;
  const real mu = t.variable(muv);
  const real s = t.variable(sv);
  const std::size_t s0 = t.statements(), p0 = t.partials();
  const real nll = etad::map_sum([](auto y, auto m, auto sd) { return etad::pow((y - m) / sd, 2); }, data, mu, s);
  CHECK(t.statements() - s0 == 1);
  CHECK(t.partials() - p0 == 2);
  double v = 0, dmu = 0, ds = 0;
  for (const double y : data) {
    v += (y - muv) * (y - muv) / (sv * sv);
    dmu += -2 * (y - muv) / (sv * sv);
    ds += -2 * (y - muv) * (y - muv) / (sv * sv * sv);
  }
  CHECK(nll.value() == Approx(v).epsilon(1e-14));
  const auto g = t.gradient(nll, mu, s);
  CHECK(g[0] == Approx(dmu).epsilon(1e-14));
  CHECK(g[1] == Approx(ds).epsilon(1e-14));
}

TEST_CASE("tape map_sum: ranges of reals and scalars agree with element-wise recording", "[tape][map_reduce]") {
  // f(a, b, c, k) = sin(a b) c + a k over a (reals), b (reals), c (a scalar real), k (numbers).
  const auto f = [](auto a, auto b, auto c, auto k) { return etad::sin(a * b) * c + a * k; };
  const std::vector<double> av{0.1, -0.4, 0.9, 1.3}, bv{2.0, 0.5, -1.0, 0.3}, kv{1.0, 2.0, 3.0, 4.0};
  etad::tape t{etad::persistent};
  std::vector<real> a, b;
  for (std::size_t i = 0; i < av.size(); ++i) {
    a.push_back(t.variable(av[i]));
    b.push_back(t.variable(bv[i]));
  }
  const real c = t.variable(0.8);
  const std::size_t p0 = t.partials();
  const real m = etad::map_sum(f, a, b, c, kv);
  CHECK(t.partials() - p0 == 2 * av.size() + 1);  // one per element of each real range, one for c
  real e = 0.0;
  for (std::size_t i = 0; i < av.size(); ++i) e = e + f(a[i], b[i], c, kv[i]);
  CHECK(m.value() == Approx(e.value()).epsilon(1e-15));
  std::vector<real> sources(a);
  sources.insert(sources.end(), b.begin(), b.end());
  sources.push_back(c);
  std::vector<double> gm(sources.size()), ge(sources.size());
  t.gradient(m, sources, gm);
  t.gradient(e, sources, ge);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    INFO("source " << i);
    CHECK(gm[i] == Approx(ge[i]).epsilon(1e-14));
  }
  // And against the closed form for c: sum sin(a_i b_i).
  double dc = 0;
  for (std::size_t i = 0; i < av.size(); ++i) dc += std::sin(av[i] * bv[i]);
  CHECK(gm.back() == Approx(dc).epsilon(1e-14));
}

TEST_CASE("tape map_sum: gated functions, constants and empty ranges", "[tape][map_reduce]") {
  etad::tape t{etad::persistent};
  std::vector<real> x;
  for (const double v : {-1.0, 2.0, 0.0, 3.5}) x.push_back(t.variable(v));
  // relu: gradient 1 where x > 0, else 0 (also at 0, where select takes the second branch).
  const real r = etad::map_sum([](auto v) { return etad::select(v > 0, v, 0.0); }, x);
  CHECK(r.value() == 5.5);
  std::vector<double> g(x.size());
  t.gradient(r, x, g);
  CHECK(g == std::vector<double>{0.0, 1.0, 0.0, 1.0});
  // Numbers only: a constant, nothing recorded.
  const std::size_t statements = t.statements();
  const real k = etad::map_sum([](auto a, auto b) { return a * b; }, std::vector<double>{1, 2, 3}, 2.0);
  CHECK(k.is_constant());
  CHECK(k.value() == 12.0);
  CHECK(t.statements() == statements);
  // Empty ranges: zero.
  const std::vector<real> none;
  CHECK(etad::map_sum([](auto a) { return etad::exp(a); }, none).value() == 0.0);
}

TEST_CASE("tape quadratic_form: x^T A x with gradient (A + A^T) x", "[tape][map_reduce]") {
  etad::tape t;
  const std::array<real, 2> x{t.variable(1.0), t.variable(-2.0)};
  const std::array<double, 4> a{2.0, 1.0, 0.0, 3.0};  // [[2, 1], [0, 3]], not symmetric
  const std::size_t s0 = t.statements(), p0 = t.partials();
  const real q = etad::quadratic_form(a, x);
  CHECK(t.statements() - s0 == 1);
  CHECK(t.partials() - p0 == 2);
  CHECK(q.value() == 2.0 - 2.0 + 0.0 + 12.0);
  // (A + A^T) x = [[4, 1], [1, 6]] (1, -2) = (2, -11).
  CHECK(t.gradient(q, x[0], x[1]) == std::array{2.0, -11.0});
}

TEST_CASE("tape matvec: one statement per row, the row as partials", "[tape][map_reduce]") {
  etad::tape t{etad::persistent};
  const std::vector<real> x{t.variable(1.0), t.variable(2.0)};
  const std::array<double, 6> a{1.0, 2.0, -1.0, 0.5, 3.0, 0.0};  // 3 x 2
  const std::size_t s0 = t.statements(), p0 = t.partials();
  const std::vector<real> y = etad::matvec(a, x);
  REQUIRE(y.size() == 3);
  CHECK(t.statements() - s0 == 3);
  CHECK(t.partials() - p0 == 6);
  CHECK(y[0].value() == 5.0);
  CHECK(y[1].value() == 0.0);
  CHECK(y[2].value() == 3.0);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("row " << i);
    CHECK(t.gradient(y[i], x[0], x[1]) == std::array{a[2 * i], a[2 * i + 1]});
  }
  // The span form writes into given reals; it needs one output per row.
  std::array<real, 3> out;
  etad::matvec(a, x, out);
  CHECK(out[2].value() == 3.0);
  CHECK(t.gradient(out[1], x[0], x[1]) == std::array{-1.0, 0.5});
  std::array<real, 2> short_out;
  CHECK_THROWS_AS(etad::matvec(a, x, short_out), etad::error);
  // Composed: d/dx sum(A x) = the column sums of A.
  const real s = etad::sum(y);
  CHECK(t.gradient(s, x[0], x[1]) == std::array{3.0, 2.5});  // 1 - 1 + 3, 2 + 0.5 + 0
}
