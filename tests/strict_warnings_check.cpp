// tests/strict_warnings_check.cpp — the umbrella header, and a spread of its templates
// instantiated, compile without a warning under -Wshadow and -Wconversion (with -Werror: see
// tests/CMakeLists.txt), so that a project built with them can include etad. A template's body is
// only checked once instantiated, so this program uses each layer: static gradients, jvp and
// jacobians, loops, the tape's scalar statements, call, the vector statements over ranges and
// blocks, map_sum, and the callback entries. It also runs, and checks a few results.
#include <etad/etad.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <span>
#include <utility>
#include <vector>

namespace {

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("strict_warnings_check: %s\n", what);
    ++failures;
  }
}

void static_layer() {
  const auto f = [](auto x, auto y) { return etad::sin(x) * y + etad::exp(x * y) / (1 + y * y); };
  const auto g = etad::gradient(f, 0.5, 2.0);
  const auto gf = etad::gradient(f, 0.5f, 2.0f);
  const auto j = etad::jvp(f, std::array{0.5, 2.0}, std::array{1.0, 0.0});
  expect(std::abs(j.tangent - g.gradient[0]) < 1e-12, "jvp and gradient agree");
  expect(std::abs(double(gf.gradient[0]) - g.gradient[0]) < 1e-4, "float and double agree");
  const auto l = etad::gradient(
      [](auto x, auto w) { return etad::loop(8, [](auto s, auto a) { return s * a + 1; }, x, w); },
      1.0, 0.5);
  expect(std::isfinite(l.gradient[1]), "loop gradient is finite");
}

void tape_layer() {
  etad::tape t{etad::persistent};
  etad::real x = t.variable(0.5), y = t.variable(2.0);
  etad::real z = etad::call([](auto a, auto b) { return etad::sin(a) * b; }, x, y);
  etad::real w = etad::pow(z, 2) + etad::log1p(x * x) + etad::hypot(x, y);
  const std::vector<double> values{0.5, -1.0, 2.0, 3.0};
  const std::vector<etad::real<>> v = t.variables(values);
  auto block = t.variable_block(values);
  etad::real s = etad::sum(v) + etad::dot(v, values) + etad::log_sum_exp(block) +
                 etad::squared_norm(block) + etad::mean(v);
  etad::real m = etad::map_sum([](auto a, auto b) { return a * b; }, v, values);
  // A range whose allocation the compiler can see is shorter than the 4-lane loops (g++ 12's
  // -Warray-bounds false positive, silenced in reduce.hpp).
  const std::vector<etad::real<>> two{x, y};
  s = s + etad::sum(two) + etad::log_sum_exp(two);
  const auto [gx, gy] = t.gradient(w, x, y);
  expect(std::isfinite(gx) && std::isfinite(gy), "tape gradient is finite");
  const auto gs = t.gradients(std::vector{s, m}, v);
  expect(gs.size() == v.size(), "one gradient per source");
}

void callback_layer() {
  etad::tape t;
  etad::real x = t.variable(0.5), p = t.variable(1.5);
  auto clipped = etad::custom_gradient([](const etad::real<>& a) {
    return std::pair{etad::real(a * a), [a0 = a.value()](double up) {
                       const double g = 2 * a0 * up;
                       return g > 1 ? 1.0 : g;
                     }};
  });
  auto layer = etad::recompute_grad([&](const etad::real<>& a) { return etad::real(etad::tanh(a * p)); });
  etad::real y = layer(clipped(x));
  etad::real r = etad::checkpointed_loop(
      16, [&](const etad::real<>& s) { return etad::real(s * 0.9 + p); }, y, {.snapshots = 3});
  const auto [gx, gp] = t.gradient(r, x, p);
  expect(std::isfinite(gx) && std::isfinite(gp), "callback gradients are finite");
}

}  // namespace

int main() {
  static_layer();
  tape_layer();
  callback_layer();
  return failures == 0 ? 0 : 1;
}
