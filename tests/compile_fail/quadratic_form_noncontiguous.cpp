// ETAD_EXPECT: etad: quadratic_form takes a contiguous range of numbers \(the n x n matrix
// quadratic_form reads its matrix row by row through a pointer: a std::deque gets etad's
// sentence, not a list of candidate overloads.
#include <etad/etad.hpp>

#include <deque>
#include <vector>

int main() {
  etad::tape t;
  const std::vector<etad::real<double>> x = t.variables(std::vector<double>{1.0, -2.0});
#ifdef ETAD_SHOULD_FAIL
  const std::deque<double> a{2.0, 1.0, 0.0, 3.0};
#else
  const std::vector<double> a{2.0, 1.0, 0.0, 3.0};
#endif
  // x^T A x = 2 - 2 + 12 = 12; (A + A^T) x = [[4, 1], [1, 6]] (1, -2) = (2, -11).
  const etad::real<double> q = etad::quadratic_form(a, x);
  const auto g = t.gradient(q, x[0], x[1]);
  return q.value() == 12.0 && g[0] == 2.0 && g[1] == -11.0 ? 0 : 1;
}
