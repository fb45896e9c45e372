// tests/tape/storage_test.cpp — the statement store under the tape: blocks of 2^15 statements and
// 2^16 partials, a statement larger than a block in a block of its own, blocks kept and reused
// across reset() in whatever order the next recording needs them, and backward sweeps that start
// and stop in any block. Chains of `z = z + 1` have derivative exactly 1 along them, so a
// statement swept twice or skipped shows as a wrong integer, not as rounding.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace {

using real = etad::real<double>;

constexpr std::size_t block_statements = std::size_t(1) << 15;
constexpr std::size_t block_partials = std::size_t(1) << 16;

/// A recording with statements in several blocks and the handles to check it by.
struct layout {
  real x, mid, e0, s, end;
  std::size_t elements;
};

/// x; `chain` statements z = z + 1; `elements` statements e_i = z / 2; s = sum(e) (one statement of
/// `elements` partials); `tail` statements w = w + 1. d end/dx = elements / 2, d end/d mid =
/// elements / 2, d end/d e0 = 1, d end/ds = 1, exactly.
layout record(etad::tape& t, std::size_t chain, std::size_t elements, std::size_t tail) {
  layout l{};
  l.elements = elements;
  l.x = t.variable(1.0);
  real z = l.x;
  for (std::size_t k = 0; k < chain; ++k) {
    z = z + 1.0;
    if (k == chain / 2) l.mid = z;
  }
  if (chain == 0) l.mid = z;
  std::vector<real> e(elements);
  for (auto& v : e) v = z * 0.5;
  l.e0 = e[0];
  l.s = etad::sum(e);
  real w = l.s;
  for (std::size_t k = 0; k < tail; ++k) w = w + 1.0;
  l.end = w;
  return l;
}

void check(etad::tape& t, const layout& l) {
  const double half = static_cast<double>(l.elements) / 2;
  CHECK(t.gradient(l.end, l.x, l.mid, l.e0, l.s) == std::array{half, half, 1.0, 1.0});
  // Targets that are not the last statement: the sweep starts inside an earlier block.
  CHECK(t.gradient(l.s, l.x, l.e0) == std::array{half, 1.0});
  CHECK(t.gradient(l.mid, l.x, l.s) == std::array{1.0, 0.0});
  CHECK(t.gradient(l.e0, l.x, l.mid) == std::array{0.5, 0.5});
}

}  // namespace

TEST_CASE("tape storage: statements and partials are counted across blocks", "[tape][storage]") {
  etad::tape t{etad::persistent};
  const std::size_t chain = 3 * block_statements + 17;
  const layout l = record(t, chain, 10, 5);
  // x, the chain, 10 elements, the sum, the tail.
  CHECK(t.statements() == 1 + chain + 10 + 1 + 5);
  CHECK(t.partials() == chain + 10 + 10 + 5);
  check(t, l);
}

TEST_CASE("tape storage: blocks filled by partials, not statements", "[tape][storage]") {
  // Statements of 3 partials fill a block's partials (2^16) before its statements (2^15): the
  // recording moves on to a new block on the partial count. z <- z * y + c with y = 1, z0 = 1,
  // c = 0.5: z_n = 1 + n/2, dz/dz0 = 1, dz/dc = n, dz/dy = sum_k z_k = n + n (n - 1) / 4 (every
  // term and partial sum is exact in double, so any order of summing gives these exactly).
  etad::tape t{etad::persistent};
  const std::size_t n = 3 * (block_partials / 3) + 1000;  // about 3 blocks of partials
  const real z0 = t.variable(1.0), y = t.variable(1.0), c = t.variable(0.5);
  real z = z0;
  for (std::size_t k = 0; k < n; ++k) z = z * y + c;
  const double nd = static_cast<double>(n);
  CHECK(z.value() == 1.0 + nd / 2);
  CHECK(t.statements() == 3 + n);
  CHECK(t.partials() == 3 * n);
  // 12 bytes per partial (value and index), 4 per statement; the 3 leading variables store none.
  CHECK(t.used_bytes() == 3 * n * 12 + n * 4);
  CHECK(t.gradient(z, z0, y, c) == std::array{1.0, nd + nd * (nd - 1) / 4, nd});
  t.reset();
  CHECK(t.used_bytes() == 0);
}

TEST_CASE("tape storage: a statement larger than a block", "[tape][storage]") {
  etad::tape t{etad::persistent};
  const std::size_t big = 2 * block_partials + 3;
  const layout l = record(t, 100, big, 100);
  CHECK(t.statements() == 1 + 100 + big + 1 + 100);
  CHECK(t.partials() == 100 + big + big + 100);
  check(t, l);
  CHECK(l.s.value() == static_cast<double>(big) * 101 / 2);
}

TEST_CASE("tape storage: blocks are reused across reset() whatever the next layout", "[tape][storage]") {
  etad::tape t{etad::persistent};
  const std::size_t big = block_partials + 1000;
  struct shape {
    std::size_t chain, elements, tail;
  };
  // Small blocks first, then a big statement after a full block, then big first, then small only,
  // then everything again: each reset() hands the kept blocks to a differently shaped recording
  // (a big statement may skip kept blocks that are too small, or replace the last one).
  const shape shapes[] = {
      {3 * block_statements, 10, 10},       // several small blocks
      {block_statements - 1, big, 10},      // block 0 full, then the big statement
      {0, big, 2 * block_statements},       // big first
      {10, 10, 10},                         // tiny
      {block_statements + 5, big, block_statements},  // big in the middle of small ones
      {3 * block_statements, 10, 10},       // back to the first
  };
  std::size_t reserved = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (const shape& s : shapes) {
      INFO("pass " << pass << ", shape chain " << s.chain << " elements " << s.elements << " tail " << s.tail);
      const layout l = record(t, s.chain, s.elements, s.tail);
      CHECK(t.statements() == 1 + s.chain + s.elements + 1 + s.tail);
      CHECK(l.x.index() == 1);  // numbering restarts after reset()
      check(t, l);
      t.reset();
      CHECK(t.statements() == 0);
      CHECK(t.partials() == 0);
      if (pass == 0) reserved = t.reserved_bytes();
    }
  // The second pass needed no memory beyond what the first had reserved.
  CHECK(t.reserved_bytes() == reserved);
}

TEST_CASE("tape storage: reset() keeps memory and gives a new epoch", "[tape][storage]") {
  etad::tape t;
  const std::uint32_t e0 = t.epoch();
  CHECK(t.reserved_bytes() == 0);  // nothing reserved before the first statement
  const real x = t.variable(1.0);
  const real y = x * 2.0;
  (void)y;
  const std::size_t reserved = t.reserved_bytes();
  CHECK(reserved > 0);
  t.reset();
  CHECK(t.epoch() != e0);
  CHECK(t.reserved_bytes() == reserved);
  CHECK(t.statements() == 0);
  t.clear();  // the same as reset()
  CHECK(t.reserved_bytes() == reserved);
  // Every tape gets its own epoch.
  etad::tape other;
  CHECK(other.epoch() != t.epoch());
}

TEST_CASE("tape storage: variables() in bulk, leading and not", "[tape][storage]") {
  // Variables recorded before any other statement (the leading ones) are never visited by the
  // sweep; variables recorded later are ordinary statements without partials. Both must get
  // their gradients, in one call, in bulk or one by one, across blocks, before and after reset().
  etad::tape t{etad::persistent};
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<double> v(block_statements + 100);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1.0 + 1e-3 * static_cast<double>(i % 97);
    const std::vector<real> lead = t.variables(v);  // crosses a block boundary
    REQUIRE(lead.size() == v.size());
    CHECK(lead.front().index() == 1);
    CHECK(lead.back().index() == v.size());
    CHECK(t.statements() == v.size());
    CHECK(t.partials() == 0);
    const real one = t.variable(2.0);  // still leading
    const real s = etad::sum(lead) * one;
    std::array<real, 3> later;
    t.variables(std::array{3.0, 4.0, 5.0}, later);  // after a statement: not leading
    const real late_single = t.variable(6.0);
    const real z = s * later[0] + later[1] * later[2] * late_single;
    CHECK(later[0].index() == s.index() + 1);
    CHECK(later[2].index() == later[0].index() + 2);
    // The exact sum to about one rounding (compensated), and the bound any order of summing
    // v.size() positive numbers stays within (etad::sum adds in interleaved lanes).
    double total = 0, lost = 0;
    for (const double e : v) {
      const double t1 = total + e;
      lost += (total - t1) + e;
      total = t1;
    }
    total += lost;
    const double bound = static_cast<double>(v.size()) * std::numeric_limits<double>::epsilon();
    const auto g = t.gradient(z, lead[0], lead.back(), one, later[0], later[1], later[2], late_single);
    CHECK(g[0] == 2.0 * 3.0);
    CHECK(g[1] == 2.0 * 3.0);
    CHECK(g[2] == Approx(total * 3.0).epsilon(bound));
    CHECK(g[3] == Approx(total * 2.0).epsilon(bound));
    CHECK(g[4] == 5.0 * 6.0);
    CHECK(g[5] == 4.0 * 6.0);
    CHECK(g[6] == 4.0 * 5.0);
    // A leading variable as target and source; unconnected leading variables.
    CHECK(t.gradient(lead[5], lead[5], lead[6]) == std::array{1.0, 0.0});
    const std::vector<real> targets{later[1] * 2.0}, sources{lead[0], later[1]};
    const auto none = t.gradients(targets, sources);
    CHECK_FALSE(none[0].has_value());
    CHECK(none[1] == 2.0);
    t.reset();
  }
  std::array<real, 2> out;
  CHECK_THROWS_AS(t.variables(std::array{1.0}, out), etad::error);
}

TEST_CASE("tape storage: the index space ends in an error, not a wrap", "[tape][storage]") {
  // Indices are 32-bit and 0 means "constant", so at most 2^32 - 2 values fit (1 .. 2^32 - 2).
  // Recording that many one by one takes minutes and ~100 GB; a bulk request for one more than
  // fits is refused up front, before any block is allocated.
  etad::detail::statement_store<double> store;
  const std::size_t fits = std::numeric_limits<etad::detail::index_t>::max() - 1;  // 2^32 - 2
  CHECK_THROWS_AS(store.append_empty(fits + 1), etad::error);
  CHECK_THROWS_WITH(store.append_empty(std::size_t(1) << 40), Catch::Contains("reset()"));
  CHECK(store.size() == 1);  // nothing was recorded
  CHECK(store.reserved_bytes() == 0);
  etad::detail::index_t defined = 0;
  store.append(2, defined);
  CHECK(defined == 1);
  CHECK_THROWS_AS(store.append_empty(fits), etad::error);  // one is taken now
}

TEST_CASE("tape storage: after a recording of many blocks, short recordings reuse the first ones",
          "[tape][storage]") {
  // reset() forgets only the blocks the last recording used; the blocks past them must still
  // count as empty, whatever a longer recording before left in them. z = z + 1 chains have
  // derivative exactly 1, so a statement of a stale block swept by mistake shows as a wrong
  // integer.
  etad::tape t{etad::persistent};
  auto chain = [&](std::size_t n) {
    t.reset();
    const real x = t.variable(1.0);
    real z = x;
    for (std::size_t k = 0; k < n; ++k) z = z + 1.0;
    return std::pair{x, z};
  };
  const std::size_t lengths[] = {5 * block_statements + 7, 3, 2 * block_statements + 1, 10,
                                 6 * block_statements, 1};
  std::size_t reserved = 0;
  for (int round = 0; round < 2; ++round) {
    for (std::size_t n : lengths) {
      const auto [x, z] = chain(n);
      CHECK(t.statements() == n + 1);
      CHECK(t.partials() == n);
      CHECK(z.value() == 1.0 + double(n));
      CHECK(t.gradient(z, x)[0] == 1.0);
      const std::vector<real> targets{z}, sources{x};
      CHECK(*t.gradients(targets, sources)[0] == 1.0);
    }
    // The second round reuses the first round's blocks: nothing more is reserved.
    if (round == 0) reserved = t.reserved_bytes();
    else CHECK(t.reserved_bytes() == reserved);
  }
}

TEST_CASE("tape storage: the sweeps fuse multiply-adds exactly where the target has FMA",
          "[tape][storage]") {
  // A = 1 + 2^-30, B = 1 - 2^-30: A * B = 1 - 2^-60 rounds to 1, so A * B - 1 is -2^-60 when
  // fused and 0 when the product is rounded first (in float, with 2^-13: -2^-26 or 0). The
  // build decides which (etad_fma_tests is built with -mfma, etad_tests without); gradient()
  // and gradients() must agree either way.
  const double a = 1 + 0x1p-30, b = 1 - 0x1p-30;
#if defined(__FMA__)
  const double want = -0x1p-60;  // exact: A * B - 1
  const float want_float = -0x1p-26f;
#else
  const double want = 0.0;
  const float want_float = 0.0f;
#endif
  CHECK(etad::detail::mul_add(a, b, -1.0) == want);
  CHECK(etad::detail::mul_add(float(1 + 0x1p-13), float(1 - 0x1p-13), -1.0f) == want_float);
  // Through a tape: y = A x, z = B y - x; dz/dx = A B - 1, whose last step in the sweep is
  // adj[x] = B * A + (-1).
  etad::tape t{etad::persistent};
  const real x = t.variable(1.0);
  const real y = a * x;
  const real z = y * b - x;
  CHECK(t.gradient(z, x)[0] == want);
  const std::vector<real> targets{z}, sources{x};
  CHECK(*t.gradients(targets, sources)[0] == want);
}
