// ETAD_EXPECT: etad: a rule.s partials\(\) returned a different number of partials than the rule has arguments
// ETAD_EXPECT_FIRST_ERROR
// A custom rule of 2 arguments whose partials() returns 1 partial. The sweeps took std::get<1>
// of it, and g++ reported libstdc++'s "array index is within bounds" before etad's sentence; the
// sentence is now the first (and with clang++ the only) error. The correct form: x y with
// partials (y, x), on the tape and in the static layer.
#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <string_view>

struct times_op {
  static constexpr std::string_view name = "times";
  static constexpr std::size_t arity = 2;
  static constexpr auto value(const auto& x, const auto& y) { return x * y; }
#ifdef ETAD_SHOULD_FAIL
  static constexpr auto partials(const auto&, const auto&, const auto& y) { return std::array{y}; }
#else
  static constexpr auto partials(const auto& x, const auto& y, const auto&) {
    return std::array{y, x};
  }
#endif
};
inline constexpr etad::op_fn<times_op> times{};

int main() {
  etad::tape t;
  etad::real x = t.variable(3.0), y = t.variable(2.0);
  etad::real z = times(x, y);
  const auto [gx, gy] = t.gradient(z, x, y);
  const auto s = etad::gradient([](auto a, auto b) { return times(a, b); }, 3.0, 2.0);
  return gx == 2.0 && gy == 3.0 && s.gradient[0] == 2.0 && s.gradient[1] == 3.0 ? 0 : 1;
}
