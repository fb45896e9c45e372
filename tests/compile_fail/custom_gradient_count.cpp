// ETAD_EXPECT: etad: custom_gradient's gradient function returned a different number of gradients than the function has arguments
// A run-time custom gradient of two arguments whose gradient function returns three gradients:
// a count known at compile time, so a compile error.
#include <etad/etad.hpp>

#include <array>
#include <utility>

int main() {
  auto f = etad::custom_gradient([](const etad::real<>& a, const etad::real<>& b) {
    const double av = a.value(), bv = b.value();
#ifdef ETAD_SHOULD_FAIL
    auto grad = [av, bv](double d) { return std::array{d * bv, d * av, d}; };
#else
    auto grad = [av, bv](double d) { return std::array{d * bv, d * av}; };
#endif
    return std::pair{a * b, grad};
  });
  etad::tape t;
  const etad::real<> x = t.variable(3.0), y = t.variable(4.0);
  const etad::real<> z = f(x, y);
  // d(xy)/dx = y = 4, d/dy = x = 3.
  const auto g = t.gradient(z, x, y);
  return z.value() == 12.0 && g[0] == 4.0 && g[1] == 3.0 ? 0 : 1;
}
