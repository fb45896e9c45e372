// ETAD_EXPECT: etad: f returns M values, so vjp needs a seed of type std::array<T, M>
// vjp of an f with two outputs with a scalar seed instead of a std::array<double, 2>.
#include <etad/etad.hpp>

#include <array>
#include <tuple>

int main() {
  const auto f = [](auto x, auto y) { return std::tuple{x * y, x + y}; };
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::vjp(f, std::array{2.0, 3.0}, 1.0);
#else
  const auto r = etad::vjp(f, std::array{2.0, 3.0}, std::array{1.0, 0.0});
#endif
  return r.gradient[0] == 3.0 ? 0 : 1;
}
