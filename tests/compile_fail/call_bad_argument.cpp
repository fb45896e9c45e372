// ETAD_EXPECT: etad: call's arguments must be reals \(etad::real\) or numbers
// A std::complex passed to call: neither a real nor a (real) number.
#include <etad/etad.hpp>

#include <complex>

int main() {
  etad::tape t;
  const etad::real<double> x = t.variable(3.0);
#ifdef ETAD_SHOULD_FAIL
  const std::complex<double> k(2.0, 0.0);
#else
  const double k = 2;
#endif
  const etad::real<double> y = etad::call([](auto a, auto b) { return a + b; }, x, k);
  return y.value() == 5.0 && t.gradient(y, x)[0] == 1.0 ? 0 : 1;
}
