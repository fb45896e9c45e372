// tests/tape/map_reduce_test.cpp — map_sum (also with rows_times), quadratic_form and matvec:
// whole loops recorded as single statements whose partials come from compiled code, one per
// active input. Checked against closed forms (long double references for the larger ones) and
// against the same computation recorded element by element.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <utility>
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

TEST_CASE("tape map_sum: an argument reached only through stop_gradient, floor or a comparison is unconnected", "[tape][map_reduce]") {
  // As for a scalar statement (and TensorFlow's ops): such arguments get no gradient at all, so
  // the statement does not list them and unconnected::none reports no value, not 0.
  etad::tape t{etad::persistent};
  std::vector<real> x, w;
  for (const double v : {0.5, -1.5, 2.0}) x.push_back(t.variable(v));
  for (const double v : {1.0, 2.0}) w.push_back(t.variable(v));
  const real s = t.variable(1.7);   // a scale used under stop_gradient only
  const real c = t.variable(0.25);  // a threshold used only in a comparison
  const real f = t.variable(2.6);   // used only under floor
  const std::vector<double> data{3.0, 1.0, -2.0};
  const std::vector<double> X{1.0, 0.5, -1.0, 2.0, 0.25, 0.75};  // 3 rows x 2 columns
  const std::size_t p0 = t.partials();
  const real m = etad::map_sum(
      [](auto y, auto xi, auto sc, auto thr, auto fl, auto xw) {
        return etad::select(xi > thr, xi * y, -xi) * etad::stop_gradient(sc) + etad::floor(fl) +
               etad::stop_gradient(xw);
      },
      data, x, s, c, f, etad::rows_times(X, w));
  CHECK(t.partials() - p0 == x.size());  // x's elements only
  // value and d/dx_i by hand: select(x_i > c, x_i y_i, -x_i) * s + floor(f) + (X w)_i
  double v = 0;
  std::vector<double> dx(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double xi = x[i].value(), xw = X[2 * i] * 1.0 + X[2 * i + 1] * 2.0;
    v += (xi > 0.25 ? xi * data[i] : -xi) * 1.7 + 2.0 + xw;
    dx[i] = (xi > 0.25 ? data[i] : -1.0) * 1.7;
  }
  CHECK(m.value() == Approx(v).epsilon(1e-15));
  const std::vector<real> targets{m};
  const std::vector<real> sources{x[0], x[1], x[2], s, c, f, w[0], w[1]};
  const auto none = t.gradients(targets, sources);
  for (std::size_t i = 0; i < x.size(); ++i) {
    REQUIRE(none[i].has_value());
    CHECK(*none[i] == Approx(dx[i]).epsilon(1e-15));
  }
  for (std::size_t k = x.size(); k < sources.size(); ++k) {
    INFO("source " << k);
    CHECK_FALSE(none[k].has_value());
  }
  const auto zero = t.gradients(targets, sources, {.unconnected_gradients = etad::unconnected::zero});
  for (std::size_t k = x.size(); k < sources.size(); ++k) CHECK(zero[k] == 0.0);
  // No argument reached: still a value on the tape (a statement of no inputs, as a scalar
  // statement whose reals are all under stop_gradient), from which x is unconnected.
  const std::size_t statements = t.statements(), p1 = t.partials();
  const real k = etad::map_sum([](auto a, auto b) { return etad::stop_gradient(a) * b; }, x, 2.0);
  CHECK_FALSE(k.is_constant());
  CHECK(t.statements() == statements + 1);
  CHECK(t.partials() == p1);
  CHECK(k.value() == Approx(2.0 * (0.5 - 1.5 + 2.0)).epsilon(1e-15));
  const std::vector<real> from_k{k};
  for (const auto& g : t.gradients(from_k, x)) CHECK_FALSE(g.has_value());
  CHECK(t.gradient(k, k)[0] == 1.0);
  // The same written as scalar statements behaves alike.
  const real k2 = etad::stop_gradient(x[0]) * 2.0;
  CHECK_FALSE(k2.is_constant());
  // An argument that is not an input is still checked: a real of another tape is an error, and
  // the tape stays as it was.
  real foreign;
  {
    etad::tape other;
    foreign = other.variable(3.0);
  }
  const std::size_t before = t.statements();
  CHECK_THROWS_AS(etad::map_sum([](auto a, auto b) { return etad::stop_gradient(b) * a; }, x, foreign),
                  etad::error);
  CHECK(t.statements() == before);
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
  // n = 0: an m x 0 matrix (no entries) times an empty x is m zeros, constants, as the vector
  // form's empty result and quadratic_form's 0 for an empty x.
  const std::vector<real> none;
  const std::vector<double> no_entries;
  std::array<real, 2> zeros{t.variable(7.0), t.variable(8.0)};
  etad::matvec(no_entries, none, zeros);
  CHECK(zeros[0].value() == 0.0);
  CHECK(zeros[1].value() == 0.0);
  CHECK(zeros[0].is_constant());
  CHECK(etad::matvec(no_entries, none).empty());
}

TEST_CASE("tape matvec: out may overlap x (x = A x in place)", "[tape][map_reduce]") {
  etad::tape t{etad::persistent};
  const std::vector<real> x0 = t.variables(std::vector<double>{1.0, 2.0, -1.0});
  const std::array<double, 9> a{1.0, 2.0, 0.5, 3.0, 4.0, -2.0, 0.0, 1.5, 1.0};  // 3 x 3
  // In place: every row's statement must see x as it was, not rows already written.
  std::vector<real> x = x0;
  etad::matvec(a, x, std::span<real>(x));
  CHECK(x[0].value() == 4.5);   // 1 + 4 - 0.5
  CHECK(x[1].value() == 13.0);  // 3 + 8 + 2
  CHECK(x[2].value() == 2.0);   // 0 + 3 - 1
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("row " << i);
    CHECK(t.gradient(x[i], x0[0], x0[1], x0[2]) == std::array{a[3 * i], a[3 * i + 1], a[3 * i + 2]});
  }
  // Overlapping by part: y = (x1, x2) of a buffer (x0, x1, x2), out = its first two reals.
  std::vector<real> buf = x0;
  const std::array<double, 4> b{1.0, -1.0, 2.0, 0.5};  // 2 x 2, applied to (x1, x2) = (2, -1)
  etad::matvec(b, std::span<const real>(buf.data() + 1, 2), std::span<real>(buf.data(), 2));
  CHECK(buf[0].value() == 3.0);  // 2 + 1
  CHECK(buf[1].value() == 3.5);  // 4 - 0.5
  CHECK(t.gradient(buf[0], x0[0], x0[1], x0[2]) == std::array{0.0, 1.0, -1.0});
  CHECK(t.gradient(buf[1], x0[0], x0[1], x0[2]) == std::array{0.0, 2.0, 0.5});
  CHECK(buf[2].index() == x0[2].index());  // not an output: untouched
}

TEST_CASE("tape map_sum with rows_times: a regression likelihood as one statement", "[tape][map_reduce]") {
  // f(w, b) = sum_i (y_i - x_i . w - b)^2 over 4 rows of 3 features:
  // df/dw = -2 X^T r, df/db = -2 sum r, with r_i = y_i - x_i . w - b.
  const std::vector<double> xs{1.0, 0.5, -1.0,   //
                               2.0, -1.5, 0.25,  //
                               -0.5, 1.0, 3.0,   //
                               0.0, 2.0, -2.0};
  const std::vector<double> ys{1.5, -0.5, 2.0, 0.75};
  const std::vector<double> wv{0.3, -0.2, 0.6};
  const double bv = 0.1;
  std::vector<double> r(4), dw(3, 0.0);
  double value = 0, db = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    r[i] = ys[i] - bv;
    for (std::size_t j = 0; j < 3; ++j) r[i] -= xs[3 * i + j] * wv[j];
    value += r[i] * r[i];
    db += -2 * r[i];
    for (std::size_t j = 0; j < 3; ++j) dw[j] += -2 * r[i] * xs[3 * i + j];
  }
  const auto f = [](auto y, auto m, auto b) {
    const auto e = y - m - b;
    return e * e;
  };
  etad::tape t{etad::persistent};
  const std::vector<real> w = t.variables(wv);
  const real b = t.variable(bv);
  SECTION("consecutive w: one statement, one partial per element of w and one for b") {
    const std::size_t s0 = t.statements(), p0 = t.partials();
    const real ss = etad::map_sum(f, ys, etad::rows_times(xs, w), b);
    CHECK(t.statements() - s0 == 1);
    CHECK(t.partials() - p0 == 4);
    CHECK(ss.value() == Approx(value).epsilon(1e-14));
    const auto g = t.gradient(ss, w[0], w[1], w[2], b);
    for (std::size_t j = 0; j < 3; ++j) CHECK(g[j] == Approx(dw[j]).epsilon(1e-14));
    CHECK(g[3] == Approx(db).epsilon(1e-14));
  }
  SECTION("w not consecutive (a permuted copy): the same gradient") {
    const std::vector<real> wp{w[0], w[1], w[2]};
    const std::array<real, 3> shuffled{w[2], w[0], w[1]};
    std::vector<double> xp(12);  // columns permuted the same way
    for (std::size_t i = 0; i < 4; ++i) {
      xp[3 * i] = xs[3 * i + 2];
      xp[3 * i + 1] = xs[3 * i];
      xp[3 * i + 2] = xs[3 * i + 1];
    }
    const real ss = etad::map_sum(f, ys, etad::rows_times(xp, shuffled), b);
    CHECK(ss.value() == Approx(value).epsilon(1e-14));
    const auto g = t.gradient(ss, wp[0], wp[1], wp[2], b);
    for (std::size_t j = 0; j < 3; ++j) CHECK(g[j] == Approx(dw[j]).epsilon(1e-14));
    CHECK(g[3] == Approx(db).epsilon(1e-14));
  }
  SECTION("agrees with recording element by element") {
    const real ss = etad::map_sum(f, ys, etad::rows_times(xs, w), b);
    real e = 0.0;
    for (std::size_t i = 0; i < 4; ++i)
      e = e + f(ys[i], etad::dot(w, std::span<const double>(xs).subspan(3 * i, 3)), b);
    const auto g1 = t.gradient(ss, w[0], w[1], w[2], b);
    const auto g2 = t.gradient(e, w[0], w[1], w[2], b);
    for (std::size_t j = 0; j < 4; ++j) CHECK(g1[j] == Approx(g2[j]).epsilon(1e-14));
  }
  SECTION("misuse is an etad::error") {
    const std::vector<double> five(5, 1.0);
    CHECK_THROWS_AS(etad::rows_times(five, w), etad::error);  // 5 entries, 3 columns
    CHECK_THROWS_WITH(etad::rows_times(five, w), Catch::Contains("row-major"));
    const std::vector<real> none;
    CHECK_THROWS_AS(etad::rows_times(xs, none), etad::error);
    const std::vector<double> three_ys{1.0, 2.0, 3.0};  // 3 values for 4 rows
    CHECK_THROWS_AS(etad::map_sum(f, three_ys, etad::rows_times(xs, w), b), etad::error);
  }
  SECTION("constants only: a number, nothing recorded") {
    const std::vector<real> wc{real(0.3), real(-0.2), real(0.6)};
    const std::size_t s0 = t.statements();
    const real ss = etad::map_sum(f, ys, etad::rows_times(xs, wc), 0.1);
    CHECK(ss.is_constant());
    CHECK(ss.value() == Approx(value).epsilon(1e-14));
    CHECK(t.statements() == s0);
  }
}

namespace {

/// x^T A x and (A + A^T) x in long double, from the matrix's entries as doubles.
template <class N>
std::pair<long double, std::vector<long double>> quadratic_reference(const std::vector<N>& a,
                                                                    const std::vector<double>& x) {
  const std::size_t n = x.size();
  long double value = 0;
  std::vector<long double> g(n, 0.0L);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const long double aij = static_cast<long double>(a[i * n + j]);
      value += static_cast<long double>(x[i]) * aij * static_cast<long double>(x[j]);
      g[i] += aij * static_cast<long double>(x[j]);
      g[j] += aij * static_cast<long double>(x[i]);
    }
  return {value, g};
}

}  // namespace

TEST_CASE("tape quadratic_form: n = 1, 3, 17, 64 against long double, (A + A^T) x",
          "[tape][map_reduce]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-5, 5);
  for (const std::size_t n : {1, 3, 17, 64}) {
    INFO("n = " << n);
    std::vector<double> a(n * n), xv(n);
    for (double& e : a) e = entry(rng);  // not symmetric
    for (double& e : xv) e = entry(rng);
    std::vector<int> ai(n * n);
    for (int& e : ai) e = small(rng);
    etad::tape t{etad::persistent};
    const std::vector<real> x = t.variables(xv);
    // Tolerance: the sums have n^2 terms of size <= 1, rounded in double.
    const long double tol = 1e-15L * static_cast<long double>(n * n);
    SECTION("n = " + std::to_string(n) + ": " + "a double matrix, x consecutive") {
      const std::size_t s0 = t.statements(), p0 = t.partials();
      const real q = etad::quadratic_form(a, x);
      CHECK(t.statements() - s0 == 1);
      CHECK(t.partials() - p0 == n);
      const auto [value, g_want] = quadratic_reference(a, xv);
      CHECK(std::fabs(q.value() - value) <= tol);
      std::vector<double> g(n);
      t.gradient(q, x, g);
      for (std::size_t i = 0; i < n; ++i) CHECK(std::fabs(g[i] - g_want[i]) <= tol);
    }
    SECTION("n = " + std::to_string(n) + ": " + "an integer matrix: small integers and halves, exact") {
      std::vector<double> hv(n);
      for (std::size_t i = 0; i < n; ++i) hv[i] = 0.5 * small(rng);
      const std::vector<real> h = t.variables(hv);
      const real q = etad::quadratic_form(ai, h);
      const auto [value, g_want] = quadratic_reference(ai, hv);
      CHECK(q.value() == static_cast<double>(value));
      std::vector<double> g(n);
      t.gradient(q, h, g);
      for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == static_cast<double>(g_want[i]));
    }
    SECTION("n = " + std::to_string(n) + ": " + "x not consecutive (reversed), with a constant in it") {
      std::vector<real> s(x.rbegin(), x.rend());
      std::vector<double> sv(xv.rbegin(), xv.rend());
      s[n / 2] = real(0.75);  // a constant: no partial
      sv[n / 2] = 0.75;
      const std::size_t p0 = t.partials();
      const real q = etad::quadratic_form(a, s);
      CHECK(t.partials() - p0 == n - 1);
      const auto [value, g_want] = quadratic_reference(a, sv);
      CHECK(std::fabs(q.value() - value) <= tol);
      std::vector<double> g(n);
      t.gradient(q, x, g);  // x[i] is s[n - 1 - i]
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = n - 1 - i;
        CHECK(std::fabs(g[i] - (k == n / 2 ? 0.0L : g_want[k])) <= tol);
      }
    }
  }
}

TEST_CASE("tape quadratic_form: an empty x is the constant 0", "[tape][map_reduce]") {
  etad::tape t;
  const std::vector<real> none;
  const std::vector<double> no_entries;
  const std::size_t statements = t.statements();
  const real q = etad::quadratic_form(no_entries, none);
  CHECK(q.value() == 0.0);
  CHECK(q.is_constant());
  CHECK(t.statements() == statements);
}

TEST_CASE("tape matvec: a float matrix times scattered reals", "[tape][map_reduce]") {
  // 3 x 4 floats (exact in double); x permuted, with a constant. Row i's gradient is A_i where
  // the element is a variable (summed where one variable appears twice), 0 elsewhere.
  const std::vector<float> a{1.5f, -2.0f, 0.25f, 3.0f,  //
                             0.0f, 1.0f, -0.5f, 2.0f,   //
                             4.0f, 0.125f, 1.0f, -1.0f};
  etad::tape t{etad::persistent};
  const std::vector<real> v = t.variables(std::vector<double>{0.5, -1.0, 2.0});
  const std::vector<real> x{v[2], v[0], real(3.0), v[0]};  // 2, 0.5, 3, 0.5
  const std::vector<double> xv{2.0, 0.5, 3.0, 0.5};
  const std::size_t s0 = t.statements(), p0 = t.partials();
  const std::vector<real> y = etad::matvec(a, x);
  REQUIRE(y.size() == 3);
  CHECK(t.statements() - s0 == 3);
  CHECK(t.partials() - p0 == 3 * 3);  // the constant takes no partial
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("row " << i);
    double want = 0;  // exact: floats times small binary fractions
    for (std::size_t j = 0; j < 4; ++j) want += static_cast<double>(a[4 * i + j]) * xv[j];
    CHECK(y[i].value() == want);
    const double d0 = static_cast<double>(a[4 * i + 1]) + static_cast<double>(a[4 * i + 3]);
    const double d2 = static_cast<double>(a[4 * i]);
    CHECK(t.gradient(y[i], v[0], v[1], v[2]) == std::array{d0, 0.0, d2});
  }
}

TEST_CASE("tape matvec: the vector form infers the rows, the out form checks the shape",
          "[tape][map_reduce]") {
  etad::tape t;
  const std::vector<real> x = t.variables(std::vector<double>{1.0, 2.0});
  // 12 entries and 2 reals: read as 6 x 2 (a 4 x 3 matrix has as many entries).
  const std::vector<double> a12(12, 1.0);
  CHECK(etad::matvec(a12, x).size() == 6);
  // An entry count that is not a multiple of n is an error, and so is a shape that does not
  // match the outputs.
  const std::vector<real> five = t.variables(std::vector<double>(5, 1.0));
  CHECK_THROWS_AS(etad::matvec(a12, five), etad::error);
  CHECK_THROWS_WITH(etad::matvec(a12, five),
                    Catch::Contains("matvec needs an m x n matrix for n = 5 values, but the matrix "
                                    "has 12 entries"));
  std::array<real, 4> four_rows;
  CHECK_THROWS_AS(etad::matvec(a12, x, std::span<real>(four_rows)), etad::error);
}

TEST_CASE("tape map_sum: spans, constant and integer scalars, a range twice, std::array",
          "[tape][map_reduce]") {
  etad::tape t{etad::persistent};
  const std::vector<double> xv{0.5, -1.0, 2.0, 1.5};
  const std::vector<real> x = t.variables(xv);
  const real s = t.variable(0.25);
  SECTION("std::span arguments, of reals and of numbers") {
    const std::vector<double> d{1.0, 2.0, 3.0, 4.0};
    // sum d_i x_i s: d/dx_i = d_i s, d/ds = sum d_i x_i.
    const real m = etad::map_sum([](auto a, auto b, auto c) { return a * b * c; },
                                 std::span<const double>(d), std::span<const real>(x), s);
    double dx = 0;
    for (std::size_t i = 0; i < 4; ++i) dx += d[i] * xv[i];
    CHECK(m.value() == Approx(dx * 0.25).epsilon(1e-15));
    CHECK(t.gradient(m, x[0], x[3], s) == std::array{0.25, 1.0, dx});
    // A subspan: the middle two.
    const real sub = etad::map_sum([](auto a) { return a * a; }, std::span<const real>(x).subspan(1, 2));
    CHECK(sub.value() == 5.0);
    CHECK(t.gradient(sub, x[0], x[1], x[2], x[3]) == std::array{0.0, -2.0, 4.0, 0.0});
  }
  SECTION("a constant real and an int as scalars") {
    const real c(3.0);
    const std::size_t p0 = t.partials();
    // sum (x_i c + k)^2 with k = 2: d/dx_i = 2 c (x_i c + k).
    const real m = etad::map_sum([](auto a, auto b, auto k) { return etad::pow(a * b + k, 2); }, x, c, 2);
    CHECK(t.partials() - p0 == 4);  // x's, none for the constant c
    std::vector<double> g(4);
    t.gradient(m, x, g);
    double value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      value += (3 * xv[i] + 2) * (3 * xv[i] + 2);
      CHECK(g[i] == Approx(6 * (3 * xv[i] + 2)).epsilon(1e-15));
    }
    CHECK(m.value() == Approx(value).epsilon(1e-15));
    // Only constants left: a number, nothing recorded.
    const std::vector<real> constants{real(1.0), real(2.0)};
    const std::size_t statements = t.statements();
    const real k = etad::map_sum([](auto a, auto b) { return a * b; }, constants, c);
    CHECK(k.is_constant());
    CHECK(k.value() == 9.0);
    CHECK(t.statements() == statements);
  }
  SECTION("the same range twice: one partial per element of each") {
    const std::size_t p0 = t.partials();
    const real m = etad::map_sum([](auto a, auto b) { return a * b; }, x, x);
    CHECK(t.partials() - p0 == 8);
    CHECK(m.value() == 0.25 + 1.0 + 4.0 + 2.25);
    std::vector<double> g(4);
    t.gradient(m, x, g);
    CHECK(g == std::vector<double>{1.0, -2.0, 4.0, 3.0});
  }
  SECTION("constants in a range of reals take no partials") {
    // 100 reals, one of them active, and a constant real scalar: one partial.
    std::vector<real> many(100, real(1.0));
    many[41] = x[2];
    const std::size_t p0 = t.partials();
    const real m = etad::map_sum([](auto a, auto b) { return a * b; }, many, real(2.0));
    CHECK(t.partials() - p0 == 1);
    CHECK(m.value() == 2.0 * (99 + 2.0));
    CHECK(t.gradient(m, x[2])[0] == 2.0);
    // The same through rows_times: a constant in w takes no partial either.
    const std::vector<real> w{x[0], real(4.0)};
    const std::vector<double> rows{1.0, 2.0, 3.0, -1.0};  // 2 x 2
    const std::size_t p1 = t.partials();
    const real r = etad::map_sum([](auto e) { return e * e; }, etad::rows_times(rows, w));
    CHECK(t.partials() - p1 == 1);
    // rows: 0.5 + 8 = 8.5, 1.5 - 4 = -2.5; d/dx0 = 2 (8.5 * 1 + -2.5 * 3).
    CHECK(r.value() == 8.5 * 8.5 + 2.5 * 2.5);
    CHECK(t.gradient(r, x[0])[0] == 2 * (8.5 - 7.5));
  }
  SECTION("std::array of reals") {
    const std::array<real, 3> a{x[3], x[1], s};  // 1.5, -1, 0.25
    const real m = etad::map_sum([](auto e) { return etad::exp(e); }, a);
    CHECK(m.value() == Approx(std::exp(1.5) + std::exp(-1.0) + std::exp(0.25)).epsilon(1e-15));
    const auto g = t.gradient(m, x[1], x[3], s);
    CHECK(g[0] == Approx(std::exp(-1.0)).epsilon(1e-15));
    CHECK(g[1] == Approx(std::exp(1.5)).epsilon(1e-15));
    CHECK(g[2] == Approx(std::exp(0.25)).epsilon(1e-15));
  }
}

TEST_CASE("tape map_sum: scalars take as many partials at N = 1000 as at N = 10", "[tape][map_reduce]") {
  // sum_i (y_i - mu)^2 s over N data: 2 partials (mu, s) whatever N.
  // d/dmu = -2 s sum (y_i - mu), d/ds = sum (y_i - mu)^2.
  for (const std::size_t n : {std::size_t(10), std::size_t(1000)}) {
    INFO("N = " << n);
    std::vector<double> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = 0.01 * static_cast<double>(i % 37) - 0.1;
    etad::tape t;
    const real mu = t.variable(0.2), s = t.variable(1.5);
    const std::size_t p0 = t.partials();
    const real m = etad::map_sum([](auto e, auto a, auto b) { return (e - a) * (e - a) * b; }, y, mu, s);
    CHECK(t.partials() - p0 == 2);
    long double d1 = 0, d2 = 0;
    for (const double e : y) {
      d1 += static_cast<long double>(e) - 0.2L;
      d2 += (static_cast<long double>(e) - 0.2L) * (static_cast<long double>(e) - 0.2L);
    }
    CHECK(m.value() == Approx(static_cast<double>(1.5L * d2)).epsilon(1e-13));
    const auto g = t.gradient(m, mu, s);
    CHECK(g[0] == Approx(static_cast<double>(-3.0L * d1)).epsilon(1e-12));
    CHECK(g[1] == Approx(static_cast<double>(d2)).epsilon(1e-13));
  }
}
