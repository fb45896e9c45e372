// ETAD_EXPECT: etad: map_sum needs at least one range argument to map over
// map_sum with scalars only: there is no range to sum over (call the function directly).
#include <etad/etad.hpp>

#include <array>

int main() {
  etad::tape t;
  const etad::real<double> s = t.variable(2.0);
  const auto f = [](auto a, auto b) { return a * b; };
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> y = etad::map_sum(f, 3.0, s);
#else
  const etad::real<double> y = etad::map_sum(f, std::array{3.0}, s);
#endif
  // 3 s = 6; d/ds = 3.
  return y.value() == 6.0 && t.gradient(y, s)[0] == 3.0 ? 0 : 1;
}
