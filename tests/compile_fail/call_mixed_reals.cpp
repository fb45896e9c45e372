// ETAD_EXPECT: etad: call's reals must all be of one type
// A real<float> and a real<double> in one call: no statement has inputs on two tapes.
#include <etad/etad.hpp>

int main() {
  etad::tape t;
  const etad::real<double> x = t.variable(3.0);
#ifdef ETAD_SHOULD_FAIL
  const etad::real<float> c(2.0f);
#else
  const etad::real<double> c(2.0);
#endif
  const etad::real<double> y = etad::call([](auto a, auto b) { return a * b; }, x, c);
  return y.value() == 6.0 && t.gradient(y, x)[0] == 2.0 ? 0 : 1;
}
