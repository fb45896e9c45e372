// ETAD_EXPECT: etad: a rule's partials\(\) returned something that is not a std::array or std::tuple
// A rule of one argument whose partials() returns its one partial as a lone number, not in a
// std::array: before this check, g++ reported `no matching function for call to get<0>(const
// double&)` and a page of candidates from inside the sweep.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>

/// 2x, with partial 2.
struct twice_op {
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return 2 * x; }
#ifdef ETAD_SHOULD_FAIL
  static constexpr auto partials(const auto&, const auto&) { return 2.0; }
#else
  static constexpr auto partials(const auto&, const auto&) { return std::array{2.0}; }
#endif
};
inline constexpr etad::op_fn<twice_op> twice{};

int main() {
  // d/dx (2x * x) = 4x = 4 at x = 1.
  const auto r = etad::gradient([](auto x) { return twice(x) * x; }, 1.0);
  return r.gradient[0] == 4.0 ? 0 : 1;
}
