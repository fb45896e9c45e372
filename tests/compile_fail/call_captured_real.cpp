// ETAD_EXPECT: etad: call's function used a real it did not get as an argument
// The function captures y, a real, instead of taking it as an argument: traced with placeholders
// for its arguments only, y would be a constant and its gradient silently lost.
#include <etad/etad.hpp>

int main() {
  etad::tape t{etad::persistent};
  const etad::real<double> x = t.variable(2.0), y = t.variable(5.0);
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> z = etad::call([y](auto a) { return a * y; }, x);
#else
  const etad::real<double> z = etad::call([](auto a, auto b) { return a * b; }, x, y);
#endif
  const auto g = t.gradient(z, x, y);
  return z.value() == 10.0 && g[0] == 5.0 && g[1] == 2.0 ? 0 : 1;
}
