// ETAD_EXPECT: etad: call takes reals and numbers as arguments, not expressions
// An expression of reals (x * 2.0, not yet recorded) passed to call: it takes reals and numbers.
#include <etad/etad.hpp>

int main() {
  etad::tape t;
  const etad::real<double> x = t.variable(1.5);
  const auto f = [](auto a) { return a * a; };
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> y = etad::call(f, x * 2.0);
#else
  const etad::real<double> x2 = x * 2.0;
  const etad::real<double> y = etad::call(f, x2);
#endif
  // (2 x)^2 = 9; derivative 8 x = 12.
  return y.value() == 9.0 && t.gradient(y, x)[0] == 12.0 ? 0 : 1;
}
