// ETAD_EXPECT: etad: vjp takes the point as a std::array
// vjp of a one-input function with the point written as a plain number.
#include <etad/etad.hpp>

#include <array>

int main() {
  const auto f = [](auto x) { return x * x; };
#ifdef ETAD_SHOULD_FAIL
  etad::vjp(f, 2.0, 1.0);
  return 1;
#else
  const auto r = etad::vjp(f, std::array{2.0}, 3.0);
  return r.gradient[0] == 12.0 ? 0 : 1;  // 3 * 2x at 2
#endif
}
