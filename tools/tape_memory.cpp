// tools/tape_memory.cpp — what the tape benchmarks' problems cost in memory and allocations.
// Built and run by tools/tape_memory.sh (not part of etad_bench: bench/CMakeLists.txt globs
// bench/*.cpp only).
//
//   tape_memory            a Markdown table: for each problem (bench/problems/) and size, the
//                          etad tape's statements and partials, its bytes per statement and per
//                          scalar operation of the formula (counted by hand in each problem's
//                          scalar_ops()), the operator-new calls of one steady-state evaluation,
//                          and the same for ADOL-C (tapestats) when built with it; extra rows for
//                          the etad_tape_scalar, etad_tape_matvec and etad_tape_loop variants
//   tape_memory run PROBLEM IMPL SIZE ITERATIONS
//                          evaluates one implementation (value, handwritten, etad_static
//                          (chain, recurrence; the reductions at static_sizes_of), etad_tape,
//                          etad_tape_reals, etad_tape_scalar, etad_tape_matvec,
//                          etad_tape_gradients, etad_tape_loop, adolc, sacado_rad)
//                          ITERATIONS times: a driver for
//                          valgrind --tool=callgrind or perf (adolc and sacado_rad when
//                          tools/tape_memory.sh found them)
//
// etad's tape memory is that of include/etad/tape/detail/storage.hpp, as tape.used_bytes()
// reports it: per stored partial a T and an index_t (8 + 4 bytes for double), per stored
// statement one index_t (the end of its partials). Range statements (a reduction over consecutive
// variables) store a 2-slot header instead of one index per input, and no partials when they are
// all equal (sum); the leading variables store nothing. "partials" counts one per input.
#include "../bench/problems/all.hpp"
#if ETAD_BENCH_HAVE_ADOLC
#include "../bench/problems/adolc.hpp"
#endif
#if ETAD_BENCH_HAVE_SACADO
#include "../bench/problems/sacado.hpp"
#endif

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// --- counting operator new (the C++ allocations of this program) ------------------------------
// g++ 12 sees the inlined delete's free() of memory from the (not inlined) new and warns.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::size_t allocations = 0;
}

void* operator new(std::size_t n) {
  ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace tape_bench;

template <class T>
inline void sink(const T& v) {
  asm volatile("" : : "r,m"(v) : "memory");
}

/// operator-new calls of the third of three evaluations (the first ones may grow buffers).
template <class Eval>
std::size_t steady_allocations(Eval&& eval) {
  eval();
  eval();
  const std::size_t before = allocations;
  eval();
  return allocations - before;
}

/// One row: the tape that eval (an etad implementation of p) leaves behind, and its allocations.
template <class P, class Eval>
void report_row(P& p, const std::string& name, Eval&& eval, bool with_adolc) {
  std::vector<double> g(p.sources()), g_h(p.sources());
  const double v_h = p.handwritten(g_h);
  etad_workspace ws;
  const double v = eval(ws, std::span<double>(g));  // its recording stays (reset comes first)
  check_or_abort(name, v_h, g_h, v, g);
  const double statements = double(ws.tape.statements()), partials = double(ws.tape.partials());
  const double bytes = double(ws.tape.used_bytes());
  const double ops = p.scalar_ops();
  const std::size_t etad_allocs = steady_allocations([&] { sink(eval(ws, std::span<double>(g))); });
  const std::size_t hand_allocs = steady_allocations([&] { sink(p.handwritten(g)); });

  std::printf("| %s | %.0f | %.0f | %.0f | %.1f | %.2f | %.2f | %.0f | %zu | %zu |", name.c_str(),
              ops, statements, partials, partials / statements, bytes / statements, bytes / ops,
              double(ws.tape.reserved_bytes()) / 1024, etad_allocs, hand_allocs);
#if ETAD_BENCH_HAVE_ADOLC
  if (with_adolc) {
    const double va = adolc_gradient(p, g);
    check_or_abort(name + " adolc", v_h, g_h, va, g);
    const adolc_stats st = adolc_last_stats();
    std::printf(" %zu | %zu | %zu | %.2f |%s", st.operations(), st.locations(), st.values(),
                double(st.tape_bytes()) / ops,
                st.spilled() ? " (spilled to file: no .adolcrc here?)" : "");
  } else {
    std::printf(" | | | |");
  }
#else
  (void)with_adolc;
#endif
  std::printf("\n");
}

template <class P>
void report(long size) {
  P p(static_cast<std::size_t>(size));
  const std::string name = std::string(P::name) + "/" + std::to_string(size);
  report_row(p, name, [&](etad_workspace& ws, std::span<double> g) { return p.etad_tape(ws, g); }, true);
  if constexpr (requires(etad_workspace& ws, std::span<double> g) { p.etad_tape_scalar(ws, g); })
    report_row(p, name + " (scalar)",
               [&](etad_workspace& ws, std::span<double> g) { return p.etad_tape_scalar(ws, g); }, false);
  if constexpr (requires(etad_workspace& ws, std::span<double> g) { p.etad_tape_matvec(ws, g); })
    report_row(p, name + " (matvec)",
               [&](etad_workspace& ws, std::span<double> g) { return p.etad_tape_matvec(ws, g); }, false);
  if constexpr (requires(etad_workspace& ws, std::span<double> g) { p.etad_tape_loop(ws, g); })
    report_row(p, name + " (loop)",
               [&](etad_workspace& ws, std::span<double> g) { return p.etad_tape_loop(ws, g); }, false);
}

int table() {
  std::printf("| problem/size | scalar ops | statements | partials | partials/stmt | bytes/stmt "
              "| bytes/op | reserved KiB | etad allocs/eval | handwritten allocs/eval |");
#if ETAD_BENCH_HAVE_ADOLC
  std::printf(" ADOL-C ops | ADOL-C locations | ADOL-C values | ADOL-C bytes/op |");
#endif
  std::printf("\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
#if ETAD_BENCH_HAVE_ADOLC
  std::printf("---:|---:|---:|---:|");
#endif
  std::printf("\n");
  for_each_problem([](auto tag) {
    using P = typename decltype(tag)::type;
    for (long n : sizes_of<P>) report<P>(n);
  });
  return 0;
}

/// run_one's etad_static<N>, for a size N fixed at compile time (as bench/tape_bench.cpp times
/// it: the point in a std::array, the gradient left in the result).
template <class P, std::size_t N>
int run_fixed(P& p, std::string_view impl, double v_h, const std::vector<double>& g_h,
              long iterations) {
  auto points = p.template fixed_points<N>();
  const auto r = P::template etad_static<N>(points[p.point()]);
  check_or_abort(std::string(P::name) + " " + std::string(impl), v_h, g_h, r.value, r.gradient);
  sink(points);
  for (long i = 0; i < iterations; ++i) {
    p.next();
    auto s = P::template etad_static<N>(points[p.point()]);
    sink(s);
  }
  return 0;
}

template <class P>
int run_one(std::string_view impl, long size, long iterations) {
  P p(static_cast<std::size_t>(size));
  std::vector<double> g(p.sources()), g_h(p.sources());
  const double v_h = p.handwritten(g_h);
  etad_workspace ws;
  auto check = [&](double v) { check_or_abort(std::string(P::name) + " " + std::string(impl), v_h, g_h, v, g); };
  auto loop = [&](auto&& eval) {
    sink(p);
    for (long i = 0; i < iterations; ++i) {
      p.next();
      sink(eval());
      sink(g.data());
    }
    return 0;
  };
  if (impl == "value") return loop([&] { return p.value(); });
  if (impl == "handwritten") return loop([&] { return p.handwritten(g); });
  if (impl == "etad_tape") {
    check(p.etad_tape(ws, g));
    return loop([&] { return p.etad_tape(ws, g); });
  }
  if constexpr (requires { p.etad_tape_scalar(ws, g); }) {
    if (impl == "etad_tape_scalar") {
      check(p.etad_tape_scalar(ws, g));
      return loop([&] { return p.etad_tape_scalar(ws, g); });
    }
  }
  if constexpr (requires { p.etad_tape_reals(ws, g); }) {
    if (impl == "etad_tape_reals") {
      check(p.etad_tape_reals(ws, g));
      return loop([&] { return p.etad_tape_reals(ws, g); });
    }
  }
  if constexpr (requires { p.etad_tape_matvec(ws, g); }) {
    if (impl == "etad_tape_matvec") {
      check(p.etad_tape_matvec(ws, g));
      return loop([&] { return p.etad_tape_matvec(ws, g); });
    }
  }
  if constexpr (requires { p.etad_tape_gradients(ws, g); }) {
    if (impl == "etad_tape_gradients") {
      check(p.etad_tape_gradients(ws, g));
      return loop([&] { return p.etad_tape_gradients(ws, g); });
    }
  }
  if constexpr (requires { p.etad_tape_loop(ws, g); }) {
    if (impl == "etad_tape_loop") {
      check(p.etad_tape_loop(ws, g));
      return loop([&] { return p.etad_tape_loop(ws, g); });
    }
  }
  if constexpr (requires { p.etad_static(g); }) {
    if (impl == "etad_static") {
      check(p.etad_static(g));
      return loop([&] { return p.etad_static(g); });
    }
  }
  if (impl == "etad_static") {  // the reductions at the sizes they have etad_static<N> for
    int rc = -1;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((size == long(static_sizes_of<P>[I])
            ? void(rc = run_fixed<P, static_sizes_of<P>[I]>(p, impl, v_h, g_h, iterations))
            : void()),
       ...);
    }(std::make_index_sequence<static_sizes_of<P>.size()>{});
    if (rc != -1) return rc;
  }
#if ETAD_BENCH_HAVE_ADOLC
  if (impl == "adolc") {
    check(adolc_gradient(p, g));
    return loop([&] { return adolc_gradient(p, g); });
  }
#endif
#if ETAD_BENCH_HAVE_SACADO
  if (impl == "sacado_rad") {
    std::vector<sacado_rad_t> x;
    check(sacado_rad_gradient(p, x, g));
    return loop([&] { return sacado_rad_gradient(p, x, g); });
  }
#endif
  std::fprintf(stderr, "tape_memory: no implementation %.*s for %s\n", int(impl.size()),
               impl.data(), P::name);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 1) return table();
  if (argc == 6 && std::string_view(argv[1]) == "run") {
    int rc = -1;
    for_each_problem([&](auto tag) {
      using P = typename decltype(tag)::type;
      if (std::string_view(argv[2]) == P::name)
        rc = run_one<P>(argv[3], std::atol(argv[4]), std::atol(argv[5]));
    });
    if (rc != -1) return rc;
    std::fprintf(stderr, "tape_memory: no problem %s\n", argv[2]);
    return 2;
  }
  std::fprintf(stderr, "usage: tape_memory | tape_memory run PROBLEM IMPL SIZE ITERATIONS\n");
  return 2;
}
