// ETAD_EXPECT: etad: an `if` or loop condition on the inputs that gradient\(\), jvp\(\) or jacobian\(\) trace f with has no value
// ETAD_EXPECT_FIRST_ERROR
// `if (x > 0)` on an input of a function given to etad::gradient: the comparison is an
// expression of placeholders, with no value while f is traced. The first error used to be
// "evaluate() needs an expression whose leaves have values", about a function the user never
// called, with nothing pointing to select or the tape. The correct form: etad::select, and the
// same branch on an etad::tape, where it works on values. f(x) = x^2 for x > 0, else -x.
#include <etad/etad.hpp>

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto g = etad::gradient(
      [](auto x) {
        auto y = x * 1.0;
        if (x > 0) y = y * 2.0;
        return y;
      },
      1.5);
  return g.gradient[0] == 2.0 ? 0 : 1;
#else
  const auto g = etad::gradient([](auto x) { return etad::select(x > 0, x * x, -x); }, 1.5);
  etad::tape t;
  etad::real x = t.variable(1.5);
  etad::real y = x > 0 ? etad::real(x * x) : etad::real(-x);
  return g.gradient[0] == 3.0 && t.gradient(y, x)[0] == 3.0 ? 0 : 1;
#endif
}
