// ETAD_EXPECT: etad: a gated rule has no gate\(\) callable with its argument values and its value f
// A rule that declares `gated` but defines no gate(): before this check, g++ reported "has no
// member named 'gate'" and follow-on errors from inside the sweep.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>

/// a + b, where only a receives gradient.
struct first_only_op {
  static constexpr std::size_t arity = 2;
  static constexpr bool gated = true;
  static constexpr auto value(const auto& a, const auto& b) { return a + b; }
  static constexpr auto partials(const auto&, const auto&, const auto&) { return std::array{1.0, 1.0}; }
#ifndef ETAD_SHOULD_FAIL
  static constexpr auto gate(const auto&, const auto&, const auto&) { return std::array{true, false}; }
#endif
};
inline constexpr etad::op_fn<first_only_op> first_only{};

int main() {
  const auto r = etad::gradient([](auto x, auto y) { return first_only(x, y); }, 1.0, 2.0);
  return r.gradient[0] == 1.0 && r.gradient[1] == 0.0 ? 0 : 1;
}
