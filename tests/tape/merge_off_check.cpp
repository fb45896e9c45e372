// ETAD_MERGE_REPEATED_INPUTS=0: one partial per leaf occurrence, even where the optimizer proves
// two leaves one real (compare tape/merge_test.cpp). Built into etad_outline_tests, whose
// configuration macros differ from the main test executable's (tests/CMakeLists.txt), with -O3
// so that merging would happen if it were on.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include <cmath>

#if ETAD_MERGE_REPEATED_INPUTS
#  error "this file is built with ETAD_MERGE_REPEATED_INPUTS=0"
#endif

TEST_CASE("tape merge off: ETAD_MERGE_REPEATED_INPUTS=0 keeps one partial per occurrence", "[tape][merge]") {
  etad::tape tape;
  const etad::real<double> t = tape.variable(0.75);
  const etad::real<double> s = t * t;
  CHECK(tape.partials() == 2);
  const etad::real<double> u = tape.variable(0.4);
  const etad::real<double> b = sin(t) * cos(u * t);
  CHECK(tape.partials() == 2 + 3);
  const auto g = tape.gradient(b, t, u);
  CHECK(g[0] == Approx(std::cos(0.75) * std::cos(0.3) - std::sin(0.75) * std::sin(0.3) * 0.4)
                    .epsilon(1e-15));
  CHECK(g[1] == Approx(-std::sin(0.75) * std::sin(0.3) * 0.75).epsilon(1e-15));
  CHECK(s.value() == 0.5625);
}
