// ETAD_EXPECT: etad: a tape's values must be floating-point numbers
// A tape of ints would compute x*x/2 + sqrt(x) in integer arithmetic (5 at x = 3, gradient 0)
// without a word; it is refused, as integer inputs are by the static front doors.
#include <etad/etad.hpp>

#include <cmath>

int main() {
#ifdef ETAD_SHOULD_FAIL
  etad::basic_tape<int> t;
  const etad::real<int> x = t.variable(3);
#else
  etad::basic_tape<double> t;
  const etad::real<double> x = t.variable(3.0);
#endif
  const auto y = decltype(x)(x * x / 2 + sqrt(x));
  // y = 4.5 + sqrt(3); dy/dx = x + 1 / (2 sqrt(x)) = 3 + 1 / (2 sqrt(3))
  const double want = 3.0 + 1.0 / (2.0 * std::sqrt(3.0));
  return std::abs(y.value() - (4.5 + std::sqrt(3.0))) < 1e-12 &&
                 std::abs(t.gradient(y, x)[0] - want) < 1e-12
             ? 0
             : 1;
}
