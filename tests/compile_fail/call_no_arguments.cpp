// ETAD_EXPECT: etad: call needs at least one argument after the function
// call with the function alone: nothing to record a statement of.
#include <etad/etad.hpp>

int main() {
  etad::tape t;
  const etad::real<double> x = t.variable(4.0);
#ifdef ETAD_SHOULD_FAIL
  const auto y = etad::call([] { return 1.0; });
  (void)y;
#endif
  const etad::real<double> z = etad::call([](auto a) { return sqrt(a); }, x);
  return z.value() == 2.0 && t.gradient(z, x)[0] == 0.25 ? 0 : 1;
}
