// ETAD_EXPECT: etad: no inputs were given to differentiate with respect to
// gradient with f but no point to differentiate at.
#include <etad/etad.hpp>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([]() { return 1.0; });
#else
  const auto r = etad::gradient([](auto x) { return x * 1.0; }, 2.0);
#endif
  return r.gradient[0] == 1.0 ? 0 : 1;
}
