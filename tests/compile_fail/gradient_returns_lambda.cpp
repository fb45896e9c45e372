// ETAD_EXPECT: etad: f returned something that is not an etad expression
// f returns a lambda (a function computing the expression) instead of the expression itself.
#include <etad/etad.hpp>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](auto x) { return [x] { return x * x; }; }, 2.0);
#else
  const auto r = etad::gradient([](auto x) { return [x] { return x * x; }(); }, 2.0);
#endif
  return r.gradient[0] == 4.0 ? 0 : 1;
}
