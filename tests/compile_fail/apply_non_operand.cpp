// ETAD_EXPECT: etad: an argument of an op or rule is neither an etad expression nor a number
// A rule applied (with etad::apply) to a std::string, which is neither an expression nor a number.
// (Through an op_fn object, which calls etad::apply, the same call gives the same message.)
#include <etad/etad.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

/// 2x, with partial 2.
struct twice_op {
  static constexpr std::string_view name = "twice";
  static constexpr std::size_t arity = 1;
  static constexpr auto value(const auto& x) { return 2 * x; }
  static constexpr auto partials(const auto&, const auto&) { return std::array{2.0}; }
};

int main() {
#ifdef ETAD_SHOULD_FAIL
  const auto r = etad::apply(twice_op{}, std::string{"1.5"});
#else
  const auto r = etad::apply(twice_op{}, std::stod(std::string{"1.5"}));
#endif
  return r == 3.0 ? 0 : 1;
}
