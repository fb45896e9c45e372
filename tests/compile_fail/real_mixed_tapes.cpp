// ETAD_EXPECT: etad: an expression mixes reals of different types
// On a nested tape, an outer tape's real p used as it is in an inner expression would count as
// the plain number p.value(): d2f/dxi dp came out 0 (unchecked builds) instead of 1. It must
// enter as real<real<double>>(p), an inner constant whose value keeps its outer derivatives.
#include <etad/etad.hpp>

int main() {
  using real2 = etad::real<etad::real<double>>;
  etad::tape outer{etad::persistent};
  const etad::real<double> x = outer.variable(3.0), p = outer.variable(5.0);
  etad::real<double> dfdx;
  {
    etad::basic_tape<etad::real<double>> inner;
    const real2 xi = inner.variable(x);
#ifdef ETAD_SHOULD_FAIL
    const real2 f = xi * p;
#else
    const real2 f = xi * real2(p);
#endif
    dfdx = inner.gradient(f, xi)[0];  // = p, an outer real
  }
  const auto [d2_dp, d2_dx] = outer.gradient(dfdx, p, x);  // 1 and 0
  return dfdx.value() == 5.0 && d2_dp == 1.0 && d2_dx == 0.0 ? 0 : 1;
}
