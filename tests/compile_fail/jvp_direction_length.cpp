// ETAD_EXPECT: etad: jvp's direction v has a different length than the point x
// jvp with a direction shorter than the point (one tangent missing).
#include <etad/etad.hpp>

#include <array>

int main() {
  const auto f = [](auto x, auto y) { return x * y; };
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::jvp(f, std::array{2.0, 3.0}, std::array{1.0});
#else
  const auto r = etad::jvp(f, std::array{2.0, 3.0}, std::array{1.0, 0.0});
#endif
  return r.tangent == 3.0 ? 0 : 1;  // d(xy)/dx = y
}
