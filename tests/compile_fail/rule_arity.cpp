// ETAD_EXPECT: etad: a rule was applied to a different number of arguments than its arity
// A rule of arity 1 applied to two arguments.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <string_view>

/// 2x, with partial 2.
struct twice_op {
  static constexpr std::string_view name = "twice";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return 2 * x; }
  static constexpr auto partials(const auto&, const auto&) { return std::array{2.0}; }
};
inline constexpr etad::op_fn<twice_op> twice{};

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::gradient([](auto x, auto y) { return twice(x, y); }, 1.0, 2.0);
#else
  const auto r = etad::gradient([](auto x, auto y) { return twice(x) * y; }, 1.0, 2.0);
#endif
  return r.gradient[0] == 4.0 ? 0 : 1;
}
