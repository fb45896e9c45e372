// etad/tape/detail/storage.hpp — where a tape keeps its statements: flat arrays in blocks.
// Statement k defines value index k; its partials and input indices sit contiguously in one
// block. A full block is never copied or moved element-wise: the next statement goes to the next
// block (allocated once, kept across reset()), so growth never copies what was recorded.
#pragma once

#include <etad/core/config.hpp>
#include <etad/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace etad::detail {

using index_t = std::uint32_t;

template <class T>
struct block {
  std::unique_ptr<T[]> partial;
  std::unique_ptr<index_t[]> input;
  std::unique_ptr<index_t[]> end;  // end[s]: one past the last partial of statement s in here
  std::size_t partial_capacity = 0;
  std::size_t statement_capacity = 0;
  std::size_t partials = 0;
  std::size_t statements = 0;
  index_t first = 0;  // index defined by this block's first statement

  block(std::size_t pcap, std::size_t scap)
      : partial(new T[pcap]), input(new index_t[pcap]), end(new index_t[scap]),
        partial_capacity(pcap), statement_capacity(scap) {}

  std::size_t bytes() const {
    return partial_capacity * (sizeof(T) + sizeof(index_t)) + statement_capacity * sizeof(index_t);
  }
};

/// The statements of one tape. Index 0 is reserved for "not on a tape" (constants), so
/// statement numbers start at 1.
template <class T>
class statement_store {
public:
  static constexpr std::size_t default_partials = std::size_t(1) << 16;
  static constexpr std::size_t default_statements = std::size_t(1) << 15;

  /// Room for one statement of n partials; returns pointers to fill and the new index.
  struct slot {
    T* partial;
    index_t* input;
  };

  ETAD_ALWAYS_INLINE slot append(std::size_t n, index_t& defined) {
    if (cur_ == nullptr || !fits(*cur_, n) || next_ == std::numeric_limits<index_t>::max())
        [[unlikely]]
      make_room(n);
    block<T>& b = *cur_;
    defined = next_++;
    slot s{b.partial.get() + b.partials, b.input.get() + b.partials};
    b.partials += n;
    b.end[b.statements++] = static_cast<index_t>(b.partials);
    return s;
  }

  /// count statements with no partials (independent variables) at once; returns the first
  /// index defined. One capacity check per block instead of one per variable.
  index_t append_empty(std::size_t count) {
    if (count > std::size_t(std::numeric_limits<index_t>::max() - next_))
      throw error("etad: the tape is full (2^32 - 1 values); call reset() between independent "
                  "computations, or split the computation with checkpoints");
    const index_t first_defined = next_;
    while (count > 0) {
      if (cur_ == nullptr || !fits(*cur_, 0)) next_block(0);
      block<T>& b = blocks_[current_];
      const std::size_t k = std::min(count, b.statement_capacity - b.statements);
      std::fill_n(b.end.get() + b.statements, k, static_cast<index_t>(b.partials));
      b.statements += k;
      next_ += static_cast<index_t>(k);
      count -= k;
    }
    return first_defined;
  }

  /// Number of indices handed out so far, plus one (index 0 is reserved).
  index_t size() const { return next_; }

  void clear() {
    for (auto& b : blocks_) b.partials = b.statements = 0;
    current_ = 0;
    next_ = 1;
    if (!blocks_.empty()) blocks_[0].first = 1;
    cur_ = blocks_.empty() ? nullptr : &blocks_[0];
  }

  std::size_t reserved_bytes() const {
    std::size_t r = 0;
    for (const auto& b : blocks_) r += b.bytes();
    return r;
  }

  std::size_t partial_count() const {
    std::size_t r = 0;
    for (std::size_t i = 0; i <= current_ && i < blocks_.size(); ++i) r += blocks_[i].partials;
    return r;
  }

  /// Calls f(index, partials, inputs, n) for every statement with index in (lo, hi], newest
  /// first. A loop over flat arrays: no recursion, whatever the tape's length.
  template <class F>
  void sweep_down(index_t hi, index_t lo, F&& f) const {
    if (blocks_.empty() || hi <= lo) return;
    std::size_t bi = std::min(current_, blocks_.size() - 1);
    while (bi > 0 && blocks_[bi].first > hi) --bi;
    for (;;) {
      const block<T>& b = blocks_[bi];
      if (b.statements != 0) {
        std::size_t s = std::min<std::size_t>(b.statements, hi - b.first + 1);
        while (s-- > 0) {
          const index_t idx = b.first + static_cast<index_t>(s);
          if (idx <= lo) return;
          const std::size_t begin = s == 0 ? 0 : b.end[s - 1];
          f(idx, b.partial.get() + begin, b.input.get() + begin, b.end[s] - begin);
        }
      }
      if (bi == 0) return;
      --bi;
    }
  }

private:
  // The cold path of append(), kept out of line so that append() inlines into recording loops.
  [[gnu::noinline]] void make_room(std::size_t n) {
    if (next_ == std::numeric_limits<index_t>::max())
      throw error("etad: the tape is full (2^32 - 1 values); call reset() between independent "
                  "computations, or split the computation with checkpoints");
    if (cur_ == nullptr || !fits(*cur_, n)) next_block(n);
  }

  static bool fits(const block<T>& b, std::size_t n) {
    return b.statements < b.statement_capacity && b.partials + n <= b.partial_capacity;
  }

  void next_block(std::size_t n) {
    std::size_t i = blocks_.empty() ? 0 : current_ + (blocks_[current_].statements != 0);
    // Reuse the blocks kept by clear() when they are large enough; a statement larger than a
    // standard block (a long vector reduction) gets a block of its own size.
    while (i < blocks_.size() && blocks_[i].partial_capacity < n) {
      if (blocks_[i].statements == 0 && i + 1 == blocks_.size()) break;
      ++i;
    }
    if (i == blocks_.size() || blocks_[i].partial_capacity < n) {
      const std::size_t pcap = std::max(default_partials, n);
      if (i == blocks_.size())
        blocks_.emplace_back(pcap, default_statements);
      else
        blocks_[i] = block<T>(pcap, default_statements);
    }
    blocks_[i].first = next_;
    blocks_[i].partials = blocks_[i].statements = 0;
    current_ = i;
    cur_ = &blocks_[i];  // blocks_ may have grown: refresh the cached pointer
  }

  std::vector<block<T>> blocks_;
  std::size_t current_ = 0;
  block<T>* cur_ = nullptr;  // &blocks_[current_], or nullptr before the first block
  index_t next_ = 1;
};

}  // namespace etad::detail
