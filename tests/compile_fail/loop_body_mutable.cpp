// ETAD_EXPECT: etad: a loop body must take the state and then each parameter given to the loop, as a generic lambda \(not mutable\)
// A mutable loop body: the loop node holds its body as const, so a mutable lambda (whose
// operator() is not const) cannot be called.
#include <etad/etad.hpp>

int main() {
  const auto r = etad::gradient(
      [](auto x, auto y) {
#ifdef ETAD_SHOULD_FAIL
        return etad::loop(3, [](auto t, auto y) mutable { return t * y; }, x, y);
#else
        return etad::loop(3, [](auto t, auto y) { return t * y; }, x, y);
#endif
      },
      2.0, 0.5);
  // x y^3 = 0.25; d/dx = y^3 = 0.125, d/dy = 3 x y^2 = 1.5.
  return r.value == 0.25 && r.gradient[0] == 0.125 && r.gradient[1] == 1.5 ? 0 : 1;
}
