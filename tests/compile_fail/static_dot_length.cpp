// ETAD_EXPECT: etad: dot\(\) of a pack and an array of coefficients of different lengths
// The static dot() takes one coefficient per element of the pack, in either order.
#include <etad/etad.hpp>

#include <array>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](const auto& x) { return dot(x, std::array{1.0, 2.0, 3.0}); },
                                std::array{2.0, 3.0});
#else
  const auto r = etad::gradient([](const auto& x) { return dot(std::array{1.0, 2.0}, x); },
                                std::array{2.0, 3.0});
#endif
  return r.value == 8.0 && r.gradient[0] == 1.0 && r.gradient[1] == 2.0 ? 0 : 1;
}
