// ETAD_EXPECT: etad: custom_gradient's gradient function cannot be called with the upstream gradients
// A function of two outputs whose gradient function takes one upstream gradient: it must take
// one per output.
#include <etad/etad.hpp>

#include <tuple>
#include <utility>

int main() {
  auto f = etad::custom_gradient([](const etad::real<>& a) {
#ifdef ETAD_SHOULD_FAIL
    auto grad = [](double d1) { return d1; };
#else
    auto grad = [](double d1, double d2) { return d1 + 2 * d2; };
#endif
    return std::pair{std::tuple{a + 0.0, 2 * a}, grad};
  });
  etad::tape t;
  const etad::real<> x = t.variable(3.0);
  const auto [y1, y2] = f(x);
  const etad::real<> z = y1 + y2;
  // z = x + 2x: the gradient function gives 1 + 2 = 3.
  return z.value() == 9.0 && t.gradient(z, x)[0] == 3.0 ? 0 : 1;
}
