// tests/tape/map_reduce_test.cpp — map_sum (also with rows_times), quadratic_form and matvec:
// whole loops recorded as single statements whose partials come from compiled code. Checked
// against closed forms and against the same computation recorded element by element.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
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
