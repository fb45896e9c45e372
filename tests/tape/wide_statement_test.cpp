// tests/tape/wide_statement_test.cpp — a statement of more reals than a fold may expand: the
// tape's leaf counts must not fold over a node's children (clang's limit is 256 operands).
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace {
using real = etad::real<double>;

// The weight of term i: -3 .. 3, cycling.
constexpr double weight(std::size_t i) { return double(i % 7) - 3.0; }

template <std::size_t... I>
real weighted_sum(const std::vector<real>& x, std::index_sequence<I...>) {
  return sum(etad::pack(weight(I) * x[I]...));
}
}  // namespace

TEST_CASE("tape: one statement of 300 reals (a pack wider than clang's fold limit)", "[tape][wide]") {
  constexpr std::size_t n = 300;
  etad::tape t;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.01 * double(i);
  const std::vector<real> x = t.variables(v);
  const std::size_t p0 = t.partials();
  const real s = weighted_sum(x, std::make_index_sequence<n>{});
  CHECK(t.partials() - p0 == n);  // one statement, one partial per real
  double expected = 0;
  for (std::size_t i = 0; i < n; ++i) expected += weight(i) * v[i];
  CHECK(s.value() == Approx(expected).epsilon(1e-14));
  std::vector<double> g(n);
  t.gradient(s, x, g);
  for (std::size_t i = 0; i < n; ++i) {
    INFO("input " << i);
    CHECK(g[i] == weight(i));
  }
}
