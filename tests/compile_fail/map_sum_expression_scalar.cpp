// ETAD_EXPECT: etad: map_sum takes reals and numbers as scalar arguments, not expressions; assign the expression to a real first
// An expression of reals (mu * 2.0, not yet a real) as a map_sum scalar: etad's sentence, not
// "no type named 'type' in std::common_type".
#include <etad/etad.hpp>

#include <vector>

int main() {
  etad::tape t;
  const etad::real<double> mu = t.variable(0.5);
  const std::vector<double> y{1.0, 2.0, 3.0};
  const auto f = [](auto yi, auto m) { return (yi - m) * (yi - m); };
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> s = etad::map_sum(f, y, mu * 2.0);
#else
  const etad::real<double> m = mu * 2.0;
  const etad::real<double> s = etad::map_sum(f, y, m);
#endif
  // m = 1: sum (y - 1)^2 = 0 + 1 + 4 = 5; d/dmu = 2 * -2 sum (y - 1) = -12.
  return s.value() == 5.0 && t.gradient(s, mu)[0] == -12.0 ? 0 : 1;
}
