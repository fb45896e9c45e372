// ETAD_EXPECT: etad: a product rule cannot be gated; drop `product` or `gated`
// A product rule (its value the product of its arguments) that also declares a gate: the static
// sweep merges a product tree's repeated factors (x * x gets ONE partial, 2 x) and has no place
// to apply a gate to the merged partial. The rule is rejected wherever it is applied, here to
// two different inputs (no repeated factor), not only where a factor repeats.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <string_view>

struct times_op {
  static constexpr std::string_view name = "times";
  static constexpr std::size_t arity = 2;
  static constexpr bool product = true;
#ifdef ETAD_SHOULD_FAIL
  static constexpr bool gated = true;
  static constexpr std::array<bool, 2> gate(double, double, double) { return {true, true}; }
#endif
  template <class A, class B>
  static constexpr auto value(const A& a, const B& b) {
    return a * b;
  }
  template <class A, class B, class F>
  static constexpr auto partials(const A& a, const B& b, const F&) {
    return std::array{b, a};
  }
};
inline constexpr etad::op_fn<times_op> times{};

int main() {
  // d/dx x y = y = 2, d/dy x y = x = 3 at (3, 2).
  const auto r = etad::gradient([](auto x, auto y) { return times(x, y); }, 3.0, 2.0);
  return r.value == 6.0 && r.gradient[0] == 2.0 && r.gradient[1] == 3.0 ? 0 : 1;
}
