// ETAD_EXPECT: etad: map_sum needs at least one argument after the function
// map_sum(f) with nothing to map f over.
#include <etad/etad.hpp>

#include <vector>

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> x = t.variables(std::vector<double>{1.0, 2.0, 3.0});
  const auto f = [](auto a) { return a * a; };
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> y = etad::map_sum(f);
#else
  const etad::real<double> y = etad::map_sum(f, x);
#endif
  // 1 + 4 + 9; gradient 2 x.
  const auto g = t.gradient(y, x[0], x[1], x[2]);
  return y.value() == 14.0 && g[0] == 2.0 && g[1] == 4.0 && g[2] == 6.0 ? 0 : 1;
}
