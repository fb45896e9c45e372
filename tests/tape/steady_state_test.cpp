// tests/tape/steady_state_test.cpp — a loop of record -> gradient -> reset settles: after the first
// rounds the tape's reserved memory stops growing and not one heap allocation happens. Heap
// allocations are counted by replacing the global operator new / delete below (for the whole test
// executable: they count and forward to malloc / free, nothing else), and the counter is read only
// around the measured loops.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <optional>
#include <vector>

// --- counting operator new / delete -------------------------------------------------------------

namespace tape_steady_state_test {
std::atomic<std::size_t> allocations{0};
std::atomic<std::size_t> allocated_bytes{0};

inline void* allocate(std::size_t n, std::size_t alignment) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  allocated_bytes.fetch_add(n, std::memory_order_relaxed);
  // aligned_alloc wants a size that is a multiple of the alignment; malloc is aligned enough for
  // anything up to __STDCPP_DEFAULT_NEW_ALIGNMENT__.
  const std::size_t size = n == 0 ? alignment : (n + alignment - 1) / alignment * alignment;
  for (;;) {
    void* p = alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__ ? std::malloc(size) : std::aligned_alloc(alignment, size);
    if (p) return p;
    const std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}
inline void* allocate_nothrow(std::size_t n, std::size_t alignment) noexcept {
  try {
    return allocate(n, alignment);
  } catch (...) {
    return nullptr;
  }
}
constexpr std::size_t plain = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
}  // namespace tape_steady_state_test

namespace tss = tape_steady_state_test;

void* operator new(std::size_t n) { return tss::allocate(n, tss::plain); }
void* operator new[](std::size_t n) { return tss::allocate(n, tss::plain); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return tss::allocate_nothrow(n, tss::plain); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return tss::allocate_nothrow(n, tss::plain); }
void* operator new(std::size_t n, std::align_val_t a) { return tss::allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return tss::allocate(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return tss::allocate_nothrow(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return tss::allocate_nothrow(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

// --- the computations --------------------------------------------------------------------------

namespace tape_steady_state_test {

using real = etad::real<double>;

struct counts {
  std::size_t allocations, bytes;
};
inline counts now() { return {allocations.load(), allocated_bytes.load()}; }

/// One round's results, to check that reusing the memory changes nothing.
struct round_result {
  double value;
  std::array<double, 3> gradient;
  std::size_t statements, partials;
  bool operator==(const round_result&) const = default;
};

constexpr std::size_t width = 64;

/// A mixed computation: a data-dependent loop, element-wise statements into a std::array, every
/// reduction over it, map_sum and quadratic_form; then the gradient into a std::array.
round_result record_and_differentiate(etad::tape& t, double xv, double yv, double cv) {
  const real x = t.variable(xv);
  const real y = t.variable(yv);
  const real c = t.variable(cv);
  real z = x;
  while (z < 50) z = z * 1.5 + etad::sin(y);  // y > 0: grows
  std::array<real, width> v;
  for (std::size_t i = 0; i < width; ++i) v[i] = etad::tanh(x * static_cast<double>(i) / width + y) * c;
  std::array<double, width> coefficients{};
  for (std::size_t i = 0; i < width; ++i) coefficients[i] = 1.0 / static_cast<double>(i + 1);
  std::array<double, 4> matrix{2.0, 0.5, 0.5, 1.0};
  const std::array<real, 2> xy{x, y};
  const real total = etad::sum(v) + etad::mean(v) + etad::squared_norm(v) + etad::prod(v) +
                     etad::log_sum_exp(v) + etad::dot(v, coefficients) +
                     etad::map_sum([](auto a, auto b) { return a * a * b; }, v, c) +
                     etad::quadratic_form(matrix, xy) + z * 0.01;
  const auto g = t.gradient(total, x, y, c);
  return {total.value(), g, t.statements(), t.partials()};
}

}  // namespace tape_steady_state_test

TEST_CASE("tape steady state: record -> gradient -> reset allocates nothing after two rounds",
          "[tape][steady_state]") {
  using namespace tss;
  etad::tape t;
  std::size_t reserved_after_2 = 0;
  round_result first{};
  counts before_3{};
  for (int round = 1; round <= 1000; ++round) {
    if (round == 3) before_3 = now();
    const round_result r = record_and_differentiate(t, 0.3, 0.2, 0.9);
    if (round == 1) first = r;
    if (!(r == first)) {
      FAIL_CHECK("round " << round << " differs from round 1");
      break;
    }
    t.reset();
    if (round == 2) reserved_after_2 = t.reserved_bytes();
  }
  const counts after = now();
  CHECK(after.allocations - before_3.allocations == 0);
  CHECK(after.bytes - before_3.bytes == 0);
  CHECK(t.reserved_bytes() == reserved_after_2);
  CHECK(reserved_after_2 > 0);
  CHECK(first.statements > width + 10);  // the variables, the loop, v, 8 reductions, total
  CHECK(std::isfinite(first.value));
}

TEST_CASE("tape steady state: gradients() allocates only the vector it returns", "[tape][steady_state]") {
  using namespace tss;
  etad::tape t;
  constexpr int rounds = 1000;
  std::size_t reserved_after_2 = 0;
  counts before_3{};
  double last = 0;
  for (int round = 1; round <= rounds; ++round) {
    if (round == 3) before_3 = now();
    const real x = t.variable(0.5);
    const real y = t.variable(2.0);
    real z = x;
    for (int k = 0; k < 100; ++k) z = z * y * 0.5 + etad::cos(x);
    const std::array<real, 1> targets{z};
    const std::array<real, 3> sources{x, y, z};
    const std::array<real, 1> stops{y};
    const std::array<double, 1> seeds{2.0};
    // The reachability and stop flags are in play: unconnected::none and a stop_gradients entry.
    const auto g = t.gradients(targets, sources, {.output_gradients = seeds, .stop_gradients = stops});
    last = *g[0];
    t.reset();
    if (round == 2) reserved_after_2 = t.reserved_bytes();
  }
  const counts after = now();
  // One std::vector<std::optional<double>> of 3 per round, or none if the compiler elided it.
  const std::size_t n = after.allocations - before_3.allocations;
  CHECK(n <= rounds - 2);
  CHECK(after.bytes - before_3.bytes == n * 3 * sizeof(std::optional<double>));
  CHECK(t.reserved_bytes() == reserved_after_2);
  CHECK(std::isfinite(last));
}

TEST_CASE("tape steady state: a tape spanning several blocks settles too", "[tape][steady_state]") {
  // 100000 one-partial statements fill several blocks of 2^15 statements; a reduction of 70000
  // elements is larger than a standard block of 2^16 partials and gets a block of its own.
  using namespace tss;
  etad::tape t;
  std::vector<real> many(70000);
  std::size_t reserved_after_2 = 0;
  counts before_3{};
  std::array<double, 1> g{};
  for (int round = 1; round <= 12; ++round) {
    if (round == 3) before_3 = now();
    const real x = t.variable(1.0);
    real z = x;
    for (int k = 0; k < 50000; ++k) z = z * 1.00001;
    for (auto& e : many) e = z * 0.5;
    const real s = etad::sum(many);
    real w = s;
    for (int k = 0; k < 50000; ++k) w = w * 0.99999;
    const std::array<real, 1> sources{x};
    t.gradient(w, sources, g);
    CHECK(g[0] == Approx(70000 * 0.5 * std::pow(1.00001, 50000) * std::pow(0.99999, 50000)).epsilon(1e-9));
    t.reset();
    if (round == 2) reserved_after_2 = t.reserved_bytes();
  }
  const counts after = now();
  CHECK(after.allocations - before_3.allocations == 0);
  CHECK(t.reserved_bytes() == reserved_after_2);
}

// dot() of two ranges of reals once built a std::vector of 2n reals on every call (in commit
// 59658db), so a loop using it allocated every round; it must not. The same for matvec into a
// span and variables() into a span.
TEST_CASE("tape steady state: dot of two ranges, matvec and variables() allocate nothing",
          "[tape][steady_state]") {
  using namespace tss;
  etad::tape t;
  counts before_3{};
  const std::array<double, 8> ones{1, 1, 1, 1, 1, 1, 1, 1};
  const std::array<double, 16> matrix{1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1};  // 2 x 8
  for (int round = 1; round <= 100; ++round) {
    if (round == 3) before_3 = now();
    std::array<real, 8> a, b;
    for (std::size_t i = 0; i < 8; ++i) a[i] = t.variable(static_cast<double>(i));
    t.variables(ones, b);
    const real d = etad::dot(a, b);
    std::array<real, 2> y;
    etad::matvec(matrix, a, y);
    const real s = d + y[0] + y[1];
    CHECK(t.gradient(s, a[3], b[3]) == std::array{1.0 + 4 + 5, 3.0});
    t.reset();
  }
  CHECK(now().allocations - before_3.allocations == 0);
}

TEST_CASE("tape steady state: variable blocks, their reductions and gradient allocate nothing",
          "[tape][steady_state]") {
  using namespace tss;
  etad::tape t;
  counts before_3{};
  std::size_t reserved_after_2 = 0;
  std::vector<double> x(100);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.01 * static_cast<double>(i);
  const std::array<double, 4> matrix{2.0, 0.5, 0.5, 1.0};
  std::vector<double> g(x.size()), h(2);
  for (int round = 1; round <= 100; ++round) {
    if (round == 3) before_3 = now();
    const auto b = t.variable_block(x);
    const auto c = t.variable_block(std::span<const double>(x).first(2));
    const real s = etad::sum(b) + etad::mean(b) + etad::squared_norm(b) + etad::prod(b) +
                   etad::log_sum_exp(b) + etad::dot(b, x) + etad::quadratic_form(matrix, c);
    t.gradient(s, b, g);
    t.reset();
    if (round == 2) reserved_after_2 = t.reserved_bytes();
  }
  CHECK(now().allocations - before_3.allocations == 0);
  CHECK(t.reserved_bytes() == reserved_after_2);
  // d/dx_i of sum + mean + squared_norm + prod + log_sum_exp + dot at x_i = i / 100: 1, 1/100,
  // 2 x_i, the product of the others, e^x_i / sum e^x_j, x_i (the coefficients are x itself).
  double z = 0;
  for (double v : x) z += std::exp(v);
  for (const std::size_t i : {0u, 50u, 99u}) {
    double others = 1;
    for (std::size_t j = 0; j < x.size(); ++j)
      if (j != i) others *= x[j];
    CAPTURE(i);
    CHECK(g[i] == Approx(1 + 0.01 + 2 * x[i] + others + std::exp(x[i]) / z + x[i]).epsilon(1e-12));
  }
  // quadratic_form's block: (A + A^T) c at c = (0, 0.01), A = [[2, .5], [.5, 1]].
  etad::tape u;
  const auto c = u.variable_block(std::span<const double>(x).first(2));
  const real q = etad::quadratic_form(matrix, c);
  u.gradient(q, c, h);
  CHECK(h == std::vector<double>{2 * (0.5 * 0.01), 2 * (1.0 * 0.01)});
}
