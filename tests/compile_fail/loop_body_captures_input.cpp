// ETAD_EXPECT: etad: a loop body used a value it did not get as a parameter
// The body captures y, an argument of the enclosing function, instead of taking it as a
// parameter: traced on its own, it would mistake y for one of its own inputs.
#include <etad/etad.hpp>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient(
      [](auto x, auto y) { return etad::loop(3, [y](auto t) { return t * y; }, x); }, 2.0, 0.5);
#else
  const auto r = etad::gradient(
      [](auto x, auto y) { return etad::loop(3, [](auto t, auto y) { return t * y; }, x, y); },
      2.0, 0.5);
#endif
  return r.gradient[0] == 0.125 ? 0 : 1;
}
