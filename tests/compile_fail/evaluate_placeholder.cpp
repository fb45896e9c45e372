// ETAD_EXPECT: etad: evaluate\(\) needs an expression whose leaves have values
// evaluate() inside the function given to gradient: there x is a placeholder, which has no value
// until the sweep gives it one. (To use x's value without its gradient: stop_gradient.)
#include <etad/etad.hpp>

int main() {
  // f(x) = x * c with c = x^2 held constant: value x^3 = 8, derivative c = 4 at x = 2.
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](auto x) { return x * etad::evaluate(x * x); }, 2.0);
#else
  const auto r = etad::gradient([](auto x) { return x * etad::stop_gradient(x * x); }, 2.0);
#endif
  return r.value == 8.0 && r.gradient[0] == 4.0 ? 0 : 1;
}
