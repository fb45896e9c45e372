// ETAD_EXPECT: etad: f returned a comparison, which has no gradient
// f returns x > y (bool-valued): there is nothing to differentiate.
#include <etad/etad.hpp>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](auto x, auto y) { return x > y; }, 2.0, 1.0);
#else
  const auto r = etad::gradient([](auto x, auto y) { return etad::select(x > y, x, y); }, 2.0, 1.0);
#endif
  return r.gradient[0] == 1.0 ? 0 : 1;
}
