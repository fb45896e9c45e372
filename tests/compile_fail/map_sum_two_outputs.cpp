// ETAD_EXPECT: etad: map_sum's function must return one value
// map_sum's function returns two values (a std::tuple): a sum of pairs is not one statement.
#include <etad/etad.hpp>

#include <tuple>
#include <vector>

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> x = t.variables(std::vector<double>{1.0, 2.0});
#ifdef ETAD_SHOULD_FAIL
  const auto f = [](auto a) { return std::tuple(a * a, a + 1.0); };
#else
  const auto f = [](auto a) { return a * a + (a + 1.0); };
#endif
  const etad::real<double> y = etad::map_sum(f, x);
  // (1 + 2) + (4 + 3) = 10; gradient 2 x + 1.
  const auto g = t.gradient(y, x[0], x[1]);
  return y.value() == 10.0 && g[0] == 3.0 && g[1] == 5.0 ? 0 : 1;
}
