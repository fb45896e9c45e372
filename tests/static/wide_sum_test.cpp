// tests/static/wide_sum_test.cpp — a generated sum of 1000 terms, written as etad::sum over a
// pack (one node of 1000 children), compiles at the default template depth and bracket depth of
// both compilers, and etad::gradient differentiates it correctly. The expression is generated at
// build time by `tools/compile_time.py --emit 1000 --variant pack` (tests/CMakeLists.txt), the
// same generator whose compile times docs/compile-time.md reports.
#include <catch2/catch.hpp>
#include <etad/etad.hpp>

#include "support/generated_sum.hpp"

#include <array>
#include <cstddef>

namespace {

using namespace etad_test;

constexpr std::size_t terms = 1000;

etad::gradient_result<double, 3> wide(const double* c, double x0, double y0, double z0) {
  return etad::gradient(
      [c](auto x, auto y, auto z) {
        return
#include "wide_sum_1000.inc"
            ;
      },
      x0, y0, z0);
}

}  // namespace

TEST_CASE("static gradient of a 1000-term sum over a pack matches the term-by-term derivative",
          "[static][large]") {
  const auto c = coefficients<terms>();
  for (const std::array<double, 3>& in : {std::array{0.3, 0.5, 0.7}, std::array{0.9, 0.2, 0.45}}) {
    const auto got = wide(c.data(), in[0], in[1], in[2]);
    const auto want = reference(c, in);
    CHECK(got.value == Approx(want.value).epsilon(1e-12));
    for (std::size_t i = 0; i < 3; ++i) CHECK(got.gradient[i] == Approx(want.gradient[i]).epsilon(1e-12));
  }
}
