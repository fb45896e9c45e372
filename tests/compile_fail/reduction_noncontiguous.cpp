// ETAD_EXPECT: etad: the reductions take a contiguous range of reals
// The reductions read a range of reals through one pointer: a std::list of reals gets etad's
// sentence, not a list of candidate overloads.
#include <etad/etad.hpp>

#include <list>
#include <vector>

int main() {
  etad::tape t;
#ifdef ETAD_SHOULD_FAIL
  const std::list<etad::real<double>> x{t.variable(1.0), t.variable(2.0)};
  const etad::real<double> s = etad::sum(x);
  const auto g = t.gradient(s, x.front(), x.back());
#else
  // (A braced vector of two reals: g++ 12 at -O2 and -O3, as this case is built, warned
  // -Warray-bounds about sum's 4-lane loop, which cannot run for n = 2; reduce.hpp now silences
  // that false positive, and this build, with -Werror, checks it stays silenced.)
  const std::vector<etad::real<double>> x{t.variable(1.0), t.variable(2.0)};
  const etad::real<double> s = etad::sum(x);
  const auto g = t.gradient(s, x[0], x[1]);
#endif
  return s.value() == 3.0 && g[0] == 1.0 && g[1] == 1.0 ? 0 : 1;
}
