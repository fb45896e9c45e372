// ETAD_EXPECT: etad: a loop body must return one value, the next state
// The body returns two values: a loop's state is one scalar.
#include <etad/etad.hpp>

#include <tuple>

int main() {
  const auto r = etad::gradient(
      [](auto x) {
#ifdef ETAD_SHOULD_FAIL
        return etad::loop(3, [](auto t) { return std::tuple{t * t, t}; }, x);
#else
        return etad::loop(3, [](auto t) { return t * t; }, x);
#endif
      },
      1.5);
  return r.value > 0 ? 0 : 1;
}
