// ETAD_EXPECT: etad: a rule's partials\(\) returned a different number of partials than the rule has arguments
// A custom rule whose partials() returns 2 partials for its 1 argument. Caught when a sweep first
// calls partials(); the compiler's note names the rule and the counts
// (rule_returns_one_partial_per_argument<twice_op, 2, 1>).
#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <string_view>

/// 2x, with partial 2.
struct twice_op {
  static constexpr std::string_view name = "twice";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return 2 * x; }
#ifdef ETAD_SHOULD_FAIL
  static constexpr auto partials(const auto&, const auto&) { return std::array{2.0, 0.0}; }
#else
  static constexpr auto partials(const auto&, const auto&) { return std::array{2.0}; }
#endif
};
inline constexpr etad::op_fn<twice_op> twice{};

int main() {
  const auto r = etad::gradient([](auto x) { return twice(x); }, 1.0);
  return r.gradient[0] == 2.0 ? 0 : 1;
}
