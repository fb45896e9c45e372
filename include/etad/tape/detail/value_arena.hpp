// etad/tape/detail/value_arena.hpp — where a tape keeps the values of its variable blocks: runs
// of T that start on a 64-byte boundary, in chunks that never move (a block points at its
// values), kept across reset() and reused.
#pragma once

#include <etad/core/config.hpp>

#include <algorithm>
#include <cstddef>
#include <new>
#include <numeric>
#include <type_traits>
#include <vector>

namespace etad::detail {

template <class T>
class value_arena {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "etad: a tape's values must be trivially copyable");

public:
  /// Runs start this many bytes apart at least (a cache line): a block's values are then
  /// written and read back in the same whole-line pieces, which the store buffer forwards.
  static constexpr std::size_t alignment = 64;

  value_arena() = default;
  value_arena(const value_arena&) = delete;
  value_arena& operator=(const value_arena&) = delete;
  ~value_arena() {
    for (const chunk& c : chunks_) ::operator delete(c.data, std::align_val_t(alignment));
  }

  /// Room for n values (uninitialized), valid until clear(); starts on an `alignment`
  /// boundary.
  ETAD_ALWAYS_INLINE T* allocate(std::size_t n) {
    if (current_ < chunks_.size() && n <= chunks_[current_].capacity - used_) {
      T* p = chunks_[current_].data + used_;
      // Capacities are multiples of step, so the rounded offset stays within the chunk.
      used_ = round_up(used_ + n);
      return p;
    }
    return allocate_slow(n);
  }

  /// A point to come back to: the runs allocated after it are forgotten by truncate_to.
  struct position {
    std::size_t chunk = 0;
    std::size_t used = 0;
  };
  position where() const noexcept { return {current_, used_}; }
  void truncate_to(position p) noexcept {
    current_ = p.chunk;
    used_ = p.used;
  }

  /// Values of the runs in use now, as bytes (earlier chunks counted whole).
  std::size_t used_bytes() const noexcept {
    std::size_t r = used_;
    for (std::size_t k = 0; k < current_ && k < chunks_.size(); ++k) r += chunks_[k].capacity;
    return r * sizeof(T);
  }

  /// Forgets every run; keeps the chunks.
  void clear() noexcept {
    current_ = 0;
    used_ = 0;
  }

  std::size_t reserved_bytes() const noexcept {
    std::size_t r = 0;
    for (const chunk& c : chunks_) r += c.capacity * sizeof(T);
    return r;
  }

private:
  /// Runs start `step` values apart at least: the least number of values whose bytes are a
  /// multiple of the alignment (8 doubles, 16 floats, 4 reals of double, 16 of 12 bytes each).
  static constexpr std::size_t step = alignment / std::gcd(alignment, sizeof(T));
  static constexpr std::size_t round_up(std::size_t n) noexcept {
    return (n + step - 1) / step * step;
  }
  static constexpr std::size_t first_capacity = round_up(1024);  // values

  struct chunk {
    T* data;
    std::size_t capacity;
  };

  [[gnu::noinline]] T* allocate_slow(std::size_t n) {
    // The next chunk that holds n values (chunks too small for n are skipped in this round
    // and used in later ones), or a new one: twice the last regular size, or n values when
    // that is more (a large request does not raise the next chunk's size).
    std::size_t next = chunks_.empty() || used_ == 0 ? current_ : current_ + 1;
    while (next < chunks_.size() && chunks_[next].capacity < n) ++next;
    if (next == chunks_.size()) {
      regular_ = regular_ == 0 ? first_capacity : 2 * regular_;
      const std::size_t capacity = std::max(regular_, round_up(n));
      chunks_.reserve(chunks_.size() + 1);
      void* data = ::operator new(capacity * sizeof(T), std::align_val_t(alignment));
      chunks_.push_back({static_cast<T*>(data), capacity});
    }
    current_ = next;
    used_ = 0;
    return allocate(n);
  }

  std::vector<chunk> chunks_;
  std::size_t current_ = 0;  // the chunk runs are taken from
  std::size_t used_ = 0;     // values of it taken
  std::size_t regular_ = 0;  // the size of the last chunk grown by doubling
};

}  // namespace etad::detail
