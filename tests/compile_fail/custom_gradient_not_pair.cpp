// ETAD_EXPECT: etad: custom_gradient's function must return its value\(s\) and its gradient function as a pair
// A run-time custom gradient whose function returns its value alone, without the gradient
// function.
#include <etad/etad.hpp>

#include <utility>

int main() {
  auto f = etad::custom_gradient([](const etad::real<>& a) {
#ifdef ETAD_SHOULD_FAIL
    return etad::real<>(a * a);
#else
    const double av = a.value();
    return std::pair{a * a, [av](double d) { return 2 * av * d; }};
#endif
  });
  etad::tape t;
  const etad::real<> x = t.variable(3.0);
  const etad::real<> y = f(x);
  // x^2 = 9, derivative 2x = 6.
  return y.value() == 9.0 && t.gradient(y, x)[0] == 6.0 ? 0 : 1;
}
