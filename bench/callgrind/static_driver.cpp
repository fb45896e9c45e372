// bench/callgrind/static_driver.cpp — runs one implementation of one static_problems.hpp formula
// N times, for counting instructions under valgrind (tools/callgrind_ratios.sh). Not part of
// etad_bench (bench/CMakeLists.txt globs bench/*.cpp only).
// Usage: static_driver <problem> <implementation> <iterations>
//   problem: trig3 | chain20 | poly10; implementation: value | handwritten | etad_static
#include "../static_problems.hpp"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

using namespace etad_bench;

// What benchmark::DoNotOptimize does, without linking Google Benchmark: the value must exist.
template <class T>
inline void sink(const T& v) {
  asm volatile("" : : "r,m"(v) : "memory");
}

template <class Problem, class Fn>
void run(std::size_t iterations, Fn fn) {
  auto pts = Problem::points();
  sink(pts);  // the points (and the coefficients, through the memory clobber) are unknown now
  std::size_t i = 0;
  for (std::size_t k = 0; k < iterations; ++k) {
    auto r = fn(pts[i]);
    sink(r);
    i = (i + 1) % point_count;
  }
}

template <class Problem>
int dispatch(std::string_view impl, std::size_t iterations) {
  // The same check as the benchmarks; it runs for every iteration count, so the baseline
  // (0 iterations) cancels its cost.
  check_or_abort<Problem>();
  if (impl == "value")
    run<Problem>(iterations, [](const auto& p) { return Problem::value(p); });
  else if (impl == "handwritten")
    run<Problem>(iterations, [](const auto& p) { return Problem::handwritten(p); });
  else if (impl == "etad_static")
    run<Problem>(iterations, [](const auto& p) { return Problem::etad_static(p); });
  else {
    std::fprintf(stderr, "static_driver: unknown implementation '%.*s'\n",
                 static_cast<int>(impl.size()), impl.data());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <trig3|chain20|poly10> <value|handwritten|etad_static> <iterations>\n",
                 argv[0]);
    return 2;
  }
  const std::string_view problem = argv[1], impl = argv[2];
  const auto iterations = static_cast<std::size_t>(std::strtoull(argv[3], nullptr, 10));
  if (problem == "trig3") return dispatch<trig3>(impl, iterations);
  if (problem == "chain20") return dispatch<chain20>(impl, iterations);
  if (problem == "poly10") return dispatch<poly10>(impl, iterations);
  std::fprintf(stderr, "static_driver: unknown problem '%.*s'\n", static_cast<int>(problem.size()),
               problem.data());
  return 2;
}
