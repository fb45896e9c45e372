// ETAD_EXPECT: etad: rows_times takes a contiguous range of numbers \(the matrix, row-major\)
// rows_times(X, w) reads X row by row through a pointer: a std::deque gets etad's sentence, not a
// list of candidate overloads.
#include <etad/etad.hpp>

#include <deque>
#include <vector>

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> w = t.variables(std::vector<double>{0.5, -1.0});
  const std::vector<double> y{1.0, 2.0};
#ifdef ETAD_SHOULD_FAIL
  const std::deque<double> x{1.0, 2.0, 3.0, 4.0};
#else
  const std::vector<double> x{1.0, 2.0, 3.0, 4.0};  // 2 x 2
#endif
  const etad::real<double> sse = etad::map_sum(
      [](auto yi, auto v) { return (yi - v) * (yi - v); }, y, etad::rows_times(x, w));
  // X w = (-1.5, -2.5); residuals (2.5, 4.5): sse = 26.5; d/dw = -2 X^T r = (-32, -46).
  const auto g = t.gradient(sse, w[0], w[1]);
  return sse.value() == 26.5 && g[0] == -32.0 && g[1] == -46.0 ? 0 : 1;
}
