// ETAD_EXPECT: etad: f returns one value, so vjp needs a scalar seed
// vjp of a scalar f with a seed that is not a number (here a std::array, as for several outputs).
#include <etad/etad.hpp>

#include <array>

int main() {
  const auto f = [](auto x, auto y) { return x * y; };
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::vjp(f, std::array{2.0, 3.0}, std::array{1.0});
#else
  const auto r = etad::vjp(f, std::array{2.0, 3.0}, 1.0);
#endif
  return r.gradient[0] == 3.0 ? 0 : 1;
}
