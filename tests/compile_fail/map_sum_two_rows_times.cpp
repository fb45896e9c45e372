// ETAD_EXPECT: etad: map_sum takes at most one rows_times argument
// Two rows_times arguments in one map_sum: only one matrix-vector product is accumulated in its
// loop.
#include <etad/etad.hpp>

#include <array>
#include <vector>

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> w = t.variables(std::vector<double>{1.0, 2.0});
  const std::array<double, 4> a{1.0, 0.0, 0.0, 1.0};  // identity, row-major
  const std::array<double, 4> b{0.0, 1.0, 1.0, 0.0};  // the swap
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> y = etad::map_sum([](auto u, auto v) { return u * v; },
                                             etad::rows_times(a, w), etad::rows_times(b, w));
#else
  // B w written out as two expressions: (w1, w0).
  const std::vector<etad::real<double>> bw{b[0] * w[0] + b[1] * w[1], b[2] * w[0] + b[3] * w[1]};
  const etad::real<double> y =
      etad::map_sum([](auto u, auto v) { return u * v; }, etad::rows_times(a, w), bw);
#endif
  // A w = (w0, w1), B w = (w1, w0): the sum is 2 w0 w1 = 4; gradient (2 w1, 2 w0) = (4, 2).
  const auto g = t.gradient(y, w[0], w[1]);
  return y.value() == 4.0 && g[0] == 4.0 && g[1] == 2.0 ? 0 : 1;
}
