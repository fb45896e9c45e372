// ETAD_EXPECT: etad: a loop body must take the state and then each parameter given to the loop
// The loop is given a parameter y that the body does not take.
#include <etad/etad.hpp>

int main() {
  const auto r = etad::gradient(
      [](auto x, auto y) {
#ifdef ETAD_SHOULD_FAIL
        return etad::loop(3, [](auto t) { return t * t; }, x, y);
#else
        return etad::loop(3, [](auto t, auto y) { return t * y; }, x, y);
#endif
      },
      2.0, 0.5);
  return r.value > 0 ? 0 : 1;
}
