// ETAD_EXPECT: etad: a while_loop condition must take the values of the state and of each parameter
// The condition takes the state only, not the parameter y.
#include <etad/etad.hpp>

int main() {
  const auto r = etad::gradient(
      [](auto x, auto y) {
        return etad::while_loop(
#ifdef ETAD_SHOULD_FAIL
            [](double s) { return s < 100; },
#else
            [](double s, double) { return s < 100; },
#endif
            [](auto s, auto y) { return s * y; }, x, y);
      },
      2.0, 3.0);
  return r.value == 162.0 ? 0 : 1;
}
