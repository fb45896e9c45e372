// tests/tape/variable_block_test.cpp — etad::variable_block (basic_tape::variable_block): n
// variables made at once, their values kept by the tape. What a block is (consecutive indices,
// values copied, valid until reset), every function that takes one (the reductions, quadratic_form,
// matvec, map_sum, gradient, gradients) against closed forms (sum -> ones, mean -> 1/n,
// squared_norm -> 2x, prod -> products of the others, log_sum_exp -> softmax from std::exp,
// dot -> the other factor, x^T A x -> (A + A^T) x), and the errors: a block of another tape or
// from before reset(), a gradient with the wrong number of slots, no tape.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace {

using real = etad::real<double>;

std::vector<double> seeded(std::size_t n, unsigned seed, double lo, double hi) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& e : v) e = u(gen);
  return v;
}

// Relative closeness with a floor of 1 on the scale (partials near 0 compared absolutely).
bool close(double a, double b, double tol = 1e-12) {
  return std::abs(a - b) <= tol * std::max({1.0, std::abs(a), std::abs(b)});
}

}  // namespace

TEST_CASE("variable_block: consecutive variables whose values the tape keeps", "[tape][block]") {
  etad::tape t;
  const real before = t.variable(7.0);
  std::vector<double> xs{0.5, -1.5, 2.25};
  const etad::variable_block<double> b = t.variable_block(xs);
  xs[0] = 100.0;  // the block holds a copy
  REQUIRE(b.size() == 3);
  CHECK_FALSE(b.empty());
  CHECK(b.values()[0] == 0.5);
  CHECK(b.values()[2] == 2.25);
  CHECK(b.first_index() == before.index() + 1);
  CHECK(b.epoch() == t.epoch());
  CHECK(t.statements() == 4);  // the variable and three in the block, no partials
  CHECK(t.partials() == 0);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(b[k].index() == b.first_index() + k);
    CHECK(b[k].epoch() == t.epoch());
  }
  CHECK(b[1].value() == -1.5);
  const std::vector<real> r = b.reals();
  REQUIRE(r.size() == 3);
  CHECK(r[2].value() == 2.25);
  CHECK(r[2].index() == b[2].index());
  // Its variables are ordinary reals of the tape: any expression takes them.
  const real z = b[0] * b[1] + etad::sin(b[2]) * before;
  const auto g = t.gradient(z, b);
  CHECK(g == std::vector<double>{-1.5, 0.5, 7.0 * std::cos(2.25)});
  // An empty block: on no tape.
  const etad::variable_block<double> e = t.variable_block(std::span<const double>{});
  CHECK(e.empty());
  CHECK(e.first_index() == 0);
  CHECK(etad::variable_block<double>{}.size() == 0);
}

TEST_CASE("variable_block: the reductions against their closed forms", "[tape][block]") {
  for (const std::size_t n : {1u, 3u, 10u, 16u, 17u, 100u, 1000u}) {
    CAPTURE(n);
    const std::vector<double> x = seeded(n, 11 + n, 0.6, 1.4);  // no zeros: prod's closed form divides
    const std::vector<double> a = seeded(n, 99 + n, -2.0, 2.0);
    double sum = 0, sq = 0, dot = 0, prod = 1, mx = x[0];
    for (std::size_t i = 0; i < n; ++i) {
      sum += x[i];
      sq += x[i] * x[i];
      dot += a[i] * x[i];
      prod *= x[i];
      mx = std::max(mx, x[i]);
    }
    double es = 0;
    for (double v : x) es += std::exp(v - mx);
    const double lse = mx + std::log(es);
    etad::tape t{etad::persistent};
    const auto b = t.variable_block(x);
    const real rs = etad::sum(b), rm = etad::mean(b), rq = etad::squared_norm(b);
    const real rd = etad::dot(b, a), rd2 = etad::dot(a, b), rp = etad::prod(b);
    const real rl = etad::log_sum_exp(b);
    CHECK(close(rs.value(), sum));
    CHECK(close(rm.value(), sum / double(n)));
    CHECK(close(rq.value(), sq));
    CHECK(close(rd.value(), dot));
    CHECK(close(rd2.value(), dot));
    CHECK(close(rp.value(), prod));
    CHECK(close(rl.value(), lse));
    const auto gs = t.gradient(rs, b), gm = t.gradient(rm, b), gq = t.gradient(rq, b);
    const auto gd = t.gradient(rd, b), gd2 = t.gradient(rd2, b), gp = t.gradient(rp, b);
    const auto gl = t.gradient(rl, b);
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) {
      ok = ok && gs[i] == 1.0 && close(gm[i], 1.0 / double(n)) && gq[i] == 2 * x[i] &&
           gd[i] == a[i] && gd2[i] == a[i] && close(gp[i], prod / x[i], 1e-12) &&
           close(gl[i], std::exp(x[i] - lse), 1e-13);
    }
    CHECK(ok);
    // One statement each, over the block's range: n partials each (partials() counts sum's and
    // mean's too, although they store one).
    CHECK(t.statements() == n + 7);
    CHECK(t.partials() == 7 * n);
  }
}

TEST_CASE("variable_block: the same as the functions of its reals", "[tape][block]") {
  // Every function over a block and over its reals, from one tape: the values and the gradients
  // agree bit for bit (the same loops over the same values), at a size where log_sum_exp takes
  // its short path for blocks (10) and one where it does not (37).
  for (const std::size_t n : {10u, 37u}) {
    CAPTURE(n);
    const std::vector<double> x = seeded(n, 5 + n, -3.0, 3.0);
    const std::vector<double> a = seeded(n, 6 + n, -1.0, 1.0);
    const std::vector<double> A = seeded(n * n, 7 + n, -1.0, 1.0);
    etad::tape t{etad::persistent};
    const auto b = t.variable_block(x);
    const std::vector<real> r = b.reals();
    const auto over = [&](const auto& v) {
      return std::vector<real>{etad::sum(v),        etad::mean(v),
                               etad::squared_norm(v), etad::prod(v),
                               etad::log_sum_exp(v),  etad::dot(v, a),
                               etad::quadratic_form(A, v), etad::matvec(A, v)[n / 2],
                               etad::map_sum([](auto e, auto c) { return sin(e) * c; }, v, a)};
    };
    const std::vector<real> targets_b = over(b), targets_r = over(r);
    for (std::size_t k = 0; k < targets_b.size(); ++k) {
      CAPTURE(k);
      CHECK(targets_b[k].value() == targets_r[k].value());
      std::vector<double> gb(n), gr(n);
      t.gradient(targets_b[k], b, gb);
      t.gradient(targets_r[k], r, gr);
      CHECK(gb == gr);
    }
    // gradients() with a block as the sources, options included.
    const std::vector<double> seeds(targets_b.size(), 0.5);
    const auto via_block = t.gradients(
        targets_b, b, {.output_gradients = seeds, .unconnected_gradients = etad::unconnected::zero});
    const auto via_reals = t.gradients(
        targets_r, r, {.output_gradients = seeds, .unconnected_gradients = etad::unconnected::zero});
    REQUIRE(via_block.size() == n);
    CHECK(via_block == via_reals);
  }
}

TEST_CASE("variable_block: log_sum_exp's special values, as for a range of reals", "[tape][block]") {
  const double inf = std::numeric_limits<double>::infinity();
  etad::tape t{etad::persistent};
  // Far from 0 (a naive exp overflows): softmax of (1000, 1000) is (1/2, 1/2).
  const auto big = t.variable_block(std::vector<double>{1000.0, 1000.0});
  const real l = etad::log_sum_exp(big);
  CHECK(close(l.value(), 1000.0 + std::log(2.0)));
  CHECK(t.gradient(l, big) == std::vector<double>{0.5, 0.5});
  // A -inf element gets weight 0.
  const auto with_minus_inf = t.variable_block(std::vector<double>{0.0, -inf});
  const real m = etad::log_sum_exp(with_minus_inf);
  CHECK(m.value() == 0.0);
  CHECK(t.gradient(m, with_minus_inf) == std::vector<double>{1.0, 0.0});
  // +inf: the value is +inf.
  const auto with_inf = t.variable_block(std::vector<double>{0.0, inf});
  CHECK(etad::log_sum_exp(with_inf).value() == inf);
  // Empty: -inf, a constant.
  const real e = etad::log_sum_exp(etad::variable_block<double>{});
  CHECK(e.value() == -inf);
  CHECK(e.is_constant());
  CHECK(etad::sum(etad::variable_block<double>{}).value() == 0.0);
  CHECK(etad::prod(etad::variable_block<double>{}).value() == 1.0);
}

TEST_CASE("variable_block: float and long double", "[tape][block]") {
  {
    etad::basic_tape<float> t;
    const auto b = t.variable_block(std::vector<float>{1.0f, 2.0f, 3.0f});
    const etad::real<float> l = etad::log_sum_exp(b);
    const auto g = t.gradient(l, b);
    const float s = std::exp(1.0f) + std::exp(2.0f) + std::exp(3.0f);
    CHECK(std::abs(l.value() - std::log(s)) < 1e-6f);
    for (int i = 0; i < 3; ++i) CHECK(std::abs(g[i] - std::exp(float(i + 1)) / s) < 1e-6f);
  }
  {
    etad::basic_tape<long double> t;
    const auto b = t.variable_block(std::vector<long double>{0.5L, 4.0L});
    const etad::real<long double> p = etad::prod(b);
    CHECK(t.gradient(p, b) == std::vector<long double>{4.0L, 0.5L});
  }
}

TEST_CASE("variable_block: linear algebra, dot of two blocks, map_sum", "[tape][block]") {
  const std::size_t n = 5;
  const std::vector<double> x = seeded(n, 3, -1.0, 1.0), y = seeded(n, 4, -1.0, 1.0);
  const std::vector<double> A = seeded(n * n, 6, -1.0, 1.0);
  etad::tape t{etad::persistent};
  const auto bx = t.variable_block(x), by = t.variable_block(y);
  // x^T A x -> (A + A^T) x.
  const real q = etad::quadratic_form(A, bx);
  double qv = 0;
  std::vector<double> want(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      qv += x[i] * A[i * n + j] * x[j];
      want[i] += A[i * n + j] * x[j] + A[j * n + i] * x[j];
    }
  CHECK(close(q.value(), qv));
  const auto gq = t.gradient(q, bx);
  for (std::size_t i = 0; i < n; ++i) CHECK(close(gq[i], want[i]));
  // A x: row i's gradient is row i of A.
  const std::vector<real> ax = etad::matvec(A, bx);
  REQUIRE(ax.size() == n);
  std::vector<real> ax2(n);
  etad::matvec(A, bx, std::span<real>(ax2));
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0;
    for (std::size_t j = 0; j < n; ++j) v += A[i * n + j] * x[j];
    CHECK(close(ax[i].value(), v));
    CHECK(ax2[i].value() == ax[i].value());
    CHECK(t.gradient(ax[i], bx) == std::vector<double>(A.begin() + long(i * n), A.begin() + long(i * n + n)));
  }
  // dot of two blocks, of a block and reals: the other factor.
  const std::vector<real> ry = by.reals();
  const real d1 = etad::dot(bx, by), d2 = etad::dot(bx, ry), d3 = etad::dot(ry, bx);
  double dv = 0;
  for (std::size_t i = 0; i < n; ++i) dv += x[i] * y[i];
  for (const real& d : {d1, d2, d3}) {
    CHECK(close(d.value(), dv));
    CHECK(t.gradient(d, bx) == y);
    CHECK(t.gradient(d, by) == x);
  }
  // map_sum over a block: sum (x_i - c_i)^2 / s -> 2 (x_i - c_i) / s and -sum (x_i - c_i)^2 / s^2.
  const std::vector<double> c = seeded(n, 8, -1.0, 1.0);
  const real s = t.variable(1.5);
  const real m = etad::map_sum([](auto xi, auto ci, auto si) { return (xi - ci) * (xi - ci) / si; },
                               bx, c, s);
  double mv = 0;
  for (std::size_t i = 0; i < n; ++i) mv += (x[i] - c[i]) * (x[i] - c[i]) / 1.5;
  CHECK(close(m.value(), mv));
  const auto gm = t.gradient(m, bx);
  for (std::size_t i = 0; i < n; ++i) CHECK(close(gm[i], 2 * (x[i] - c[i]) / 1.5));
  CHECK(close(t.gradient(m, s)[0], -mv / 1.5));
}

TEST_CASE("variable_block: gradients through several statements and blocks", "[tape][block]") {
  // f = sum(b1) * prod(b2) + b1[0] * b2[1]: the general sweep (not one reduction's partials).
  etad::tape t;
  const auto b1 = t.variable_block(std::vector<double>{1.0, 2.0, 3.0});
  const auto b2 = t.variable_block(std::vector<double>{0.5, 4.0});
  const real f = etad::sum(b1) * etad::prod(b2) + b1[0] * b2[1];
  CHECK(f.value() == 6.0 * 2.0 + 4.0);
  std::vector<double> g1(3), g2(2);
  // A non-persistent tape answers one gradient call; the second block's on a second tape.
  t.gradient(f, b1, g1);
  CHECK(g1 == std::vector<double>{2.0 + 4.0, 2.0, 2.0});
  etad::tape t2{etad::persistent};
  const auto c1 = t2.variable_block(std::vector<double>{1.0, 2.0, 3.0});
  const auto c2 = t2.variable_block(std::vector<double>{0.5, 4.0});
  const real h = etad::sum(c1) * etad::prod(c2) + c1[0] * c2[1];
  t2.gradient(h, c2, g2);
  CHECK(g2 == std::vector<double>{6.0 * 4.0, 6.0 * 0.5 + 1.0});
  // A source the target does not depend on: zero.
  const auto unused = t2.variable_block(std::vector<double>{9.0});
  CHECK(t2.gradient(h, unused) == std::vector<double>{0.0});
}

TEST_CASE("variable_block: values stay put while the tape grows, and across reset()", "[tape][block]") {
  etad::tape t;
  for (int round = 0; round < 3; ++round) {
    std::vector<etad::variable_block<double>> blocks;
    for (std::size_t k = 0; k < 60; ++k)  // 60 blocks of 1..120 values: past the first chunk
      blocks.push_back(t.variable_block(seeded(1 + 2 * k, unsigned(k), -1.0, 1.0)));
    blocks.push_back(t.variable_block(seeded(5000, 77, -1.0, 1.0)));  // larger than any chunk yet
    bool ok = true;
    for (std::size_t k = 0; k < 60; ++k) {
      ok = ok && blocks[k].values().size() == 1 + 2 * k;
      const std::vector<double> want = seeded(1 + 2 * k, unsigned(k), -1.0, 1.0);
      for (std::size_t i = 0; i < want.size(); ++i) ok = ok && blocks[k].values()[i] == want[i];
    }
    CHECK(ok);
    CHECK(blocks.back().values()[4999] == seeded(5000, 77, -1.0, 1.0)[4999]);
    CHECK(t.reserved_bytes() >= (60 * 60 + 5000) * sizeof(double));
    t.reset();
  }
}

TEST_CASE("variable_block: values start on a cache line, whatever the size of T", "[tape][block]") {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; };
  {
    etad::tape t;
    bool ok = true;
    for (std::size_t k = 1; k < 40; ++k) ok = ok && aligned(t.variable_block(seeded(k, 1, 0, 1)).values().data());
    CHECK(ok);
  }
  {
    etad::basic_tape<float> t;
    bool ok = true;
    for (std::size_t k = 1; k < 40; ++k)
      ok = ok && aligned(t.variable_block(std::vector<float>(k, 1.0f)).values().data());
    CHECK(ok);
  }
  {
    // Reals of float (12 bytes: 64 is not a multiple), one-value blocks past the first chunk:
    // every block's value intact, every run on a cache line.
    etad::basic_tape<float> outer;
    etad::basic_tape<etad::real<float>> inner;
    std::vector<etad::variable_block<etad::real<float>>> blocks;
    for (int k = 0; k < 300; ++k) {
      const etad::real<float> v = outer.variable(float(k));
      blocks.push_back(inner.variable_block(std::span<const etad::real<float>>(&v, 1)));
    }
    bool ok = true;
    for (int k = 0; k < 300; ++k) {
      const auto& b = blocks[std::size_t(k)];
      ok = ok && b.values()[0].value() == float(k) && b.values()[0].index() != 0 && aligned(b.values().data());
    }
    CHECK(ok);
  }
}

TEST_CASE("variable_block: a block from before reset() is refused by every use", "[tape][block]") {
  etad::tape t;
  const auto b = t.variable_block(std::vector<double>{1.0, 2.0});
  t.reset();
  const auto later = t.variable_block(std::vector<double>{5.0, 6.0});  // (reuses b's values' place)
  CHECK(later.values()[0] == 5.0);
  CHECK_THROWS_WITH(b[0], Catch::Contains("a variable block was used after its tape's reset()"));
  CHECK_THROWS_AS(b.values(), etad::error);
  CHECK_THROWS_AS(b.reals(), etad::error);
  CHECK_THROWS_AS(etad::dot(b, later), etad::error);
  CHECK_THROWS_AS(etad::map_sum([](auto e) { return e * e; }, b), etad::error);
  {
    etad::stop_recording<double> pause;  // values only, but not stale ones
    CHECK_THROWS_AS(etad::sum(b), etad::error);
    CHECK_THROWS_AS(etad::log_sum_exp(b), etad::error);
  }
}

TEST_CASE("variable_block: errors", "[tape][block]") {
  const std::vector<double> x{1.0, 2.0};
  {
    // A block from before reset(): every function that takes it throws.
    etad::tape t;
    const auto b = t.variable_block(x);
    t.reset();
    CHECK_THROWS_AS(etad::sum(b), etad::error);
    CHECK_THROWS_AS(etad::mean(b), etad::error);
    CHECK_THROWS_AS(etad::squared_norm(b), etad::error);
    CHECK_THROWS_AS(etad::prod(b), etad::error);
    CHECK_THROWS_WITH(etad::log_sum_exp(b), Catch::Contains("used after its tape's reset()"));
    CHECK_THROWS_AS(etad::dot(b, x), etad::error);
    CHECK_THROWS_AS(etad::quadratic_form(std::vector<double>(4, 1.0), b), etad::error);
    CHECK_THROWS_AS(etad::matvec(std::vector<double>(4, 1.0), b), etad::error);
    const real z = t.variable(1.0);
    std::vector<double> g(2);
    CHECK_THROWS_WITH(t.gradient(z, b, g), Catch::Contains("a source block was made on another tape or before this tape's reset()"));
    CHECK_NOTHROW(t.gradient(z, t.variable_block(x), g));  // (the tape was not used by the throw)
  }
  {
    // A block of another tape.
    etad::tape outer;
    const auto b = outer.variable_block(x);
    etad::tape inner;
    CHECK_THROWS_WITH(etad::sum(b), Catch::Contains("uses a variable block made on another tape"));
    CHECK_THROWS_AS(etad::prod(b), etad::error);
  }
  {
    // The wrong number of slots; a matrix of the wrong size; mean of nothing.
    etad::tape t{etad::persistent};
    const auto b = t.variable_block(x);
    const real s = etad::sum(b);
    std::vector<double> g(3);
    CHECK_THROWS_WITH(t.gradient(s, b, g), Catch::Contains("got 3 output slots for 2 sources"));
    CHECK_THROWS_WITH(etad::quadratic_form(std::vector<double>(3, 1.0), b),
                      Catch::Contains("needs an n x n matrix"));
    CHECK_THROWS_AS(etad::matvec(std::vector<double>(3, 1.0), b), etad::error);
    CHECK_THROWS_WITH(etad::mean(etad::variable_block<double>{}), Catch::Contains("mean() of an empty range"));
    CHECK_THROWS_WITH(etad::dot(b, std::vector<double>{1.0}), Catch::Contains("ranges of different lengths"));
  }
}

TEST_CASE("variable_block: while recording is paused, values only", "[tape][block]") {
  etad::tape t;
  const auto b = t.variable_block(std::vector<double>{1.0, 2.0, 3.0});
  {
    etad::stop_recording<double> pause;
    const real s = etad::sum(b), p = etad::prod(b), l = etad::log_sum_exp(b);
    CHECK(s.value() == 6.0);
    CHECK(p.value() == 6.0);
    CHECK(close(l.value(), std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0))));
    CHECK(s.is_constant());
    CHECK(p.is_constant());
    CHECK(l.is_constant());
  }
  CHECK(t.statements() == 3);
}

TEST_CASE("variable_block: a nested tape's block gives second derivatives", "[tape][block]") {
  // f(x) = log_sum_exp(x): its Hessian is diag(s) - s s^T, s = softmax(x). The inner tape records
  // on reals of the outer one; the gradient's components are reals whose own gradients are the
  // Hessian's rows.
  etad::tape outer;
  const std::vector<real> x = outer.variables(std::vector<double>{0.3, -0.7, 1.1});
  std::vector<real> g(3);
  {
    etad::basic_tape<real> inner;
    const auto b = inner.variable_block(std::span<const real>(x));
    const etad::real<real> f = etad::log_sum_exp(b);
    inner.gradient(f, b, g);
  }
  double z = 0;
  for (const real& v : x) z += std::exp(v.value());
  std::vector<double> s(3);
  for (std::size_t i = 0; i < 3; ++i) {
    s[i] = std::exp(x[i].value()) / z;
    CHECK(close(g[i].value(), s[i]));
  }
  const std::vector<std::optional<double>> h0 = outer.gradients(std::vector<real>{g[0]}, x);
  CHECK(close(*h0[0], s[0] - s[0] * s[0]));
  CHECK(close(*h0[1], -s[0] * s[1]));
  CHECK(close(*h0[2], -s[0] * s[2]));
}
