// ETAD_EXPECT: etad: f cannot be called with one etad placeholder per input
// f takes a double and a std::string, so it cannot be called with etad's placeholders.
#include <etad/etad.hpp>

#include <string>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](double x, std::string) { return x * x; }, 2.0, 1.0);
#else
  const auto r = etad::gradient([](auto x, auto) { return x * x; }, 2.0, 1.0);
#endif
  return r.gradient[0] == 4.0 ? 0 : 1;
}
