// ETAD_EXPECT: etad: gradient needs f to return one value
// gradient of an f with two outputs (that is jacobian's job).
#include <etad/etad.hpp>

#include <tuple>

int main() {
  const auto f = [](auto x, auto y) { return std::tuple{x * y, x + y}; };
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient(f, 2.0, 3.0);
  return r.gradient[0] == 3.0 ? 0 : 1;
#else
  const auto r = etad::jacobian(f, 2.0, 3.0);
  return r.jacobian[0][0] == 3.0 ? 0 : 1;
#endif
}
