// ETAD_EXPECT: etad: f used a value it did not get as an argument
// A tape's real captured by a static front door's f: the static program would take its value as
// a constant and drop its gradient without a word.
#include <etad/etad.hpp>

int main() {
  etad::tape t;
  const etad::real<double> r = t.variable(4.0);
#ifdef ETAD_SHOULD_FAIL
  const auto g = etad::gradient([&](auto x) { return x * r; }, 2.0);
#else
  const double rv = r.value();  // a number: a constant, on purpose
  const auto g = etad::gradient([&](auto x) { return x * rv; }, 2.0);
#endif
  return g.value == 8.0 && g.gradient[0] == 4.0 ? 0 : 1;
}
