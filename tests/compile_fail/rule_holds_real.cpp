// ETAD_EXPECT: etad: a rule holds a real \(an etad::real member, or a constructor parameter\)
// A rule that keeps a real s as a data member and scales its argument by s's value: applied to
// the tape's x it computed s x, but only a rule's arguments are differentiated, so s got the
// gradient 0 instead of x without a word. The correct form passes s as an argument.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <string_view>

#ifdef ETAD_SHOULD_FAIL
struct scaled_op {
  static constexpr std::string_view name = "scaled";
  static constexpr std::size_t arity = 1;
  etad::real<double> s;
  auto value(const auto& x) const { return s.value() * x; }
  auto partials(const auto&, const auto&) const { return std::array{s.value()}; }
};
#else
struct scaled_op {
  static constexpr std::string_view name = "scaled";
  static constexpr std::size_t arity = 2;
  static auto value(const auto& s, const auto& x) { return s * x; }
  static auto partials(const auto& s, const auto& x, const auto&) { return std::array{x, s}; }
};
#endif

int main() {
  etad::tape t{etad::persistent};
  const etad::real<double> s = t.variable(2.0), x = t.variable(3.0);
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> z = etad::op_fn<scaled_op>{{s}}(x);
#else
  const etad::real<double> z = etad::op_fn<scaled_op>{}(s, x);
#endif
  // z = s x = 6; d/ds = x = 3, d/dx = s = 2.
  const auto g = t.gradient(z, s, x);
  return z.value() == 6.0 && g[0] == 3.0 && g[1] == 2.0 ? 0 : 1;
}
