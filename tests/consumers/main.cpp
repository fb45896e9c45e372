#include <etad/etad.hpp>
#include <cstdio>
int main() {
  auto [v, g] = etad::gradient([](auto x, auto y) { return x * sin(y); }, 2.0, 0.5);
  std::printf("%g %g %g\n", v, g[0], g[1]);   // 2 sin 0.5, sin 0.5, 2 cos 0.5
}
