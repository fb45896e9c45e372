// tests/tape/sweep_registers_test.cpp — the sweep's pending registers (detail/storage.hpp,
// sweep_block): contributions to positions 1 and 2 of statements of 2 and 3 partials stay in
// registers while the next statements use the same index there, and go to memory when the index
// changes, when the index is about to be read (it becomes the statement below the one swept), and
// at the end of the sweep; and the register for the adjoint two below a statement of four or
// more partials (`next2`), which the statement below takes instead of memory, which goes to
// memory before a range statement and at a block's end, and before which a pending register
// holding its index (below - 1) is flushed. Each case below would give a wrong
// gradient if one of those flushes were missing or went to the wrong place; the expected values
// are closed forms or forward tangents.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace {

using real = etad::real<double>;

}  // namespace

TEST_CASE("tape sweep registers: a held index read as the statement below is flushed first",
          "[tape][sweep]") {
  // u = x y; w = x + 1 (its statement's `below` is u: u's adjoint is read there, while the two
  // statements above still hold contributions to u at position 1); z1 = x u; z2 = z1 u.
  // z2 = x u^2 = x^3 y^2: dz2/dx = 3 x^2 y^2, dz2/dy = 2 x^3 y.
  etad::tape t;
  const double xv = 1.5, yv = -0.75;
  const real x = t.variable(xv), y = t.variable(yv);
  const real u = x * y;
  const real w = x + 1.0;
  const real z1 = x * u;
  const real z2 = z1 * u;
  (void)w;
  const auto g = t.gradient(z2, x, y, u);
  CHECK(g[0] == Approx(3 * xv * xv * yv * yv).epsilon(1e-15));
  CHECK(g[1] == Approx(2 * xv * xv * xv * yv).epsilon(1e-15));
  CHECK(g[2] == Approx(2 * xv * xv * yv).epsilon(1e-15));  // dz2/du = 2 x u
}

TEST_CASE("tape sweep registers: a held intermediate gets its contributions before its statement",
          "[tape][sweep]") {
  // p = x x (an intermediate); then n statements z = z * p + q that hold p and q in registers;
  // the last statement above p's own statement reads p's adjoint through `below` only if z's
  // chain starts right above it, so here q is recorded in between: p = x^2, q = 3 x, z0 = y.
  // z_n = p^n y + q (p^n - 1) / (p - 1).
  const std::size_t n = 40;
  const double xv = 1.01, yv = 0.5;
  etad::tape t;
  const real x = t.variable(xv), y = t.variable(yv);
  const real p = x * x;
  const real q = 3.0 * x;
  real z = y;
  for (std::size_t k = 0; k < n; ++k) z = z * p + q;
  const auto g = t.gradient(z, x, y, p, q);
  const double pv = xv * xv, qv = 3 * xv, pn = std::pow(pv, double(n));
  const double geometric = (pn - 1) / (pv - 1);  // 1 + p + ... + p^(n-1)
  // d/dp of p^n y + q (1 + p + ... + p^(n-1)).
  double dgeometric = 0;
  for (std::size_t k = 1; k < n; ++k) dgeometric += double(k) * std::pow(pv, double(k) - 1);
  const double dz_dp = double(n) * std::pow(pv, double(n) - 1) * yv + qv * dgeometric;
  const double dz_dq = geometric;
  CHECK(g[1] == Approx(pn).epsilon(1e-13));
  CHECK(g[2] == Approx(dz_dp).epsilon(1e-13));
  CHECK(g[3] == Approx(dz_dq).epsilon(1e-13));
  CHECK(g[0] == Approx(dz_dp * 2 * xv + dz_dq * 3).epsilon(1e-13));
}

TEST_CASE("tape sweep registers: indices that change at a position are flushed and taken again",
          "[tape][sweep]") {
  // Alternating parameters at positions 1 and 2: z = z a + b, then z = z b + a, n times each,
  // then z = z c + c (the same index at both positions). Linear in z: z_final = P z0 + S, with
  // the derivatives computed below by forward-mode tangents in plain doubles (an independent
  // method: no tape, no sweep).
  const std::size_t n = 25;
  const double av = 0.9, bv = 0.3, cv = 1.1, z0v = 2.0;
  etad::tape t;
  const real a = t.variable(av), b = t.variable(bv), c = t.variable(cv), z0 = t.variable(z0v);
  real z = z0;
  for (std::size_t k = 0; k < n; ++k) {
    z = z * a + b;
    z = z * b + a;
  }
  z = z * c + c;
  const auto g = t.gradient(z, a, b, c, z0);
  // Tangents of (a, b, c, z0) through the same loop.
  double zv = z0v;
  std::array<double, 4> dz{0, 0, 0, 1};
  for (std::size_t k = 0; k < n; ++k) {
    dz = {dz[0] * av + zv, dz[1] * av + 1, dz[2] * av, dz[3] * av};
    zv = zv * av + bv;
    dz = {dz[0] * bv + 1, dz[1] * bv + zv, dz[2] * bv, dz[3] * bv};
    zv = zv * bv + av;
  }
  dz = {dz[0] * cv, dz[1] * cv, dz[2] * cv + zv + 1, dz[3] * cv};
  zv = zv * cv + cv;
  CHECK(z.value() == Approx(zv).epsilon(1e-14));
  for (std::size_t i = 0; i < 4; ++i) CHECK(g[i] == Approx(dz[i]).epsilon(1e-13));
}

TEST_CASE("tape sweep registers: registers carry across blocks and match gradients() exactly",
          "[tape][sweep]") {
  // 100000 statements z = z * y + c span four blocks of 2^15 statements; y and c stay in
  // registers through all of them. z_n = y^n z0 + c (y^n - 1) / (y - 1). Each parameter gets
  // all its contributions in one register, in the plain loop's order, so the result is bitwise
  // that of gradients() (the general sweep, which has no registers).
  const std::size_t n = 100000;
  const double yv = 1 + 1e-6, cv = 1e-3, z0v = 0.5;
  etad::tape t{etad::persistent};
  const real y = t.variable(yv), c = t.variable(cv), z0 = t.variable(z0v);
  real z = z0;
  for (std::size_t k = 0; k < n; ++k) z = z * y + c;
  const auto g = t.gradient(z, y, c, z0);
  const double h = yv - 1;  // exact; yv is not exactly 1 + 1e-6
  const double yn = std::exp(double(n) * std::log1p(h));  // y^n
  const double geometric = (yn - 1) / h;
  // d/dy [y^n z0 + c (y^n - 1)/(y - 1)]
  const double dyn = double(n) * yn / yv;
  const double dz_dy = dyn * z0v + cv * (dyn * h - (yn - 1)) / (h * h);
  CHECK(g[0] == Approx(dz_dy).epsilon(1e-8));
  CHECK(g[1] == Approx(geometric).epsilon(1e-8));
  CHECK(g[2] == Approx(yn).epsilon(1e-8));
  const std::vector<real> targets{z}, sources{y, c, z0};
  const auto general = t.gradients(targets, sources);
  CHECK(*general[0] == g[0]);
  CHECK(*general[1] == g[1]);
  CHECK(*general[2] == g[2]);
}

// The register for the adjoint two below a statement of four or more partials (`next2` in
// sweep_block): in chain's t = f(t, tt, ...), with tt = t * t in between, t is two below.

namespace {

// One step of a chain like the benchmark's: tt = t t, then one statement of five partials whose
// inputs include t (two below) and tt (one below).
template <class R>
R chain_step(const R& t, const R& x, const R& y, const R& z) {
  const R tt = t * t;
  return sin(t) * cos(y * t) + exp(-z * tt) / (1.0 + x * tt) + 0.5 * sqrt(y * z + tt);
}

// The same step in doubles with forward tangents of (x, y, z): an independent method.
struct tangent3 {
  double v;
  std::array<double, 3> d;
};
tangent3 chain_step_tangent(const tangent3& t, const tangent3& x, const tangent3& y,
                            const tangent3& z) {
  tangent3 r{};
  const double tt = t.v * t.v;
  const double s = std::sin(t.v), c = std::cos(y.v * t.v), e = std::exp(-z.v * tt);
  const double den = 1 + x.v * tt, root = std::sqrt(y.v * z.v + tt);
  r.v = s * c + e / den + 0.5 * root;
  for (std::size_t k = 0; k < 3; ++k) {
    const double dtt = 2 * t.v * t.d[k];
    const double ds = std::cos(t.v) * t.d[k];
    const double dc = -std::sin(y.v * t.v) * (y.d[k] * t.v + y.v * t.d[k]);
    const double de = e * -(z.d[k] * tt + z.v * dtt);
    const double dden = x.d[k] * tt + x.v * dtt;
    const double droot = (y.d[k] * z.v + y.v * z.d[k] + dtt) / (2 * root);
    r.d[k] = ds * c + s * dc + (de * den - e * dden) / (den * den) + 0.5 * droot;
  }
  return r;
}

}  // namespace

TEST_CASE("tape sweep registers: the adjoint two below in chain's statements, against tangents",
          "[tape][sweep]") {
  // The benchmark's chain, 10 and 20000 steps (several blocks). The chain forgets its start
  // (dt/dt < 1), so a contribution lost deep in the tape would hardly show: the next test
  // covers blocks' ends.
  const std::size_t n = GENERATE(std::size_t(10), std::size_t(20000));
  const bool shift = GENERATE(false, true);
  const double xv = 0.6, yv = 0.7, zv = 0.9;
  etad::tape t{etad::persistent};
  const real x = t.variable(xv), y = t.variable(yv), z = t.variable(zv);
  if (shift) [[maybe_unused]] const real unused = x * y;
  real r = x;
  for (std::size_t k = 0; k < n; ++k) r = chain_step(r, x, y, z);
  const auto g = t.gradient(r, x, y, z);

  tangent3 tx{xv, {1, 0, 0}}, ty{yv, {0, 1, 0}}, tz{zv, {0, 0, 1}}, tr = tx;
  for (std::size_t k = 0; k < n; ++k) tr = chain_step_tangent(tr, tx, ty, tz);
  CHECK(r.value() == Approx(tr.v).epsilon(1e-13));
  for (std::size_t k = 0; k < 3; ++k) CHECK(g[k] == Approx(tr.d[k]).epsilon(1e-10));

  // Where the compiler merged each statement's repeated inputs (1 + 5 partials per step: at -O3,
  // and with clang at -O2), each parameter gets all its contributions in one run of a register,
  // added in the plain loop's order: bitwise what gradients() (no registers) gives. Where it did
  // not (g++ -O2 keeps some repeats, 10 partials per step), a parameter held in a register also
  // arrives at other positions of the same statement, through memory, and the two sums are
  // grouped differently: equal up to the last bits, as docs/design.md says.
  const std::vector<real> targets{r}, sources{x, y, z};
  const auto general = t.gradients(targets, sources);
  const bool merged = t.partials() == 6 * n + (shift ? 2 : 0);
  for (std::size_t k = 0; k < 3; ++k) {
    if (merged)
      CHECK(*general[k] == g[k]);
    else
      CHECK(*general[k] == Approx(g[k]).epsilon(1e-14));
  }
}

TEST_CASE("tape sweep registers: a range statement between a statement and the index it holds",
          "[tape][sweep]") {
  // a, b, c, d = variables (1..4); u = sum(a, b, c, d) (a range statement, 5); then one
  // statement of five partials, z = d u + a b c (6), whose input d is two below it. The range
  // statement in between must see d's contribution from z before it adds its own.
  // dz/da = d + b c, dz/db = d + a c, dz/dc = d + a b, dz/dd = u + d.
  const std::array<double, 4> v{1.25, -0.5, 2.0, 0.75};
  etad::tape t;
  const std::vector<real> x = t.variables(v);
  const real u = etad::sum(x);
  const real& a = x[0];
  const real& b = x[1];
  const real& c = x[2];
  const real& d = x[3];
  const real z = d * u + a * b * c;
  CHECK(t.statements() == 6);
  CHECK(t.partials() == 4 + 5);
  const auto g = t.gradient(z, a, b, c, d);
  const double uv = v[0] + v[1] + v[2] + v[3];
  CHECK(g[0] == Approx(v[3] + v[1] * v[2]).epsilon(1e-15));
  CHECK(g[1] == Approx(v[3] + v[0] * v[2]).epsilon(1e-15));
  CHECK(g[2] == Approx(v[3] + v[0] * v[1]).epsilon(1e-15));
  CHECK(g[3] == Approx(uv + v[3]).epsilon(1e-15));
}

TEST_CASE("tape sweep registers: the adjoint two below, held at the end of a block",
          "[tape][sweep]") {
  // u = t s (statement i - 1), t = (u + t) / 2 + x + y z (statement i: five partials, t two
  // below): a recurrence that does not forget its start (dt/dt = (1 + s) / 2, s = 1 - 1e-5), so
  // a contribution lost at a block's end would show. 40000 steps span several blocks, and with
  // or without one statement before the loop, blocks end at either kind of statement.
  // With a = (1 + s) / 2 and c = x + y z: t_n = a^n x + c (1 - a^n) / (1 - a).
  const std::size_t n = 40000;
  const bool shift = GENERATE(false, true);
  const double xv = 0.6, yv = 0.7, zv = 0.9, sv = 1 - 1e-5;
  etad::tape t{etad::persistent};
  const real x = t.variable(xv), y = t.variable(yv), z = t.variable(zv), s = t.variable(sv);
  if (shift) [[maybe_unused]] const real unused = x * y;
  real r = x;
  for (std::size_t k = 0; k < n; ++k) {
    const real u = r * s;
    r = (u + r) * 0.5 + x + y * z;
  }
  const auto g = t.gradient(r, x, y, z, s);

  const double a = (1 + sv) / 2, an = std::pow(a, double(n)), c = xv + yv * zv;
  const double geometric = (1 - an) / (1 - a);
  const double dgeometric_da =
      (-double(n) * std::pow(a, double(n) - 1) * (1 - a) + (1 - an)) / ((1 - a) * (1 - a));
  CHECK(g[0] == Approx(an + geometric).epsilon(1e-8));
  CHECK(g[1] == Approx(zv * geometric).epsilon(1e-8));
  CHECK(g[2] == Approx(yv * geometric).epsilon(1e-8));
  CHECK(g[3] == Approx(0.5 * (double(n) * std::pow(a, double(n) - 1) * xv + c * dgeometric_da))
                    .epsilon(1e-8));
  const std::vector<real> targets{r}, sources{x, y, z, s};
  const auto general = t.gradients(targets, sources);
  for (std::size_t k = 0; k < 4; ++k) CHECK(*general[k] == g[k]);
}
