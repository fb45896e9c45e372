// tests/tape/sweep_registers_test.cpp — the sweep's pending registers (detail/storage.hpp,
// sweep_block): contributions to positions 1 and 2 of statements of 2 and 3 partials stay in
// registers while the next statements use the same index there, and go to memory when the index
// changes, when the index is about to be read (it becomes the statement below the one swept), and
// at the end of the sweep. Each case below would give a wrong gradient if one of those flushes
// were missing or went to the wrong place; the expected values are closed forms.
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
