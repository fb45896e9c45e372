// etad/tape/detail/revolve.hpp — binomial checkpointing (Griewank's revolve): the order in which
// to advance, store, restore and reverse the steps of a chain x_{i+1} = F(x_i) so that it is
// reversed with at most s stored states and the fewest plain re-evaluations of F.
#pragma once

#include <etad/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace etad::detail {

/// min(C(c + k, k), cap), given b = C(c + k - 1, k - 1) < cap and k >= 1: one step of the
/// incremental binomial beta(c, k) = C(c + k, c) = beta(c, k - 1) * (c + k) / k.
/// Never overflows: once the value reaches cap it is reported as cap (beta(c, k) grows with k,
/// so callers that only compare against cap lose nothing).
inline std::size_t binomial_next(std::size_t b, std::size_t c, std::size_t k,
                                 std::size_t cap) noexcept {
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  if (c == 0) return std::min<std::size_t>(1, cap);  // C(k, k) = 1
  // C(c + k, k) >= c + k, so a c at or past cap (or a c + k that does not fit) is already cap;
  // this is what keeps s = SIZE_MAX harmless.
  if (c >= cap || c > max - k) return cap;
  const std::size_t num = c + k;
  if (b <= max / num) return std::min(b * num / k, cap);  // exact: k divides b * num
  // b * num would overflow: cancel g = gcd(b, k) first. Then k / g is coprime to b / g and
  // divides (b / g) * num, so it divides num, and the value is a product of two exact factors.
  const std::size_t g = std::gcd(b, k);
  const std::size_t lhs = b / g;
  const std::size_t rhs = num / (k / g);
  if (lhs > max / rhs) return cap;
  return std::min(lhs * rhs, cap);
}

/// The least number of plain evaluations of F ("recomputed steps", the first sweep forward from
/// x_0 included, the n taped evaluations not) with which a chain of n steps can be reversed
/// keeping at most s states, x_0 among them:
///   t(n, s) = r n - C(s + r, s + 1),  r = min { r : C(s + r, s) >= n }.
/// Special cases: n <= 1 gives 0; s >= n - 1 gives n - 1 (r = 1); s = 1 gives n (n - 1) / 2.
/// Computed as the sum over k < r of (n - C(s + k, s)) (the same number, since
/// sum_{k<r} C(s + k, s) = C(s + r, s + 1)), whose terms are all positive and below n: nothing
/// larger than the result is ever formed. O(r) time.
/// Throws etad::error if s == 0 or if the result does not fit in std::size_t.
inline std::size_t revolve_recomputations(std::size_t n, std::size_t s) {
  if (s == 0)
    throw error("etad: binomial checkpointing needs at least one snapshot slot (s >= 1) because "
                "x_0 is stored in slot 0; pass s >= 1.");
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  std::size_t total = 0;
  std::size_t b = 1;  // beta(s, k) = C(s + k, s), capped at n
  for (std::size_t k = 1; b < n; ++k) {
    if (total > max - (n - b))
      throw error("etad: the recomputation count of a " + count_of(n, "step") + " chain with " +
                  count_of(s, "slot") + " does not fit in std::size_t; use fewer steps or more "
                  "slots.");
    total += n - b;
    b = binomial_next(b, s, k, n);
  }
  return total;
}

/// Where to put the next checkpoint when reversing l >= 2 steps [a, a + l) from a stored x_a with
/// c >= 1 slots (x_a's own among them): the offset m (1 <= m < l) of the state to store.
///
/// Splitting at m costs m (advance x_a to x_{a+m}) + t(l - m, c - 1) (reverse the tail with the
/// slots left once x_{a+m} takes one) + t(m, c) (restore x_a, reverse the head with all c slots).
/// Why the binomial optimum is reached, and for which m: let beta(c, r) = C(c + r, c) and r the
/// least with beta(c, r) >= l. At most beta(c, k) steps of any schedule are advanced k times or
/// fewer, which gives t(l, c) >= r l - sum_{k<r} beta(c, k) = r l - C(c + r, c + 1), with
/// equality exactly when no step is advanced more than r times and, for each k < r, exactly
/// beta(c, k) steps are advanced at most k times. A head step is advanced once more than it is
/// inside the head, so with beta(c, k) = beta(c, k - 1) + beta(c - 1, k) the equality splits
/// into: the head (c slots) uses at most r - 1 advances a step and fills the levels below
/// r - 1, the tail (c - 1 slots) uses at most r and fills the levels below r, i.e.
///   beta(c, r - 2) <= m <= beta(c, r - 1)  and  beta(c - 1, r - 1) <= l - m <= beta(c - 1, r).
/// These intervals meet (beta(c, r - 1) < l <= beta(c, r) and the Pascal rule above), and every m
/// in them is optimal. We take the largest,
///   m = min(beta(c, r - 1), l - beta(c - 1, r - 1)),
/// for which only the two binomials at r - 1 are needed, both below l: the tail, the part with a
/// slot fewer, is then as short as it can be. For c = 1 this is m = l - 1 (beta(0, .) = 1), the
/// plain "advance to the last unreversed step" of a single slot, returned at once because the
/// loop would take O(l) there. O(r) time otherwise, and r <= m + 1 (beta(c, r - 2) >= r - 1), so
/// finding the split never costs more than the advance it schedules.
inline std::size_t revolve_split(std::size_t l, std::size_t c) noexcept {
  if (c == 1) return l - 1;
  std::size_t head = 1;  // beta(c, k), below l in the loop
  std::size_t tail = 1;  // beta(c - 1, k) <= beta(c, k)
  for (std::size_t k = 1;; ++k) {
    const std::size_t next = binomial_next(head, c, k, l);
    if (next >= l) break;  // here r = k; head and tail hold beta(., r - 1)
    head = next;
    tail = binomial_next(tail, c - 1, k, l);
  }
  return std::min(head, l - tail);
}

/// What a revolve_schedule asks its driver to do next.
enum class revolve_kind : unsigned char {
  advance,  ///< evaluate F plainly from x_from to x_to (to - from steps) from the current state
  store,    ///< copy the current state, x_at, into snapshot slot `slot`
  restore,  ///< make the state in slot `slot`, x_at, current
  reverse,  ///< current state is x_at: tape step at, pull the adjoint of x_{at+1} back to x_at;
            ///< afterwards the current state is unspecified (a restore or done follows)
  done,     ///< all n steps are reversed; every later next() is done again
};

/// One action: kind, and the fields it uses (advance: from, to; store and restore: at, slot;
/// reverse: at). Unused fields are 0.
struct revolve_action {
  revolve_kind kind = revolve_kind::done;
  std::size_t from = 0;
  std::size_t to = 0;
  std::size_t at = 0;
  std::size_t slot = 0;
};

/// The binomial checkpointing schedule for reversing n steps x_{i+1} = F(x_i) with at most s
/// stored states (s >= 1); x_0 is in slot 0 and current at the start. Steps are reversed in the
/// order n - 1, ..., 0, each once, and the advances add up to revolve_recomputations(n, s).
///
/// Reversing [a, b) from x_a in slot s - c, with c slots s - c .. s - 1 (c = s at the top):
/// if b - a == 1, reverse step a; otherwise advance to a + m (m = revolve_split(b - a, c)),
/// store x_{a+m} in slot s - c + 1 (skipped when the tail is one step: it is reversed from the
/// current state at once), reverse [a + m, b) with c - 1 slots, restore x_a, reverse [a, a + m)
/// with c slots. The recursion is unrolled onto a stack of pending heads: only tails are entered
/// directly, and each tail has a slot fewer, so the stack never holds more than min(s, n)
/// entries — with s = 1 and n = 10^5 a recursive version would nest 10^5 deep, this one holds 1.
/// Memory is that stack; time per next() is O(r) at a split, O(1) otherwise.
class revolve_schedule {
public:
  using action = revolve_action;
  using kind = revolve_kind;

  /// Throws etad::error if s == 0.
  revolve_schedule(std::size_t n, std::size_t s)
      : n_(n), s_(s), a_(0), b_(n), c_(s), phase_(n == 0 ? phase::done : phase::start) {
    if (s == 0)
      throw error("etad: revolve_schedule needs at least one snapshot slot (s >= 1) because x_0 "
                  "is stored in slot 0; pass s >= 1.");
  }

  [[nodiscard]] std::size_t steps() const noexcept { return n_; }
  [[nodiscard]] std::size_t slots() const noexcept { return s_; }
  /// Ranges waiting on the stack (heads still to reverse): never more than min(s, n).
  [[nodiscard]] std::size_t depth() const noexcept { return pending_.size(); }

  /// The next action; done at the end and at every call after it.
  action next() {
    action out;
    switch (phase_) {
      case phase::start:  // x_a_ is current; reverse [a_, b_) with c_ slots
        if (b_ - a_ == 1) {
          out.kind = kind::reverse;
          out.at = a_;
          phase_ = phase::pop;
          return out;
        } else {
          const std::size_t m = a_ + revolve_split(b_ - a_, c_);
          out.kind = kind::advance;
          out.from = a_;
          out.to = m;
          pending_.push_back({a_, m, c_});
          a_ = m;
          --c_;
          // A one-step tail is reversed from the current state: storing it would be a copy for
          // nothing (and with c_ now 0 there would be no slot to put it in).
          phase_ = b_ - a_ == 1 ? phase::start : phase::store;
          return out;
        }
      case phase::store:
        out.kind = kind::store;
        out.at = a_;
        out.slot = s_ - c_;
        phase_ = phase::start;
        return out;
      case phase::pop:
        if (pending_.empty()) {
          phase_ = phase::done;
          break;
        }
        a_ = pending_.back().a;
        b_ = pending_.back().b;
        c_ = pending_.back().c;
        pending_.pop_back();
        out.kind = kind::restore;
        out.at = a_;
        out.slot = s_ - c_;
        phase_ = phase::start;
        return out;
      case phase::done:
        break;
    }
    return out;  // kind::done
  }

private:
  enum class phase : unsigned char { start, store, pop, done };
  struct range {
    std::size_t a, b, c;  // reverse [a, b) from x_a, stored in slot s - c, with c slots
  };

  std::size_t n_;
  std::size_t s_;
  std::size_t a_, b_, c_;  // the range being worked on
  phase phase_;
  std::vector<range> pending_;  // heads still to reverse, innermost last
};

}  // namespace etad::detail
