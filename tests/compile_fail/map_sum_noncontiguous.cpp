// ETAD_EXPECT: etad: map_sum maps over contiguous ranges only
// map_sum reads its ranges by index: data in a std::list gets etad's sentence, not an invalid
// static_cast deep inside map_sum (nor, for a std::list of reals, "needs at least one range").
#include <etad/etad.hpp>

#include <list>
#include <vector>

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> x = t.variables(std::vector<double>{1.0, 2.0});
#ifdef ETAD_SHOULD_FAIL
  const std::list<double> c{3.0, 4.0};
#else
  const std::vector<double> c{3.0, 4.0};
#endif
  // sum x_i c_i = 11; d/dx = c.
  const etad::real<double> y = etad::map_sum([](auto a, auto b) { return a * b; }, x, c);
  const auto g = t.gradient(y, x[0], x[1]);
  return y.value() == 11.0 && g[0] == 3.0 && g[1] == 4.0 ? 0 : 1;
}
