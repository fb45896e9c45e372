// ETAD_EXPECT: etad: a fused rule has no value_and_partials\(\) callable with its argument values
// A rule that declares `fused` but defines no value_and_partials(): before this check, g++
// reported "has no member named 'value_and_partials'" and follow-on errors from the sweep.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>

struct triple_op {
  static constexpr std::size_t arity = 1;
  static constexpr bool fused = true;
  static constexpr double value(double x) { return 3 * x; }
#ifndef ETAD_SHOULD_FAIL
  struct result {
    double value;
    std::array<double, 1> partials;
  };
  static constexpr result value_and_partials(double x) { return {3 * x, {3.0}}; }
#endif
};
inline constexpr etad::op_fn<triple_op> triple{};

int main() {
  const auto r = etad::gradient([](auto x) { return triple(x); }, 2.0);
  return r.gradient[0] == 3.0 ? 0 : 1;
}
