// ETAD_EXPECT: etad: dot\(\) of two packs of different lengths
// The static dot() of two packs pairs their elements: the packs must have one length.
#include <etad/etad.hpp>

#include <array>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient(
      [](const auto& x) { return dot(x, etad::pack(get<1>(x), get<0>(x), get<0>(x))); },
      std::array{2.0, 3.0});
#else
  const auto r = etad::gradient([](const auto& x) { return dot(x, etad::pack(get<1>(x), get<0>(x))); },
                                std::array{2.0, 3.0});
#endif
  // x0 x1 + x1 x0 = 2 x0 x1 at (2, 3): value 12, gradient (6, 4).
  return r.value == 12.0 && r.gradient[0] == 6.0 && r.gradient[1] == 4.0 ? 0 : 1;
}
