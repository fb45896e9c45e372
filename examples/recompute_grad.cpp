// examples/recompute_grad.cpp — TensorFlow's recompute_grad example: a function applied four
// times keeps only its inputs on the tape and runs again in the backward sweep (it prints
// "running" each time it runs); without recompute_grad it runs four times and no more.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <ostream>
#include <sstream>

namespace {

void recompute_example(std::ostream& out, bool recompute) {
  etad::tape t;
  etad::real y = t.variable(1.0);                  // a variable that f reads (TF's tf.Variable)
  auto f = [&](const etad::real<>& x) {
    out << "running\n";
    return etad::real(x * y);
  };
  auto g = etad::recompute_grad(f);                // the same values; only f's inputs kept
  etad::real r = 1.0;
  for (int i = 0; i < 4; ++i) r = recompute ? g(r) : f(r);
  out << "gradient\n";
  auto [dy] = t.gradient(r, y);                    // runs f again, once per call of g
  out << "dr/dy = " << dy << '\n';
}

}  // namespace

TEST_CASE("example: TensorFlow's recompute_grad, f run again in the backward sweep") {
  std::ostringstream with, without;
  recompute_example(with, true);
  recompute_example(without, false);
  CHECK(with.str() ==
        "running\nrunning\nrunning\nrunning\n"
        "gradient\n"
        "running\nrunning\nrunning\nrunning\n"
        "dr/dy = 4\n");
  CHECK(without.str() == "running\nrunning\nrunning\nrunning\ngradient\ndr/dy = 4\n");
}
