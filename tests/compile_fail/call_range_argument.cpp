// ETAD_EXPECT: etad: call takes reals and numbers, not ranges
// A std::vector of reals passed to call, which takes one real or number per parameter.
#include <etad/etad.hpp>

#include <vector>

int main() {
  etad::tape t{etad::persistent};
  const std::vector<etad::real<double>> x = t.variables(std::vector<double>{1.0, 2.0});
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> y = etad::call([](auto v) { return v * v; }, x);
#else
  const etad::real<double> y = etad::call([](auto a, auto b) { return a * b; }, x[0], x[1]);
#endif
  const auto g = t.gradient(y, x[0], x[1]);
  return y.value() == 2.0 && g[0] == 2.0 && g[1] == 1.0 ? 0 : 1;
}
