// ETAD_EXPECT: etad: a fused rule cannot be gated or a product rule
// A fused rule (value and partials from one call) that also declares a gate: the sweep keeps a
// fused rule's partials from its forward sweep and has no gate to apply to them.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <string_view>

struct fused_op {
  static constexpr std::string_view name = "fused";
  static constexpr std::size_t arity = 1;
  static constexpr bool fused = true;
#ifdef ETAD_SHOULD_FAIL
  static constexpr bool gated = true;
  static constexpr std::array<bool, 1> gate(double, double) { return {true}; }
#endif
  static constexpr double value(double x) { return 3 * x; }
  struct result {
    double value;
    std::array<double, 1> partials;
  };
  static constexpr result value_and_partials(double x) { return {3 * x, {3.0}}; }
};
inline constexpr etad::op_fn<fused_op> fused{};

int main() {
  const auto r = etad::gradient([](auto x) { return fused(x); }, 2.0);
  return r.gradient[0] == 3.0 ? 0 : 1;
}
