// ETAD_EXPECT: etad: a while_loop condition .*callable as const \(not a mutable lambda\)
// A mutable while_loop condition: the loop node holds its condition as const, so a mutable
// lambda's operator() cannot be called. It captures something, as a mutable lambda that keeps
// state would: a mutable lambda that captures nothing converts to a function pointer, which
// can be called, and compiles.
#include <etad/etad.hpp>

int main() {
  const auto r = etad::gradient(
      [](auto x, auto y) {
        return etad::while_loop(
#ifdef ETAD_SHOULD_FAIL
            [limit = 100.0](double s, double) mutable { return s < limit; },
#else
            [limit = 100.0](double s, double) { return s < limit; },
#endif
            [](auto s, auto y) { return s * y; }, x, y);
      },
      2.0, 3.0);
  // 2 -> 6 -> 18 -> 54 -> 162: four iterations, x y^4; d/dx = y^4 = 81, d/dy = 4 x y^3 = 216.
  return r.value == 162.0 && r.gradient[0] == 81.0 && r.gradient[1] == 216.0 ? 0 : 1;
}
