// tests/tape/random_programs_test.cpp — the tape's gradients on random programs, against
// answers obtained independently: every path of gradient() (the reduction shortcut, the few-,
// consecutive- and many-source paths, the register sweep) is compared with gradients() on a second
// recording (bitwise where both sweep alike), with a persistent tape asked again and after reset(),
// with central differences (Richardson-extrapolated) of the same program in plain double, and with
// closed forms for long loops over several storage blocks. The programs mix batches of variables,
// scalar ops with repeated leaves, long statements, loops, and every reduction (sum, mean, prod,
// squared_norm, log_sum_exp, dot, quadratic_form, matvec, map_sum) over contiguous or gathered
// ranges with duplicates, gaps and constants; sources are whole batches, parts of them,
// permutations, duplicates, intermediates, constants and the target itself. Misuse (reals of
// another tape or from before reset(), sizes that differ, a second gradient of a non-persistent
// tape) must throw etad::error and leave the tape usable. Seeded: a failure names its seed.
// Checked against a deliberate bug: with gradient_of_range's position test loosened
// (`hi < max(f, leading_) + 1` for `!=`), 17 checks fail, the first at seed 918.
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

using R = etad::real<double>;

namespace {

struct Range {
  bool gathered = false;
  int lo = 0, len = 0;
  std::vector<int> idx;  // gathered: pool index, or <0 for a constant
};

enum Kind { VARS, VAR1, CONST, UN, BIN, LONG, RED, REDPTR, DOTC, DOT2, QF, MATVEC, MAPSUM, CHAIN };

struct Op {
  Op(Kind k = UN) : kind(k) {}
  Kind kind;
  int sub = 0;
  std::vector<int> args;
  Range r1, r2;
  std::vector<double> vals;
  int rows = 0;
  int scalar = -1;  // map_sum scalar: pool index, or -1 for a number
};

struct Program {
  std::vector<Op> ops;
  int pool_size = 0;
};

double const_value(int c) {
  switch (-c) {
    case 1: return 2.0;
    case 2: return 0.5;
    default: return -1.0;
  }
}

template <class V>
std::vector<V> gather(const std::vector<V>& pool, const Range& r) {
  std::vector<V> out;
  if (r.gathered) {
    for (int i : r.idx) out.push_back(i < 0 ? V(const_value(i)) : pool[i]);
  } else {
    out.assign(pool.begin() + r.lo, pool.begin() + r.lo + r.len);
  }
  return out;
}

/// The range's elements: a view of the pool, or of its gathered copy.
template <class V>
std::span<const V> view(const std::vector<V>& pool, const Range& r, const std::vector<V>& copy) {
  return r.gathered ? std::span<const V>(copy) : std::span<const V>(pool.data() + r.lo, r.len);
}

// ---- plain-double reductions
double d_sum(const std::vector<double>& x) { double s = 0; for (double v : x) s += v; return s; }
double d_prod(const std::vector<double>& x) { double s = 1; for (double v : x) s *= v; return s; }
double d_sq(const std::vector<double>& x) { double s = 0; for (double v : x) s += v * v; return s; }
double d_lse(const std::vector<double>& x) {
  if (x.empty()) return -INFINITY;
  double m = *std::max_element(x.begin(), x.end());
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s);
}

inline double msf(double a, double s) { return a * s + std::sin(a); }

// Executes the program; V = R (on the active tape t) or double (perturb slot `pert` by eps).
template <class V>
void exec(const Program& P, std::vector<V>& pool, etad::tape* t, int pert, double eps, int constify = -1) {
  using std::sin; using std::cos; using std::exp; using std::sqrt; using std::log;
  pool.clear();
  pool.reserve(P.pool_size);
  auto push = [&](const V& v) {
    pool.push_back(v);
    if constexpr (std::is_same_v<V, double>)
      if ((int)pool.size() - 1 == pert) pool.back() += eps;
    if constexpr (std::is_same_v<V, R>)
      if ((int)pool.size() - 1 == constify) pool.back() = R(pool.back().value());
  };
  for (const Op& op : P.ops) {
    const auto& a = op.args;
    switch (op.kind) {
      case VARS: {
        const std::size_t old = pool.size(), k = op.vals.size();
        if constexpr (std::is_same_v<V, R>) {
          pool.resize(old + k);
          t->variables(std::span<const double>(op.vals), std::span<R>(pool.data() + old, k));
        } else {
          for (std::size_t i = 0; i < k; ++i) pool.push_back(op.vals[i]);
        }
        for (std::size_t i = 0; i < k; ++i) {
          if constexpr (std::is_same_v<V, double>)
            if ((int)(old + i) == pert) pool[old + i] += eps;
          if constexpr (std::is_same_v<V, R>)
            if ((int)(old + i) == constify) pool[old + i] = R(pool[old + i].value());
        }
        break;
      }
      case VAR1:
        if constexpr (std::is_same_v<V, R>) push(t->variable(op.vals[0])); else push(op.vals[0]);
        break;
      case CONST: push(V(op.vals[0])); break;
      case UN: {
        const V x = pool[a[0]];
        V r;
        switch (op.sub) {
          case 0: r = sin(x); break;
          case 1: r = exp(x * 0.5); break;
          case 2: r = x * x; break;
          case 3: r = -x + 1.0; break;
          case 4: r = sqrt(1.0 + x * x); break;
          case 5: r = log(2.0 + cos(x)); break;
          case 6: r = cos(x) * x; break;
          default: r = x / (1.0 + x * x); break;
        }
        push(r);
        break;
      }
      case BIN: {
        const V x = pool[a[0]], y = pool[a[1]];
        V r;
        switch (op.sub) {
          case 0: r = x + y; break;
          case 1: r = x - y; break;
          case 2: r = x * y; break;
          case 3: r = x / (2.0 + sin(y)); break;
          case 4: r = x * y + x; break;
          case 5: r = sin(x) * cos(y); break;
          default: r = x * y * 0.9 + sin(y); break;
        }
        push(r);
        break;
      }
      case LONG: {
        V r;
        if (op.sub == 0)
          r = pool[a[0]] * pool[a[1]] + pool[a[2]] * pool[a[3]];
        else if (op.sub == 1)
          r = pool[a[0]] * pool[a[1]] + pool[a[2]] * pool[a[3]] + sin(pool[a[4]]);
        else
          r = pool[a[0]] * pool[a[1]] * 0.5 + pool[a[2]] * pool[a[3]] + sin(pool[a[4]]) +
              pool[a[5]] * cos(pool[a[6]]);
        push(r);
        break;
      }
      case CHAIN: {
        // z = z * y * 0.9 + sin(c), rows times: a loop with parameters y and c
        V z = pool[a[0]];
        const V y = pool[a[1]], c = pool[a[2]];
        for (int k = 0; k < op.rows; ++k) {
          z = z * y * 0.9 + sin(c);
          push(z);
          z = pool.back();
        }
        break;
      }
      case RED:
      case REDPTR: {
        std::vector<V> x;
        std::span<const V> s;
        if (op.r1.gathered) {
          x = gather(pool, op.r1);
          s = std::span<const V>(x);
        } else {
          s = std::span<const V>(pool.data() + op.r1.lo, op.r1.len);
        }
        V r;
        if constexpr (std::is_same_v<V, R>) {
          if (op.kind == RED) {
            switch (op.sub) {
              case 0: r = etad::sum(s); break;
              case 1: r = etad::mean(s); break;
              case 2: r = etad::prod(s); break;
              case 3: r = etad::squared_norm(s); break;
              default: r = etad::log_sum_exp(s); break;
            }
          } else {
            switch (op.sub) {
              case 0: r = etad::sum(s.data(), s.size()); break;
              case 1: r = etad::mean(s.data(), s.size()); break;
              case 2: r = etad::prod(s.data(), s.size()); break;
              case 3: r = etad::squared_norm(s.data(), s.size()); break;
              default: r = etad::log_sum_exp(s.data(), s.size()); break;
            }
          }
        } else {
          std::vector<double> xv(s.begin(), s.end());
          switch (op.sub) {
            case 0: r = d_sum(xv); break;
            case 1: r = d_sum(xv) / xv.size(); break;
            case 2: r = d_prod(xv); break;
            case 3: r = d_sq(xv); break;
            default: r = d_lse(xv); break;
          }
        }
        push(r);
        break;
      }
      case DOTC: {
        std::vector<V> x = gather(pool, op.r1);
        std::span<const V> s = view(pool, op.r1, x);
        V r;
        if constexpr (std::is_same_v<V, R>) {
          if (op.sub == 0) r = etad::dot(s, op.vals);
          else if (op.sub == 1) r = etad::dot(op.vals, s);
          else r = etad::dot(s.data(), op.vals.data(), s.size());
        } else {
          double acc = 0;
          for (std::size_t i = 0; i < s.size(); ++i) acc += s[i] * op.vals[i];
          r = acc;
        }
        push(r);
        break;
      }
      case DOT2: {
        std::vector<V> x = gather(pool, op.r1), y = gather(pool, op.r2);
        std::span<const V> s1 = view(pool, op.r1, x);
        std::span<const V> s2 = view(pool, op.r2, y);
        V r;
        if constexpr (std::is_same_v<V, R>) {
          if (op.sub == 0) r = etad::dot(s1, s2);
          else r = etad::dot(s1.data(), s2.data(), s1.size());
        } else {
          double acc = 0;
          for (std::size_t i = 0; i < s1.size(); ++i) acc += s1[i] * s2[i];
          r = acc;
        }
        push(r);
        break;
      }
      case QF: {
        std::vector<V> x = gather(pool, op.r1);
        std::span<const V> s = view(pool, op.r1, x);
        V r;
        if constexpr (std::is_same_v<V, R>) {
          r = etad::quadratic_form(op.vals, s);
        } else {
          const std::size_t n = s.size();
          double acc = 0;
          for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) acc += s[i] * op.vals[i * n + j] * s[j];
          r = acc;
        }
        push(r);
        break;
      }
      case MATVEC: {
        std::vector<V> x = gather(pool, op.r1);
        std::span<const V> s = view(pool, op.r1, x);
        const std::size_t n = s.size();
        std::vector<V> out(op.rows);
        if constexpr (std::is_same_v<V, R>) {
          etad::matvec(op.vals, s, std::span<R>(out));
        } else {
          for (int i = 0; i < op.rows; ++i) {
            double acc = 0;
            for (std::size_t j = 0; j < n; ++j) acc += op.vals[i * n + j] * s[j];
            out[i] = acc;
          }
        }
        for (const V& v : out) push(v);
        break;
      }
      case MAPSUM: {
        std::vector<V> x = gather(pool, op.r1);
        std::span<const V> s = view(pool, op.r1, x);
        V r;
        if constexpr (std::is_same_v<V, R>) {
          auto f = [](auto e, auto c) { return e * c + etad::sin(e); };
          if (op.scalar >= 0) r = etad::map_sum(f, s, pool[op.scalar]);
          else r = etad::map_sum(f, s, op.vals[0]);
        } else {
          const double c = op.scalar >= 0 ? pool[op.scalar] : op.vals[0];
          double acc = 0;
          for (std::size_t i = 0; i < s.size(); ++i) acc += msf(s[i], c);
          r = acc;
        }
        push(r);
        break;
      }
    }
  }
}

// ---- generation
struct Gen {
  std::mt19937_64 rng;
  explicit Gen(std::uint64_t seed) : rng(seed) {}
  int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  double val(double lo = -1, double hi = 1) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    if (u < 0.02) return 0.0;
    if (u < 0.04) return -0.0;
    if (u < 0.05) return 1.0;
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  }
  bool p(double q) { return std::uniform_real_distribution<double>(0, 1)(rng) < q; }
};

struct Block { int lo, len; };  // a VARS block in the pool

/// Appends a batch of k variables to P (n values so far) and records it as a block.
void add_variables(Gen& g, Program& P, int& n, std::vector<Block>& blocks, int k) {
  Op op{VARS};
  for (int i = 0; i < k; ++i) op.vals.push_back(g.val(-1, 1));
  blocks.push_back({n, k});
  n += k;
  P.ops.push_back(op);
}

int pick(Gen& g, int n, int param) {
  // biased toward the last, two below, and a fixed "parameter"
  const int r = g.uni(0, 9);
  if (r < 3) return n - 1;
  if (r < 4 && n >= 2) return n - 2;
  if (r < 6 && param >= 0) return param;
  return g.uni(0, n - 1);
}

Range rand_range(Gen& g, int n, const std::vector<Block>& blocks, int maxlen = 40) {
  Range r;
  const int c = g.uni(0, 9);
  if (c < 4 && !blocks.empty()) {
    const Block& b = blocks[g.uni(0, (int)blocks.size() - 1)];
    const int len = g.uni(1, b.len);
    r.lo = b.lo + g.uni(0, b.len - len);
    r.len = len;
  } else if (c < 6) {
    const int len = g.uni(1, std::min(n, maxlen));
    r.lo = g.uni(0, n - len);
    r.len = len;
  } else {
    r.gathered = true;
    const int len = g.uni(1, std::min(maxlen, 12));
    const int kind = g.uni(0, 3);
    if (kind == 0 && !blocks.empty()) {
      // a block with one element duplicated or replaced (ends consecutive, middle not)
      const Block& b = blocks[g.uni(0, (int)blocks.size() - 1)];
      for (int i = 0; i < b.len; ++i) r.idx.push_back(b.lo + i);
      if (b.len >= 3) {
        const int k = g.uni(1, b.len - 2);
        const int w = g.uni(0, 2);
        if (w == 0) r.idx[k] = r.idx[k - 1];
        else if (w == 1) r.idx[k] = -g.uni(1, 3);
        else std::swap(r.idx[k], r.idx[k + 1]);
      } else {
        r.idx.push_back(b.lo);
      }
    } else {
      for (int i = 0; i < len; ++i) {
        if (g.p(0.15)) r.idx.push_back(-g.uni(1, 3));
        else r.idx.push_back(g.uni(0, n - 1));
      }
    }
  }
  return r;
}

int range_len(const Range& r) { return r.gathered ? (int)r.idx.size() : r.len; }

Op reduction_over(Gen& g, const Range& r, int n) {
  const int c = g.uni(0, 9);
  Op op;
  op.r1 = r;
  const int len = range_len(r);
  if (c <= 4) {
    op.kind = g.p(0.2) ? REDPTR : RED;
    op.sub = g.uni(0, 4);
  } else if (c == 5) {
    op.kind = DOTC;
    op.sub = g.uni(0, 2);
    for (int i = 0; i < len; ++i) op.vals.push_back(g.p(0.1) ? 0.0 : g.val(-2, 2));
  } else if (c == 6) {
    op.kind = DOT2;
    op.sub = g.uni(0, 1);
    op.r2 = r;
  } else if (c == 7 && len <= 12) {
    op.kind = QF;
    for (int i = 0; i < len * len; ++i) op.vals.push_back(g.val(-1, 1));
  } else if (c == 8) {
    op.kind = MATVEC;
    op.rows = 1;
    for (int i = 0; i < len; ++i) op.vals.push_back(g.val(-1, 1));
  } else {
    op.kind = MAPSUM;
    if (g.p(0.3)) op.scalar = g.uni(0, n - 1);
    op.vals = {g.val()};
  }
  return op;
}

// A reduction right after the variables (gradient()'s inline shortcut), sources around its range.
Program generate_fast(Gen& g, std::vector<Block>& blocks, std::vector<int>& sources) {
  Program P;
  int n = 0;
  blocks.clear();
  auto vars = [&](int k) { add_variables(g, P, n, blocks, k); };
  for (int i = 0, k = g.p(0.3) ? g.uni(1, 3) : 0; i < k; ++i) {
    Op op{VAR1};
    op.vals = {g.val()};
    P.ops.push_back(op);
    blocks.push_back({n, 1});
    ++n;
  }
  if (g.p(0.1)) { Op op{CONST}; op.vals = {1.5}; P.ops.push_back(op); ++n; }
  vars(g.p(0.4) ? g.uni(17, 70) : g.uni(1, 16));
  if (g.p(0.3)) vars(g.uni(1, 20));
  Range r;
  const int c = g.uni(0, 9);
  int extra = 0;
  if (c == 0) {
    // a scalar statement right after the variables, then a reduction over it alone or a range
    // ending with it
    Op u{UN};
    u.sub = g.uni(0, 7);
    u.args = {g.uni(0, n - 1)};
    P.ops.push_back(u);
    ++n;
    r.len = g.p(0.5) ? 1 : g.uni(1, n);
    r.lo = n - r.len;
    extra = 1;
  } else if (c == 1) {
    // a statement first: the shortcut must not answer
    Op u{BIN};
    u.sub = g.uni(0, 6);
    u.args = {g.uni(0, n - 1), g.uni(0, n - 1)};
    P.ops.push_back(u);
    ++n;
    r.len = g.uni(1, n - 1);
    r.lo = g.uni(0, n - 1 - r.len);
  } else if (c == 2) {
    r.gathered = true;
    const Block& b = blocks.back();
    for (int i = 0; i < b.len; ++i) r.idx.push_back(b.lo + i);
    const int k = g.uni(0, b.len - 1);
    const int w = g.uni(0, 2);
    if (w == 0) r.idx[k] = -1;
    else if (w == 1 && b.len >= 2) r.idx[k] = r.idx[k == 0 ? 1 : k - 1];
    else r.idx.push_back(b.lo);
  } else {
    r.len = g.uni(1, n);
    r.lo = g.uni(0, n - r.len);
    if (g.p(0.4)) { r.lo = blocks.back().lo; r.len = blocks.back().len; }
  }
  (void)extra;
  P.ops.push_back(reduction_over(g, r, n));
  const int target = n;
  ++n;
  P.pool_size = n;
  // sources around the range
  const int lo = r.gathered ? blocks.back().lo : r.lo;
  const int len = r.gathered ? blocks.back().len : r.len;
  const int sc = g.uni(0, 9);
  int a = lo, b = lo + len;  // [a, b)
  if (sc <= 2) {
  } else if (sc <= 4) {
    a = lo + g.uni(0, len - 1);
    b = g.uni(a + 1, lo + len);
  } else if (sc == 5) {
    a = std::max(0, lo - g.uni(0, 2));
    b = std::min(n, lo + len + g.uni(0, 2));
  } else if (sc == 6) {
    a = g.uni(0, n - 1);
    b = g.uni(a + 1, n);
  } else if (sc == 7) {
    for (int i = lo; i < lo + len; ++i) sources.push_back(i);
    std::swap(sources[0], sources.back());
    return P;
  } else if (sc == 8) {
    for (int i = lo; i < lo + len; ++i) sources.push_back(i);
    sources.push_back(target);
    return P;
  } else {
    for (int i = lo; i < lo + len; ++i) sources.push_back(i);
    sources[g.uni(0, len - 1)] = g.p(0.5) ? -1 : lo;
    return P;
  }
  for (int i = a; i < b; ++i) sources.push_back(i);
  return P;
}

// Several blocks of storage: long chains, a reduction of its own block.
Program generate_big(Gen& g, std::vector<Block>& blocks) {
  Program P;
  int n = 0;
  blocks.clear();
  auto vars = [&](int k) { add_variables(g, P, n, blocks, k); };
  vars(g.uni(1, 40));
  std::vector<int> results;
  const int parts = g.uni(1, 4);
  for (int q = 0; q < parts; ++q) {
    const int c = g.uni(0, 3);
    if (c == 0) {
      const int k = g.uni(60000, 140000);
      vars(k);
      Op op{RED};
      const int subs[] = {0, 1, 3, 4};
      op.sub = subs[g.uni(0, 3)];
      op.r1.lo = n - k + g.uni(0, 10);
      op.r1.len = k - g.uni(0, 10) - (op.r1.lo - (n - k));
      if (g.p(0.3)) {
        op.kind = DOTC;
        op.sub = 0;
        for (int i = 0; i < op.r1.len; ++i) op.vals.push_back(g.val(-1, 1));
      }
      P.ops.push_back(op);
      results.push_back(n++);
    } else if (c == 1) {
      Op op{CHAIN};
      op.args = {g.uni(0, n - 1), g.uni(0, blocks[0].len - 1), g.uni(0, n - 1)};
      op.rows = g.uni(20000, 80000);
      P.ops.push_back(op);
      n += op.rows;
      results.push_back(n - 1);
    } else if (c == 2) {
      // many 5- and 7-partial statements (two registers, next2)
      const int k = g.uni(10000, 30000);
      for (int i = 0; i < k; ++i) {
        Op op{LONG};
        op.sub = g.uni(0, 2);
        const int nk = op.sub == 0 ? 4 : op.sub == 1 ? 5 : 7;
        for (int j = 0; j < nk; ++j) op.args.push_back(j == 0 ? n - 1 : j == 1 ? std::max(0, n - 2) : g.uni(0, blocks[0].len - 1));
        // keep it bounded: multiply by small constants through UN
        P.ops.push_back(op);
        ++n;
        Op u{UN};
        u.sub = 0;  // sin
        u.args = {n - 1};
        P.ops.push_back(u);
        ++n;
      }
      results.push_back(n - 1);
    } else {
      Op op{RED};
      op.sub = g.uni(0, 4);
      op.r1.lo = 0;
      op.r1.len = n;
      if (op.sub == 2) op.sub = 0;
      P.ops.push_back(op);
      results.push_back(n++);
    }
  }
  // combine the results
  for (std::size_t i = 1; i < results.size(); ++i) {
    Op op{BIN};
    op.sub = g.uni(0, 5);
    op.args = {results[i], i == 1 ? results[0] : n - 1};
    P.ops.push_back(op);
    ++n;
  }
  P.pool_size = n;
  return P;
}

Program generate(Gen& g, std::vector<Block>& blocks, bool& simple) {
  Program P;
  int n = 0;
  blocks.clear();
  auto vars = [&](int k) { add_variables(g, P, n, blocks, k); };
  // leading variables
  const int mode = g.uni(0, 9);
  simple = mode < 4;
  if (g.p(0.2)) {
    for (int i = 0, k = g.uni(1, 3); i < k; ++i) {
      Op op{VAR1};
      op.vals = {g.val()};
      P.ops.push_back(op);
      ++n;
    }
  }
  vars(g.p(0.2) ? g.uni(17, 60) : g.uni(1, 16));
  if (g.p(0.3)) vars(g.uni(1, 20));
  if (g.p(0.2)) {
    Op op{CONST};
    op.vals = {g.val()};
    P.ops.push_back(op);
    ++n;
  }
  int nops = simple ? g.uni(0, 2) : (g.p(0.05) ? g.uni(200, 3000) : g.uni(1, 40));
  const int param = g.uni(0, n - 1);
  for (int s = 0; s < nops || (simple && s == 0); ++s) {
    const int c = simple ? 6 + g.uni(0, 6) : g.uni(0, 15);
    Op op{UN};
    if (c <= 2) {
      op.kind = UN;
      op.sub = g.uni(0, 7);
      op.args = {pick(g, n, param)};
      ++n;
    } else if (c <= 4) {
      op.kind = BIN;
      op.sub = g.uni(0, 6);
      op.args = {pick(g, n, param), pick(g, n, param)};
      ++n;
    } else if (c == 5) {
      op.kind = LONG;
      op.sub = g.uni(0, 2);
      const int k = op.sub == 0 ? 4 : op.sub == 1 ? 5 : 7;
      for (int i = 0; i < k; ++i) op.args.push_back(pick(g, n, param));
      ++n;
    } else if (c <= 8) {
      op.kind = g.p(0.2) ? REDPTR : RED;
      op.sub = g.uni(0, 4);
      op.r1 = rand_range(g, n, blocks);
      ++n;
    } else if (c == 9) {
      op.kind = DOTC;
      op.sub = g.uni(0, 2);
      op.r1 = rand_range(g, n, blocks);
      for (int i = 0; i < range_len(op.r1); ++i) op.vals.push_back(g.p(0.1) ? 0.0 : g.val(-2, 2));
      ++n;
    } else if (c == 10) {
      op.kind = DOT2;
      op.sub = g.uni(0, 1);
      op.r1 = rand_range(g, n, blocks);
      const int len = range_len(op.r1);
      if (g.p(0.3)) {
        op.r2 = op.r1;  // dot(x, x)
      } else if (n >= len && g.p(0.6)) {
        op.r2.lo = g.uni(0, n - len);
        op.r2.len = len;
      } else {
        op.r2.gathered = true;
        for (int i = 0; i < len; ++i) op.r2.idx.push_back(g.p(0.1) ? -1 : g.uni(0, n - 1));
      }
      ++n;
    } else if (c == 11) {
      op.kind = QF;
      op.r1 = rand_range(g, n, blocks, 10);
      const int len = range_len(op.r1);
      for (int i = 0; i < len * len; ++i) op.vals.push_back(g.val(-1, 1));
      ++n;
    } else if (c == 12) {
      op.kind = MATVEC;
      op.r1 = rand_range(g, n, blocks, 10);
      op.rows = g.uni(1, 4);
      const int len = range_len(op.r1);
      for (int i = 0; i < len * op.rows; ++i) op.vals.push_back(g.val(-1, 1));
      n += op.rows;
    } else if (c == 13) {
      op.kind = MAPSUM;
      op.r1 = rand_range(g, n, blocks, 20);
      if (g.p(0.6)) op.scalar = pick(g, n, param);
      op.vals = {g.val()};
      ++n;
    } else if (c == 14) {
      op.kind = CHAIN;
      op.args = {pick(g, n, param), param, pick(g, n, param)};
      op.rows = g.uni(2, 30);
      n += op.rows;
    } else {
      if (g.p(0.5)) vars(g.uni(1, 20));
      else {
        Op o{VAR1};
        o.vals = {g.val()};
        P.ops.push_back(o);
        ++n;
      }
      continue;
    }
    P.ops.push_back(op);
  }
  P.pool_size = n;
  return P;
}

std::vector<int> rand_sources(Gen& g, int n, int target, const std::vector<Block>& blocks) {
  std::vector<int> s;
  const Block& b = blocks[g.uni(0, (int)blocks.size() - 1)];
  const int c = g.uni(0, 15);
  switch (c) {
    case 14: { for (int i = std::max(0, target - g.uni(0, 3)); i <= std::min(n - 1, target + g.uni(0, 1)); ++i) s.push_back(i); break; }
    case 15: { s.push_back(std::max(0, target - g.uni(1, 2))); if (g.p(0.5)) s.push_back(target); break; }
    case 0: for (int i = 0; i < b.len; ++i) s.push_back(b.lo + i); break;           // whole
    case 1: { int k = g.uni(1, b.len); for (int i = 0; i < k; ++i) s.push_back(b.lo + i); break; }  // prefix
    case 2: { int k = g.uni(1, b.len); for (int i = b.len - k; i < b.len; ++i) s.push_back(b.lo + i); break; }
    case 3: { int k = g.uni(1, b.len); int o = g.uni(0, b.len - k); for (int i = 0; i < k; ++i) s.push_back(b.lo + o + i); break; }
    case 4: { for (int i = 0; i < b.len; ++i) s.push_back(b.lo + i); std::shuffle(s.begin(), s.end(), g.rng); break; }
    case 5: { for (int i = 0; i < b.len; ++i) s.push_back(b.lo + i); s.push_back(b.lo + g.uni(0, b.len - 1)); if (g.p(0.5)) std::shuffle(s.begin(), s.end(), g.rng); break; }
    case 6: { int k = g.uni(1, std::min(n, 40)); int o = g.uni(0, n - k); for (int i = 0; i < k; ++i) s.push_back(o + i); break; }  // any contiguous pool span
    case 7: { int k = g.uni(1, 30); for (int i = 0; i < k; ++i) s.push_back(g.uni(0, n - 1)); break; }
    case 8: s.push_back(target); break;
    case 9: { for (int i = 0; i < b.len; ++i) s.push_back(b.lo + i); s.push_back(target); break; }
    case 10: { for (int i = 0; i < b.len; ++i) s.push_back(b.lo + i); s.insert(s.begin() + g.uni(0, (int)s.size()), -1); break; }
    case 11: { s.push_back(-1); for (int i = 0; i < b.len; ++i) s.push_back(b.lo + i); break; }
    case 12: { int k = g.uni(1, std::min(n, 40)); int o = g.uni(0, n - k); for (int i = 0; i < k; ++i) s.push_back(o + i); if (k>1) s[g.uni(0,k-1)] = target; break; }
    default: { for (int i = 0; i < n; ++i) s.push_back(i); break; }  // everything
  }
  return s;
}

std::vector<R> make_sources(const std::vector<R>& pool, const std::vector<int>& s) {
  std::vector<R> r;
  for (int i : s) r.push_back(i < 0 ? R(2.0) : pool[i]);
  return r;
}

int failures = 0;
double big_probability = 0.0;
long checks = 0;
std::uint64_t current_seed = 0;
std::vector<std::string> failure_messages;  // the first few, for the report

void fail(const char* what, int k, double got, double want) {
  ++failures;
  if (failure_messages.size() < 20) {
    std::ostringstream m;
    m.precision(17);
    m << "seed " << current_seed << ": " << what << ", source #" << k << ": got " << got
      << ", want " << want;
    failure_messages.push_back(m.str());
  }
}

bool close(double a, double b, double rel) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  return std::fabs(a - b) <= rel * std::max({1.0, std::fabs(a), std::fabs(b)});
}

template <class F>
bool throws(F&& f) {
  try {
    f();
  } catch (const etad::error&) {
    return true;
  }
  return false;
}

void run(std::uint64_t seed) {
  current_seed = seed;
  Gen g(seed);
  std::vector<Block> blocks;
  bool simple = true;
  const bool fast = g.p(0.35);
  const bool big = !fast && g.p(big_probability);
  std::vector<int> sidx;
  Program P = fast ? generate_fast(g, blocks, sidx) : big ? generate_big(g, blocks) : generate(g, blocks, simple);
  const int n = P.pool_size;
  // target: usually the last, sometimes random
  int target = n - 1;
  if (!fast) {
    if ((!simple || big) && g.p(0.3)) target = g.uni(0, n - 1);
    sidx = rand_sources(g, n, target, blocks);
  }
  const std::size_t m = sidx.size();

  // double reference run
  std::vector<double> dpool;
  exec<double>(P, dpool, nullptr, -1, 0.0);

  std::vector<double> ga(m), gb(m), gc1(m), gc2(m), gc3(m);
  std::vector<std::optional<double>> gnone, gzero;
  std::vector<R> poolA;
  std::vector<bool> is_const(n);
  bool values_agree = true, earlier_exact = true;
  {
    etad::tape A;
    exec<R>(P, poolA, &A, -1, 0.0);
    if ((int)poolA.size() != n) {
      fail("the tape's program made a different number of values", -1, double(poolA.size()), n);
      return;
    }
    for (int i = 0; i < n; ++i) {
      is_const[i] = poolA[i].is_constant();
      if (!close(poolA[i].value(), dpool[i], 1e-9) && !(poolA[i].value() == dpool[i])) {
        if (values_agree && earlier_exact) fail("value", i, poolA[i].value(), dpool[i]);
        values_agree = false;
      }
      if (!(std::fabs(poolA[i].value() - dpool[i]) <= 1e-11)) earlier_exact = false;
    }
    // distinct indices among non-constants
    {
      std::vector<unsigned> ids;
      for (auto& r : poolA) if (!r.is_constant()) ids.push_back(r.index());
      std::sort(ids.begin(), ids.end());
      if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) fail("two reals share an index", -1, 0, 0);
    }
    const std::vector<R> srcA = make_sources(poolA, sidx);
    {
      // a second tape recording the same program: its reals are foreign to A
      etad::tape D;
      std::vector<R> poolD;
      exec<R>(P, poolD, &D, -1, 0.0);
      const std::vector<R> srcD = make_sources(poolD, sidx);
      std::vector<double> out(m, 12345.0);
      bool any_src = false;
      for (auto& r : srcD) any_src |= !r.is_constant();
      ++checks;
      if (!poolD[target].is_constant() &&
          !throws([&] { A.gradient(poolD[target], std::span<const R>(srcA), std::span<double>(out)); }))
        fail("foreign target did not throw", -1, 0, 0);
      if (any_src && !throws([&] { A.gradient(poolA[target], std::span<const R>(srcD), std::span<double>(out)); }))
        fail("foreign sources did not throw", -1, 0, 0);
      if (any_src && !throws([&] { (void)A.gradients(std::vector<R>{poolA[target]}, srcD, {.unconnected_gradients = etad::unconnected::zero}); }))
        fail("gradients: foreign sources did not throw", -1, 0, 0);
      // one foreign source among the valid ones, at a random place
      {
        std::vector<R> mixed = srcA;
        int where = g.uni(0, (int)m);
        R foreign = poolD[blocks[0].lo];
        mixed.insert(mixed.begin() + where, foreign);
        std::vector<double> out2(mixed.size());
        if (!throws([&] { A.gradient(poolA[target], std::span<const R>(mixed), std::span<double>(out2)); }))
          fail("one foreign source did not throw", where, 0, 0);
      }
      // size mismatch
      std::vector<double> bad(m + 1);
      if (!throws([&] { A.gradient(poolA[target], std::span<const R>(srcA), std::span<double>(bad)); }))
        fail("size mismatch (+1) did not throw", -1, 0, 0);
      if (m > 0) {
        std::vector<double> bad2(m - 1);
        if (!throws([&] { A.gradient(poolA[target], std::span<const R>(srcA), std::span<double>(bad2)); }))
          fail("size mismatch (-1) did not throw", -1, 0, 0);
      }
    }
    // (a): the errors left A unused
    try {
      A.gradient(poolA[target], std::span<const R>(srcA), std::span<double>(ga));
    } catch (const etad::error& e) {
      fail(("gradient threw after errors: " + std::string(e.what())).c_str(), -1, 0, 0);
      return;
    }
    std::vector<double> again(m);
    if (!throws([&] { A.gradient(poolA[target], std::span<const R>(srcA), std::span<double>(again)); }))
      fail("non-persistent second gradient did not throw", -1, 0, 0);
    if (!throws([&] { (void)A.gradients(std::vector<R>{poolA[target]}, srcA); }))
      fail("non-persistent gradients after gradient did not throw", -1, 0, 0);
  }
  {
    etad::tape B;
    std::vector<R> poolB;
    exec<R>(P, poolB, &B, -1, 0.0);
    const std::vector<R> srcB = make_sources(poolB, sidx);
    gzero = B.gradients(std::vector<R>{poolB[target]}, srcB, {.unconnected_gradients = etad::unconnected::zero});
  }
  {
    etad::tape C{etad::persistent};
    std::vector<R> poolC;
    exec<R>(P, poolC, &C, -1, 0.0);
    std::vector<R> srcC = make_sources(poolC, sidx);
    C.gradient(poolC[target], std::span<const R>(srcC), std::span<double>(gc1));
    gnone = C.gradients(std::vector<R>{poolC[target]}, srcC);
    C.gradient(poolC[target], std::span<const R>(srcC), std::span<double>(gc2));
    if (m >= 1 && m <= 3) {
      std::array<double, 3> v{};
      if (m == 1) { auto r = C.gradient(poolC[target], srcC[0]); v[0] = r[0]; }
      if (m == 2) { auto r = C.gradient(poolC[target], srcC[0], srcC[1]); v[0] = r[0]; v[1] = r[1]; }
      if (m == 3) { auto r = C.gradient(poolC[target], srcC[0], srcC[1], srcC[2]); v[0] = r[0]; v[1] = r[1]; v[2] = r[2]; }
      for (std::size_t k = 0; k < m; ++k)
        if (!close(v[k], gc1[k], 1e-12)) fail("variadic vs span", (int)k, v[k], gc1[k]);
    }
    // stale reals after reset
    C.reset();
    const R old_target = poolC[target];
    std::vector<double> out(m);
    bool any_src = false;
    for (auto& r : srcC) any_src |= !r.is_constant();
    if (!old_target.is_constant() &&
        !throws([&] { C.gradient(old_target, std::span<const R>(srcC), std::span<double>(out)); }))
      fail("stale target did not throw", -1, 0, 0);
    // record again on the reset tape; old sources must throw, new ones must give the same answer
    std::vector<R> pool2;
    exec<R>(P, pool2, &C, -1, 0.0);
    std::vector<R> src2 = make_sources(pool2, sidx);
    if (any_src && !throws([&] { C.gradient(pool2[target], std::span<const R>(srcC), std::span<double>(out)); }))
      fail("stale sources (same indices) did not throw", -1, 0, 0);
    if (!pool2[target].is_constant() &&
        !throws([&] { C.gradient(old_target, std::span<const R>(src2), std::span<double>(out)); }))
      fail("stale target (after re-record) did not throw", -1, 0, 0);
    C.gradient(pool2[target], std::span<const R>(src2), std::span<double>(gc3));
  }
  // comparisons
  for (std::size_t k = 0; k < m; ++k) {
    ++checks;
    if (std::memcmp(&ga[k], &gc1[k], 8) != 0 && !(std::isnan(ga[k]) && std::isnan(gc1[k])))
      fail("A.gradient vs C.gradient (bitwise)", (int)k, ga[k], gc1[k]);
    if (std::memcmp(&gc1[k], &gc2[k], 8) != 0 && !(std::isnan(gc2[k]) && std::isnan(gc1[k])))
      fail("persistent repeated gradient (bitwise)", (int)k, gc2[k], gc1[k]);
    if (std::memcmp(&gc1[k], &gc3[k], 8) != 0 && !(std::isnan(gc3[k]) && std::isnan(gc1[k])))
      fail("after reset+re-record (bitwise)", (int)k, gc3[k], gc1[k]);
    if (!gzero[k].has_value()) fail("zero option gave none", (int)k, 0, 0);
    const double b = gzero[k].value_or(NAN);
    if ((m <= 16 || fast) && std::memcmp(&ga[k], &b, 8) != 0 && !(std::isnan(ga[k]) && std::isnan(b)))
      fail("gradient vs gradients(zero) bitwise", (int)k, ga[k], b);
    if (!close(ga[k], b, big ? 1e-9 : 1e-12)) fail("gradient vs gradients(zero)", (int)k, ga[k], b);
    if (gnone[k].has_value()) {
      if (!close(ga[k], *gnone[k], big ? 1e-9 : 1e-12)) fail("gradient vs gradients(none)", (int)k, ga[k], *gnone[k]);
    } else if (ga[k] != 0.0) {
      fail("gradients(none) says unconnected but gradient nonzero", (int)k, ga[k], 0);
    }
    const int s = sidx[k];
    if (s < 0 || is_const[s]) {
      if (ga[k] != 0.0) fail("constant source nonzero", (int)k, ga[k], 0);
      if (gnone[k].has_value()) fail("constant source connected (none)", (int)k, *gnone[k], 0);
    }
  }
  // gradients() options: two targets with seeds, one stop_gradients entry, against gradient()
  // on recordings where the stopped value is a constant.
  if (n <= 5000) {
    const int t2 = g.uni(0, n - 1);
    int stop = g.uni(0, n - 1);
    const double w1 = g.val(-2, 2), w2 = g.val(-2, 2);
    auto one = [&](int tgt, int constify) {
      etad::tape F;
      std::vector<R> pl;
      exec<R>(P, pl, &F, -1, 0.0, constify);
      std::vector<R> sr = make_sources(pl, sidx);
      std::vector<double> o(m);
      F.gradient(pl[tgt], std::span<const R>(sr), std::span<double>(o));
      if (constify >= 0)
        for (std::size_t k = 0; k < m; ++k)
          if (sidx[k] >= 0 && sidx[k] != constify && pl[sidx[k]].is_constant()) o[k] = NAN;  // made constant: no reference
      return o;
    };
    std::vector<std::optional<double>> got;
    bool stop_const;
    {
      etad::tape F{etad::persistent};
      std::vector<R> pl;
      exec<R>(P, pl, &F, -1, 0.0);
      stop_const = pl[stop].is_constant();
      std::vector<R> sr = make_sources(pl, sidx);
      const double seeds[] = {w1, w2};
      const R stops[] = {pl[stop]};
      got = F.gradients(std::vector<R>{pl[target], pl[t2]}, sr,
                        {.output_gradients = seeds, .stop_gradients = stops,
                         .unconnected_gradients = etad::unconnected::zero});
    }
    if (!stop_const) {
      const auto s1 = one(target, stop), s2 = one(t2, stop);
      const auto n1 = one(target, -1), n2 = one(t2, -1);
      for (std::size_t k = 0; k < m; ++k) {
        ++checks;
        const bool is_stop = sidx[k] == stop;
        if (std::isnan(s1[k]) || std::isnan(s2[k])) continue;
        double want = is_stop ? w1 * n1[k] + w2 * n2[k] : w1 * s1[k] + w2 * s2[k];
        if (is_stop && target == stop) want = w1 * 1.0 + w2 * n2[k];
        const double scale = std::fabs(w1 * (is_stop ? n1[k] : s1[k])) + std::fabs(w2 * (is_stop ? n2[k] : s2[k]));
        if (!got[k] || !(std::fabs(*got[k] - want) <= 1e-12 * std::max(1.0, scale) || *got[k] == want || (std::isnan(*got[k]) && std::isnan(want))))
          fail(is_stop ? "options (stopped source)" : "options (seeds + stop_gradients)", (int)k, got[k].value_or(-999), want);
      }
    }
  }
  // finite differences (only when values are tame)
  bool tame = values_agree;
  for (double v : dpool) tame &= std::isfinite(v) && std::fabs(v) < 1e4;
  if (!tame) return;
  std::vector<double> tmp;
  std::vector<double> fd_cache(n, NAN);
  int fd_budget = n > 5000 ? 12 : 1 << 30;
  for (std::size_t k = 0; k < m; ++k) {
    const int s = sidx[k];
    if (s < 0 || is_const[s]) continue;
    if (n > 5000 && !(k < 4 || k + 4 >= m || g.p(0.01))) continue;
    if (fd_budget-- <= 0) break;
    double fd = fd_cache[s];
    if (std::isnan(fd)) {
      auto f = [&](double e) {
        exec<double>(P, tmp, nullptr, s, e);
        return tmp[target];
      };
      auto rich = [&](double h) {
        const double d1 = (f(h) - f(-h)) / (2 * h);
        const double d2 = (f(h / 2) - f(-h / 2)) / h;
        return (4 * d2 - d1) / 3;
      };
      fd = rich(1e-3);
      if (!close(ga[k], fd, 1e-6)) {
        double prev = fd;
        bool ok = false;
        for (double h : {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9}) {
          const double cur = rich(h);
          if (close(ga[k], prev, 1e-5) && close(ga[k], cur, 1e-5)) ok = true;
          prev = cur;
        }
        if (ok) fd = ga[k];
      }
      fd_cache[s] = fd;
    }
    ++checks;
    if (!close(ga[k], fd, 1e-6)) fail("gradient vs finite difference", (int)k, ga[k], fd);
  }
}

// A long chain z_{i+1} = z_i * y * 0.9 + sin(c) over several blocks: d z_t / d z_{t-j} = (0.9 y)^j,
// d z_t / d c = cos(c) * sum_{j<t} (0.9y)^j (closed forms), for targets anywhere.
void run_chain(std::uint64_t seed) {
  current_seed = seed;
  Gen g(seed * 104729 + 3);
  etad::tape T{etad::persistent};
  const int K = g.uni(1000, 120000);
  const double yv = g.val(0.5, 1.0), cv = g.val(), z0 = g.val();
  R y = T.variable(yv), c = T.variable(cv);
  std::vector<double> extra(g.uni(0, 5));
  for (auto& e : extra) e = g.val();
  std::vector<R> ev = T.variables(extra);
  std::vector<R> z(K + 1);
  z[0] = T.variable(z0);
  for (int i = 0; i < K; ++i) z[i + 1] = z[i] * y * 0.9 + sin(c);
  const double a = 0.9 * yv;
  for (int rep = 0; rep < 8; ++rep) {
    const int t = g.uni(3, K);
    const int j = g.uni(1, 2);
    std::vector<R> src;
    std::vector<double> want;
    const int kind = g.uni(0, 3);
    if (kind == 0) { src = {z[t - j]}; want = {std::pow(a, j)}; }
    else if (kind == 1) { src = {z[t - 2], z[t - 1], z[t]}; want = {a * a, a, 1.0}; }
    else if (kind == 2) { src = {z[t - 1], c}; double sc = 0, pw = 1; for (int q = 0; q < t; ++q) { sc += pw; pw *= a; } want = {a, std::cos(cv) * sc}; }
    else { src = {z[t - 1], z[t]}; want = {a, 1.0}; }
    std::vector<double> out(src.size());
    T.gradient(z[t], std::span<const R>(src), std::span<double>(out));
    auto nn = T.gradients(std::vector<R>{z[t]}, src);
    for (std::size_t k = 0; k < src.size(); ++k) {
      ++checks;
      if (!close(out[k], want[k], 1e-10)) fail("chain closed form", (int)k, out[k], want[k]);
      if (!nn[k] || !close(*nn[k], want[k], 1e-10)) fail("chain closed form (gradients)", (int)k, nn[k].value_or(-999), want[k]);
    }
  }
}

// One persistent tape reused across recordings of different programs (reset() between), against
// a fresh tape per program: bitwise equal gradients.
void run_resets(std::uint64_t seed) {
  current_seed = seed;
  Gen g(seed * 7919 + 17);
  etad::tape T{etad::persistent};
  const int rounds = g.uni(2, 6);
  for (int r = 0; r < rounds; ++r) {
    std::vector<Block> blocks;
    bool simple = true;
    std::vector<int> sidx;
    const int mode = g.uni(0, 9);
    Program P = mode < 3 ? generate_fast(g, blocks, sidx)
              : mode < 4 && g.p(big_probability * 10) ? generate_big(g, blocks)
                                                      : generate(g, blocks, simple);
    const int n = P.pool_size;
    const int target = n - 1;
    if (sidx.empty()) sidx = rand_sources(g, n, target, blocks);
    const std::size_t m = sidx.size();
    T.reset();
    std::vector<R> poolT;
    exec<R>(P, poolT, &T, -1, 0.0);
    std::vector<R> srcT = make_sources(poolT, sidx);
    std::vector<double> gT(m), gF(m);
    T.gradient(poolT[target], std::span<const R>(srcT), std::span<double>(gT));
    auto nT = T.gradients(std::vector<R>{poolT[target]}, srcT);
    {
      etad::tape F;
      std::vector<R> poolF;
      exec<R>(P, poolF, &F, -1, 0.0);
      std::vector<R> srcF = make_sources(poolF, sidx);
      F.gradient(poolF[target], std::span<const R>(srcF), std::span<double>(gF));
    }
    etad::tape F2;
    std::vector<R> poolF2;
    exec<R>(P, poolF2, &F2, -1, 0.0);
    std::vector<R> srcF2 = make_sources(poolF2, sidx);
    auto nF = F2.gradients(std::vector<R>{poolF2[target]}, srcF2);
    for (std::size_t k = 0; k < m; ++k) {
      ++checks;
      if (std::memcmp(&gT[k], &gF[k], 8) != 0 && !(std::isnan(gT[k]) && std::isnan(gF[k])))
        fail("reused tape vs fresh tape (gradient, bitwise)", (int)k, gT[k], gF[k]);
      if (nT[k].has_value() != nF[k].has_value() ||
          (nT[k] && std::memcmp(&*nT[k], &*nF[k], 8) != 0 && !(std::isnan(*nT[k]) && std::isnan(*nF[k]))))
        fail("reused tape vs fresh tape (gradients none)", (int)k, nT[k].value_or(-999), nF[k].value_or(-999));
    }
  }
}


/// Runs the programs of seeds [first, first + count): each one's differential checks, a reused
/// tape against fresh ones, and every 50th seed a long loop against its closed form.
void run_seeds(std::uint64_t first, std::uint64_t count, double big) {
  failures = 0;
  checks = 0;
  failure_messages.clear();
  big_probability = big;
  for (std::uint64_t s = first; s < first + count; ++s) {
    run(s);
    run_resets(s);
    if (s % 50 == 0) run_chain(s);
  }
}

void report() {
  std::string all;
  for (const auto& m : failure_messages) all += m + "\n";
  INFO(failures << " failures in " << checks << " checks; the first:\n" << all);
  CHECK(checks > 0);
  CHECK(failures == 0);
}

}  // namespace

TEST_CASE("tape gradients of random small programs agree with independent answers", "[tape][random]") {
  run_seeds(1, 1500, 0.0);
  report();
}

TEST_CASE("tape gradients of random programs spanning several storage blocks", "[tape][random]") {
  run_seeds(100001, 60, 0.05);
  report();
}
