// ETAD_EXPECT: etad: checkpointed_loop's step must return the new state: one value per state real
// A checkpointed loop over a state of two reals whose step returns one value.
#include <etad/etad.hpp>

#include <tuple>

int main() {
  etad::tape t;
  const etad::real<> u = t.variable(1.0), v = t.variable(2.0);
#ifdef ETAD_SHOULD_FAIL
  auto step = [](const auto& a, const auto& b) { return etad::real<>(a + b); };
#else
  auto step = [](const auto& a, const auto& b) { return std::tuple{b, a}; };
#endif
  const auto [a, b] = etad::checkpointed_loop(3, step, u, v, {.snapshots = 2});
  // Three swaps: (v, u); d a / d v = 1.
  return a.value() == 2.0 && b.value() == 1.0 && t.gradient(a, v)[0] == 1.0 ? 0 : 1;
}
