// ETAD_EXPECT: etad: call's function must return one value
// call's function returns two values (a std::tuple): one statement defines one value.
#include <etad/etad.hpp>

#include <tuple>

int main() {
  etad::tape t;
  const etad::real<double> x = t.variable(3.0);
#ifdef ETAD_SHOULD_FAIL
  const auto f = [](auto a) { return std::tuple(a * a, a + 1.0); };
#else
  const auto f = [](auto a) { return a * a + (a + 1.0); };
#endif
  const etad::real<double> y = etad::call(f, x);
  // 9 + 4 = 13; derivative 2 x + 1 = 7.
  return y.value() == 13.0 && t.gradient(y, x)[0] == 7.0 ? 0 : 1;
}
