// ETAD_EXPECT: etad: a loop body returned a comparison, which is not a state
// The body returns t < y (a bool) instead of a number.
#include <etad/etad.hpp>

int main() {
  const auto r = etad::gradient(
      [](auto x, auto y) {
#ifdef ETAD_SHOULD_FAIL
        return etad::loop(3, [](auto t, auto y) { return t < y; }, x, y);
#else
        return etad::loop(3, [](auto t, auto y) { return etad::select(t < y, t * 2.0, t); }, x, y);
#endif
      },
      0.5, 3.0);
  return r.value == 4.0 ? 0 : 1;
}
