// ETAD_EXPECT: etad: matvec takes a contiguous range of numbers \(the matrix, row-major\) and a contiguous range of reals
// matvec(A, x) reads x through a pointer: a std::list of reals gets etad's sentence, not a list
// of candidate overloads.
#include <etad/etad.hpp>

#include <array>
#include <list>
#include <vector>

int main() {
  etad::tape t;
  const etad::real<double> x0 = t.variable(1.0), x1 = t.variable(2.0);
#ifdef ETAD_SHOULD_FAIL
  const std::list<etad::real<double>> x{x0, x1};
#else
  const std::vector<etad::real<double>> x{x0, x1};
#endif
  const std::array<double, 4> a{1.0, 2.0, -1.0, 0.5};  // 2 x 2
  const std::vector<etad::real<double>> y = etad::matvec(a, x);
  // A x = (5, 0); row 1's gradient is (-1, 0.5).
  const auto g = t.gradient(y.at(1), x0, x1);
  return y.at(0).value() == 5.0 && y.at(1).value() == 0.0 && g[0] == -1.0 && g[1] == 0.5 ? 0 : 1;
}
