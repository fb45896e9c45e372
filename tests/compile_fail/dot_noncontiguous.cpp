// ETAD_EXPECT: etad: dot\(\) takes two contiguous ranges \(std::vector, std::array, std::span\)
// dot() reads both ranges through pointers: coefficients in a std::list get etad's sentence, not
// a list of candidate overloads (as a std::list of reals does).
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
  // x . c = 1*3 + 2*4 = 11; d/dx = c.
  const etad::real<double> y = etad::dot(x, c);
  const auto g = t.gradient(y, x[0], x[1]);
  return y.value() == 11.0 && g[0] == 3.0 && g[1] == 4.0 ? 0 : 1;
}
