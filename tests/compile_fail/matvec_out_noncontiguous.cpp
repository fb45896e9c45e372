// ETAD_EXPECT: etad: matvec takes a contiguous range of numbers \(the matrix, row-major\), a contiguous range of reals
// matvec(A, x, out) reads its matrix through a pointer: a std::deque of numbers gets etad's
// sentence, not a list of candidate overloads.
#include <etad/etad.hpp>

#include <deque>
#include <span>
#include <vector>

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> x = t.variables(std::vector<double>{1.0, 2.0});
#ifdef ETAD_SHOULD_FAIL
  const std::deque<double> a{1.0, 2.0, -1.0, 0.5};
#else
  const std::vector<double> a{1.0, 2.0, -1.0, 0.5};  // 2 x 2
#endif
  std::vector<etad::real<double>> y(2);
  etad::matvec(a, x, std::span<etad::real<double>>(y));
  // A x = (5, 0); row 0's gradient is (1, 2).
  const auto g = t.gradient(y[0], x[0], x[1]);
  return y[0].value() == 5.0 && y[1].value() == 0.0 && g[0] == 1.0 && g[1] == 2.0 ? 0 : 1;
}
