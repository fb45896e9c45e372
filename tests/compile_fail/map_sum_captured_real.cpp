// ETAD_EXPECT: etad: map_sum's function used a real it did not get as an argument
// The element function captures mu, a real, instead of taking it as an argument: traced with
// placeholders for its arguments only, mu would be a constant and its gradient silently lost.
#include <etad/etad.hpp>

#include <vector>

int main() {
  etad::tape t;
  const etad::real<double> mu = t.variable(0.5);
  const std::vector<double> data{1.0, 2.0, 3.0};
#ifdef ETAD_SHOULD_FAIL
  const etad::real<double> s =
      etad::map_sum([mu](auto y) { return (y - mu) * (y - mu); }, data);
#else
  const etad::real<double> s =
      etad::map_sum([](auto y, auto m) { return (y - m) * (y - m); }, data, mu);
#endif
  // sum (y - mu)^2 = 0.25 + 2.25 + 6.25; d/dmu = -2 sum (y - mu) = -9
  return s.value() == 8.75 && t.gradient(s, mu)[0] == -9.0 ? 0 : 1;
}
