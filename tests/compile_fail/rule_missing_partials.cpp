// ETAD_EXPECT: etad: a differentiable rule has no partials\(\) callable with its argument values
// A custom rule with a value() but no partials(), used in a gradient. The fix the message names:
// add partials(), or declare the rule not differentiable (its gradient is then zero).
#include <etad/etad.hpp>

#include <cstddef>

/// The identity, written without a derivative rule.
struct same_op {
  static constexpr std::size_t arity = 1;
#ifndef ETAD_SHOULD_FAIL
  static constexpr bool differentiable = false;
#endif
  static constexpr auto value(const auto& x) { return x; }
};
inline constexpr etad::op_fn<same_op> same{};

int main() {
  const auto r = etad::gradient([](auto x) { return same(x) + x; }, 1.0);
  return r.gradient[0] == 1.0 ? 0 : 1;
}
