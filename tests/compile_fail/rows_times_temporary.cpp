// ETAD_EXPECT: etad: rows_times refers to its matrix and vector, so a temporary container
// rows_times(X, w) is a view of X and w; of a std::vector returned by a function it would
// dangle once the statement that made it ends (heap-use-after-free in map_sum).
#include <etad/etad.hpp>

#include <vector>

namespace {
std::vector<double> design_matrix() { return {1.0, 2.0, 3.0, 4.0}; }  // 2 x 2
}  // namespace

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> w{t.variable(0.5), t.variable(-1.0)};
  const std::vector<double> y{1.0, 2.0};
#ifdef ETAD_SHOULD_FAIL
  const auto xw = etad::rows_times(design_matrix(), w);
#else
  const std::vector<double> x = design_matrix();
  const auto xw = etad::rows_times(x, w);
#endif
  const etad::real<double> sse =
      etad::map_sum([](auto yi, auto v) { return (yi - v) * (yi - v); }, y, xw);
  // X w = (1*0.5 - 2, 3*0.5 - 4) = (-1.5, -2.5); residuals y - Xw = (2.5, 4.5): sse = 26.5.
  // d/dw = -2 X^T r = -2 (1*2.5 + 3*4.5, 2*2.5 + 4*4.5) = (-32, -46).
  const auto g = t.gradient(sse, w[0], w[1]);
  return sse.value() == 26.5 && g[0] == -32.0 && g[1] == -46.0 ? 0 : 1;
}
