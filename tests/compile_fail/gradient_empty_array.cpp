// ETAD_EXPECT: etad: gradient of an empty array; give at least one input
// gradient(f, std::array<double, 0>): no input to differentiate with respect to.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const std::array<double, 0> x{};
#else
  const std::array<double, 2> x{3.0, 4.0};
#endif
  const auto r = etad::gradient([](const auto& v) { return etad::squared_norm(v); }, x);
  // The sum of squares, and its gradient 2 x.
  double value = 0;
  bool ok = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    value += x[i] * x[i];
    ok = ok && r.gradient[i] == 2 * x[i];
  }
  return ok && r.value == value && value == 25.0 ? 0 : 1;
}
