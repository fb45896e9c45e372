// ETAD_EXPECT: etad: dot\(\) of ranges of reals needs the same real type on both sides
// dot() of a range of real<double> and a range of real<float>: one statement holds partials of
// one type, so both ranges must be reals of the same type.
#include <etad/etad.hpp>

#include <vector>

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> x = t.variables(std::vector<double>{1.0, 2.0});
#ifdef ETAD_SHOULD_FAIL
  const std::vector<etad::real<float>> c{etad::real<float>(3.0f), etad::real<float>(4.0f)};
#else
  const std::vector<etad::real<double>> c{etad::real<double>(3.0), etad::real<double>(4.0)};
#endif
  // x . c = 1*3 + 2*4 = 11; d/dx = c.
  const etad::real<double> y = etad::dot(x, c);
  const auto g = t.gradient(y, x[0], x[1]);
  return y.value() == 11.0 && g[0] == 3.0 && g[1] == 4.0 ? 0 : 1;
}
