// ETAD_EXPECT: etad: a product rule cannot be gated; drop `product` or `gated`
// A product rule (its value the product of its arguments) that also declares a gate: the static
// sweep merges a product tree's repeated factors (x * x gets ONE partial, 2 x) and has no place
// to apply a gate to the merged partial.
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
  // x * x repeats the input-only factor x, so the sweep merges it: d/dx x^2 = 2 x = 6 at x = 3.
  const auto r = etad::gradient([](auto x) { return times(x, x); }, 3.0);
  return r.value == 9.0 && r.gradient[0] == 6.0 ? 0 : 1;
}
