// ETAD_EXPECT: etad: f returned something that is not an etad expression
// f returns a std::string, not an expression.
#include <etad/etad.hpp>

#include <string>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](auto) { return std::string{"x * x"}; }, 2.0);
#else
  const auto r = etad::gradient([](auto x) { return x * x; }, 2.0);
#endif
  return r.gradient[0] == 4.0 ? 0 : 1;
}
