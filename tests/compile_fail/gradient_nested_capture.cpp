// ETAD_EXPECT: etad: f used a value it did not get as an argument
// A gradient taken inside another gradient's f, of a function that captured the outer f's
// input x: traced with placeholders of the same kind, x counted as the inner function's own
// input (x * y became y * y) and the result was silently wrong (value 6, gradient 2 at x = 3).
#include <etad/etad.hpp>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto f = [](auto x) {
    const auto inner = etad::gradient([&](auto y) { return x * y; }, 1.0);
    return x * inner.gradient[0];
  };
#else
  // An inner gradient of a function of its own inputs only is a number: d/dy (2 y) = 2.
  const auto f = [](auto x) {
    const auto inner = etad::gradient([](auto y) { return 2.0 * y; }, 1.0);
    return x * x * inner.gradient[0];
  };
#endif
  const auto r = etad::gradient(f, 3.0);
  return r.value == 18.0 && r.gradient[0] == 12.0 ? 0 : 1;
}
