// tests/core/fused_rule_test.cpp — fused rules (core/rule.hpp: value_and_partials in one call),
// the mechanism of etad::loop, tested with a mock whose derivatives are exact: every sweep (reverse,
// tangent, the tape's statement) takes the partials from the one call of the forward sweep.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace fused_rule_test {

inline int fused_calls = 0;
/// x y + x, value and partials (y + 1, x) in one call, counted.
struct fused_mock_op {
  static constexpr std::string_view name = "fused_mock";
  static constexpr std::size_t arity = 2;
  static constexpr bool fused = true;
  static constexpr auto value(const auto& x, const auto& y) { return x * y + x; }
  template <class S>
  static auto value_and_partials(const S& x, const S& y) {
    ++fused_calls;
    struct {
      S value;
      std::array<S, 2> partials;
    } r{x * y + x, {y + 1, x}};
    return r;
  }
};
inline constexpr etad::op_fn<fused_mock_op> fused_mock{};

TEST_CASE("fused rule: value and partials come from one call per node, in every sweep",
          "[core][rule]") {
  fused_calls = 0;
  // Input-only children: a fused node is still not shared, and is computed once per occurrence.
  const auto r = etad::gradient([](auto x, auto y) { return fused_mock(x, y) * 3; }, 2.0, 5.0);
  CHECK(fused_calls == 1);
  CHECK(r.value == 36.0);
  CHECK(r.gradient == std::array{18.0, 6.0});
  fused_calls = 0;
  const auto j = etad::jvp([](auto x, auto y) { return fused_mock(x, y); }, std::array{2.0, 5.0},
                           std::array{1.0, 10.0});
  CHECK(fused_calls == 1);
  CHECK(j.tangent == 6.0 + 20.0);
  fused_calls = 0;
  etad::tape t;
  const etad::real<double> x = t.variable(2.0), y = t.variable(5.0);
  const etad::real<double> z = fused_mock(x, y);
  CHECK(fused_calls == 1);
  CHECK(t.gradient(z, x, y) == std::array{6.0, 2.0});
  // Two occurrences over the same inputs: never a shared slot (the partials live in the frame),
  // so one call per occurrence.
  fused_calls = 0;
  const auto twice =
      etad::gradient([](auto x, auto y) { return fused_mock(x, y) + fused_mock(x, y); }, 2.0, 5.0);
  CHECK(fused_calls == 2);
  CHECK(twice.value == 24.0);
  CHECK(twice.gradient == std::array{12.0, 4.0});
  // On numbers only, value().
  fused_calls = 0;
  CHECK(fused_mock(2.0, 5.0) == 12.0);
  CHECK(fused_calls == 0);
}

}  // namespace fused_rule_test
