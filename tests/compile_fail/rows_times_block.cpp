// ETAD_EXPECT: etad: rows_times takes a contiguous range of reals as w, and a variable_block holds no reals
// rows_times(X, w) refers to w's reals, which a variable block does not hold: its sentence says
// to pass b.reals() in a named vector (the correct form below).
#include <etad/etad.hpp>

#include <vector>

int main() {
  etad::tape t;
  const auto b = t.variable_block(std::vector<double>{0.5, -1.0});
  const std::vector<double> y{1.0, 2.0};
  const std::vector<double> x{1.0, 2.0, 3.0, 4.0};  // 2 x 2
#ifdef ETAD_SHOULD_FAIL
  const auto& w = b;
#else
  const std::vector<etad::real<double>> w = b.reals();
#endif
  const etad::real<double> sse = etad::map_sum(
      [](auto yi, auto v) { return (yi - v) * (yi - v); }, y, etad::rows_times(x, w));
  // X w = (-1.5, -2.5); residuals (2.5, 4.5): sse = 26.5; d/dw = -2 X^T r = (-32, -46).
  const auto g = t.gradient(sse, b);
  return sse.value() == 26.5 && g[0] == -32.0 && g[1] == -46.0 ? 0 : 1;
}
