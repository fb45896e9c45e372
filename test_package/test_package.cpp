// Conan test_package: the packaged headers compile, find Boost.MP11, and compute a gradient.
#include <etad/etad.hpp>

#include <cstdio>

int main() {
  // f(x, y) = x sin y at (2, 0.5): df/dx = sin 0.5 = 0.479426, df/dy = 2 cos 0.5 = 1.75517.
  auto [value, gradient] =
      etad::gradient([](auto x, auto y) { return x * sin(y); }, 2.0, 0.5);
  std::printf("value: %g\n", value);
  std::printf("gradient: %g %g\n", gradient[0], gradient[1]);
}
