// ETAD_EXPECT: etad: a pack of placeholders has no operator\[\]
// gradient(f, std::array) hands f one pack of placeholders; its elements are get<I>(x), each of
// a type of its own, so x[0] cannot work.
#include <etad/etad.hpp>

#include <array>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](const auto& x) { return x[0] * x[1]; }, std::array{2.0, 3.0});
#else
  const auto r = etad::gradient([](const auto& x) { return get<0>(x) * get<1>(x); },
                                std::array{2.0, 3.0});
#endif
  return r.gradient[0] == 3.0 && r.gradient[1] == 2.0 ? 0 : 1;
}
