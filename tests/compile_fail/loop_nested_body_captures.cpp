// ETAD_EXPECT: etad: a loop body used a value it did not get as a parameter
// A loop inside another loop's body, whose children are numbers only, captures the outer body's
// parameter a: its placeholder has the inner body's own level, so the level alone cannot tell;
// the owner its placeholder names (the outer body, not the inner) does.
#include <etad/etad.hpp>

int main() {
  const auto r = etad::gradient(
      [](auto x, auto a) {
        return etad::loop(
            2,
            [](auto s, auto a) {
#ifdef ETAD_SHOULD_FAIL
              return s + etad::loop(3, [a](auto u, auto c) { return u * a + c; }, 1.0, 2.0);
#else
              return s + etad::loop(3, [](auto u, auto a, auto c) { return u * a + c; }, 1.0, a, 2.0);
#endif
            },
            x, a);
      },
      0.5, 3.0);
  // s2 = x + 2 w with w = 27 + 2 (9 + 3 + 1) = 53 at a = 3.
  return r.value == 106.5 ? 0 : 1;
}
