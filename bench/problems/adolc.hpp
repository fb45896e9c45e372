// bench/problems/adolc.hpp — ADOL-C (libadolc-dev) as a peer: re-taping every evaluation
// (trace_on / <<= / the problem's formula on adouble / >>= / trace_off, then fos_reverse), which
// is what a function with data-dependent control flow needs. Only when bench/CMakeLists.txt
// found ADOL-C (ETAD_BENCH_HAVE_ADOLC).
//
// ADOL-C keeps a tape in buffers of OBUFSIZE / LBUFSIZE / VBUFSIZE / TBUFSIZE entries and writes
// it to files past them; a .adolcrc in the working directory raises them (tools/bench.sh writes
// one). adolc_spill() tells whether the last tape went to a file, so a benchmark can refuse to
// time file I/O.
#pragma once

#if ETAD_BENCH_HAVE_ADOLC

#include "common.hpp"

#include <adolc/adolc.h>

#include <cstddef>
#include <span>
#include <vector>

namespace tape_bench {

inline constexpr short adolc_tag = 7;

/// Value, and the gradient into g, re-taping p.formula<adouble> at p's current point.
template <class P>
double adolc_gradient(const P& p, std::span<double> g) {
  const auto in = p.inputs();
  const int n = static_cast<int>(in.size());
  double f = 0;
  trace_on(adolc_tag, 1);  // keep = 1: the forward values stay for the reverse sweep
  {
    std::vector<adouble> x(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) x[i] <<= in[i];
    adouble y = p.template formula<adouble>(std::span<const adouble>(x),
                                            [](const adouble& a) { return a.getValue(); });
    y >>= f;
  }
  trace_off();
  double one = 1;
  fos_reverse(adolc_tag, 1, n, &one, g.data());
  return f;
}

/// The last tape's statistics (see <adolc/taping.h>, enum StatEntries).
struct adolc_stats {
  std::size_t s[STAT_SIZE];
  std::size_t operations() const { return s[NUM_OPERATIONS]; }
  std::size_t locations() const { return s[NUM_LOCATIONS]; }
  std::size_t values() const { return s[NUM_VALUES]; }
  std::size_t taylors() const { return s[TAY_STACK_SIZE]; }
  /// Bytes of the tape proper: 1 byte per operation code, 4 per location (locint), 8 per value.
  std::size_t tape_bytes() const {
    return operations() * 1 + locations() * sizeof(locint) + values() * sizeof(double);
  }
  /// Whether any part of the tape (or the Taylor stack) outgrew its buffer and went to a file.
  bool spilled() const {
    return s[OP_FILE_ACCESS] != 0 || s[LOC_FILE_ACCESS] != 0 || s[VAL_FILE_ACCESS] != 0 ||
           s[TAY_STACK_SIZE] > s[TAY_BUFFER_SIZE];
  }
};

inline adolc_stats adolc_last_stats() {
  adolc_stats st{};
  tapestats(adolc_tag, st.s);
  return st;
}

}  // namespace tape_bench

#endif  // ETAD_BENCH_HAVE_ADOLC
