// ETAD_EXPECT: etad: a rule holds a real \(an etad::real member, or a constructor parameter\)
// A rule with a constructor (not an aggregate, so its private members cannot be seen) that takes
// a real c and keeps its value: x + c computed so gave c the gradient 0 instead of 1 without a
// word, since only a rule's arguments are differentiated. The correct form takes c as an
// argument.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

class offset_op {
 public:
  static constexpr std::string_view name = "offset";
#ifdef ETAD_SHOULD_FAIL
  static constexpr std::size_t arity = 1;
  explicit offset_op(const etad::real<double>& c) : c_(c.value()) {}
  auto value(const auto& x) const { return x + c_; }
  auto partials(const auto& x, const auto&) const {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{T(1)};
  }

 private:
  double c_;
#else
  static constexpr std::size_t arity = 2;
  offset_op() = default;  // a constructor, as above: not an aggregate
  static auto value(const auto& x, const auto& c) { return x + c; }
  static auto partials(const auto& x, const auto&, const auto&) {
    using T = std::remove_cvref_t<decltype(x)>;
    return std::array{T(1), T(1)};
  }
#endif
};

int main() {
  etad::tape t{etad::persistent};
  const etad::real<double> x = t.variable(3.0), c = t.variable(4.0);
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> z = etad::apply(offset_op{c}, x);
#else
  const etad::real<double> z = etad::apply(offset_op{}, x, c);
#endif
  // z = x + c = 7; d/dx = d/dc = 1.
  const auto g = t.gradient(z, x, c);
  return z.value() == 7.0 && g[0] == 1.0 && g[1] == 1.0 ? 0 : 1;
}
