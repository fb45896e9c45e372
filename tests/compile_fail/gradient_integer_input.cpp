// ETAD_EXPECT: etad: every input must be a floating-point number
// gradient at an integer point: gradient(f, 2) instead of gradient(f, 2.0).
#include <etad/etad.hpp>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](auto x) { return x * x; }, 2);
#else
  const auto r = etad::gradient([](auto x) { return x * x; }, 2.0);
#endif
  return r.gradient[0] == 4.0 ? 0 : 1;
}
