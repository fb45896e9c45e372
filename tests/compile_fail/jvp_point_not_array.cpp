// ETAD_EXPECT: etad: jvp takes the point and the direction as std::arrays of the same length
// jvp of a one-input function with the point and direction written as plain numbers.
#include <etad/etad.hpp>

#include <array>

int main() {
  const auto f = [](auto x) { return x * x; };
#ifdef ETAD_SHOULD_FAIL
  etad::jvp(f, 2.0, 1.0);
  return 1;
#else
  const auto r = etad::jvp(f, std::array{2.0}, std::array{1.0});
  return r.tangent == 4.0 ? 0 : 1;  // 2x at 2
#endif
}
