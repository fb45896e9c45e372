// ETAD_EXPECT: etad: a rule's gate\(\) returned a different number of flags than the rule has arguments
// A gated rule of two arguments whose gate() returns one flag: without the check the sweep would
// read past the array. The compiler's note names the rule and the counts.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>

/// a + b, where only a receives gradient.
struct first_only_op {
  static constexpr std::size_t arity = 2;
  static constexpr bool gated = true;
  static constexpr auto value(const auto& a, const auto& b) { return a + b; }
  static constexpr auto partials(const auto&, const auto&, const auto&) { return std::array{1.0, 1.0}; }
#ifdef ETAD_SHOULD_FAIL
  static constexpr auto gate(const auto&, const auto&, const auto&) { return std::array{true}; }
#else
  static constexpr auto gate(const auto&, const auto&, const auto&) { return std::array{true, false}; }
#endif
};
inline constexpr etad::op_fn<first_only_op> first_only{};

int main() {
  const auto r = etad::gradient([](auto x, auto y) { return first_only(x, y); }, 1.0, 2.0);
  return r.gradient[0] == 1.0 && r.gradient[1] == 0.0 ? 0 : 1;
}
