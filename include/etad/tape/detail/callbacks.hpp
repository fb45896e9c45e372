// etad/tape/detail/callbacks.hpp — a tape's callback entries: functions that run in the backward
// sweep (run-time custom gradients, recomputed functions, checkpointed loops). Each entry owns an
// object kept in the tape's own memory, the indices of its inputs and a run of new output indices.
#pragma once

#include <etad/core/config.hpp>
#include <etad/tape/detail/storage.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace etad {
template <class T>
class basic_tape;
}  // namespace etad

namespace etad::detail {

/// Where callback entries keep their objects: chunks that never move, filled upwards and kept
/// across clear(), so that a loop of record -> gradient -> reset allocates nothing after its
/// first rounds. Objects are freed in reverse order of allocation (truncate_to and clear); the
/// arena does not know their types: callback_store destroys them first.
class object_arena {
public:
  object_arena() = default;
  object_arena(const object_arena&) = delete;
  object_arena& operator=(const object_arena&) = delete;

  struct position {
    std::size_t chunk = 0;
    std::size_t used = 0;
  };

  /// Room for `bytes` bytes aligned to `align` (a power of two).
  void* allocate(std::size_t bytes, std::size_t align) {
    for (;;) {
      if (current_ < chunks_.size()) {
        chunk& c = chunks_[current_];
        // (Aligned by address: new[] of bytes guarantees only the default new alignment.)
        const auto base = reinterpret_cast<std::uintptr_t>(c.data.get());
        const std::size_t start = ((base + used_ + align - 1) & ~(align - 1)) - base;
        if (start + bytes <= c.capacity) {
          used_ = start + bytes;
          return c.data.get() + start;
        }
        if (current_ + 1 < chunks_.size() && chunks_[current_ + 1].capacity >= bytes + align) {
          ++current_;
          used_ = 0;
          continue;
        }
      }
      // A new chunk after the current one (larger chunks further on stay for later rounds).
      const std::size_t last = chunks_.empty() ? 0 : chunks_.back().capacity;
      const std::size_t capacity = std::max({std::size_t(4096), 2 * last, bytes + align});
      const std::size_t at = chunks_.empty() ? 0 : current_ + 1;
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(std::min(at, chunks_.size())),
                     chunk{std::unique_ptr<std::byte[]>(new std::byte[capacity]), capacity});
      current_ = std::min(at, chunks_.size() - 1);
      used_ = 0;
    }
  }

  position where() const noexcept { return {current_, used_}; }
  void truncate_to(position p) noexcept {
    current_ = p.chunk;
    used_ = p.used;
  }
  void clear() noexcept { truncate_to({}); }

  /// Bytes of the chunks up to the current one in use now (the unused tail of earlier chunks
  /// included: that is memory the recording holds).
  std::size_t used_bytes() const noexcept {
    std::size_t r = used_;
    for (std::size_t k = 0; k < current_ && k < chunks_.size(); ++k) r += chunks_[k].capacity;
    return r;
  }
  std::size_t reserved_bytes() const noexcept {
    std::size_t r = 0;
    for (const chunk& c : chunks_) r += c.capacity;
    return r;
  }

private:
  struct chunk {
    std::unique_ptr<std::byte[]> data;  // (new[] of bytes: aligned for max_align_t)
    std::size_t capacity;
  };
  std::vector<chunk> chunks_;
  std::size_t current_ = 0;
  std::size_t used_ = 0;
};

/// One callback entry: outputs first_output .. first_output + outputs - 1 (defined by the entry,
/// with no partials on the statement store), inputs in the store's input list.
template <class T>
struct callback_entry {
  /// Runs the entry's backward step. `upstream` holds the outputs' adjoints, `grads` one zero per
  /// input to be set to the gradient with respect to that input (the tape adds them to the
  /// inputs' adjoints afterwards); a callback may instead add to the tape's adjoints itself
  /// (through the tape, as recompute_grad does) and leave grads alone.
  using run_fn = void (*)(void* object, basic_tape<T>& tape, const callback_entry& self,
                          const T* upstream, T* grads);
  index_t first_output;
  index_t outputs;
  std::size_t input_begin;  // into callback_store::inputs
  std::size_t input_count;
  void* object;
  run_fn run;
  void (*destroy)(void*) noexcept;
  std::size_t bytes;  // what the entry holds: its object, its inputs, and what the object owns
};

/// The callback entries of one tape, in the order of their outputs (entries are appended as they
/// are recorded, and truncated from the back).
template <class T>
class callback_store {
public:
  callback_store() = default;
  callback_store(const callback_store&) = delete;
  callback_store& operator=(const callback_store&) = delete;
  ~callback_store() { destroy_from(0); }

  struct position {
    std::size_t entries = 0;
    std::size_t inputs = 0;
    object_arena::position arena{};
  };

  bool empty() const noexcept { return entries_.empty(); }
  std::size_t size() const noexcept { return entries_.size(); }
  const callback_entry<T>& operator[](std::size_t k) const noexcept { return entries_[k]; }
  const index_t* inputs(const callback_entry<T>& e) const noexcept {
    return inputs_.data() + e.input_begin;
  }

  /// Constructs an object of type O from args in the arena; the caller then adds the entry (or
  /// destroys the object with discard_object if that fails).
  template <class O, class... A>
  O* make_object(A&&... args) {
    void* p = arena_.allocate(sizeof(O), alignof(O));
    return ::new (p) O(std::forward<A>(args)...);
  }

  /// Appends an entry whose object was made by make_object<O> just before (and nothing else was
  /// made since). Strong guarantee: if it throws, the object is destroyed and nothing is added.
  template <class O>
  void add(O* object, index_t first_output, index_t outputs, const index_t* in, std::size_t n,
           typename callback_entry<T>::run_fn run, std::size_t extra_bytes) {
    try {
      // Room first (amortized doubling), so that push_back below cannot throw.
      if (entries_.size() == entries_.capacity())
        entries_.reserve(std::max<std::size_t>(16, 2 * entries_.capacity()));
      const std::size_t begin = inputs_.size();
      inputs_.insert(inputs_.end(), in, in + n);
      entries_.push_back(callback_entry<T>{
          first_output, outputs, begin, n, object, run,
          [](void* o) noexcept { static_cast<O*>(o)->~O(); },
          sizeof(O) + n * sizeof(index_t) + sizeof(callback_entry<T>) + extra_bytes});
      bytes_ += entries_.back().bytes;
    } catch (...) {
      object->~O();
      throw;
    }
  }

  position where() const noexcept { return {entries_.size(), inputs_.size(), arena_.where()}; }

  /// Destroys the entries added after p, newest first, and gives their memory back.
  void truncate_to(const position& p) noexcept {
    destroy_from(p.entries);
    inputs_.resize(p.inputs);
    arena_.truncate_to(p.arena);
  }
  void clear() noexcept { truncate_to({}); }

  /// The first entry whose outputs start above index i (entries are in output order).
  std::size_t upper_bound(index_t i) const noexcept {
    return static_cast<std::size_t>(
        std::upper_bound(entries_.begin(), entries_.end(), i,
                         [](index_t v, const callback_entry<T>& e) { return v < e.first_output; }) -
        entries_.begin());
  }

  /// Bytes held by the entries now: objects (and what they own, as they reported it), inputs and
  /// the entries themselves.
  std::size_t used_bytes() const noexcept { return bytes_; }
  std::size_t reserved_bytes() const noexcept {
    return arena_.reserved_bytes() + entries_.capacity() * sizeof(callback_entry<T>) +
           inputs_.capacity() * sizeof(index_t);
  }

private:
  void destroy_from(std::size_t k) noexcept {
    while (entries_.size() > k) {
      const callback_entry<T>& e = entries_.back();
      bytes_ -= e.bytes;
      e.destroy(e.object);
      entries_.pop_back();
    }
  }

  std::vector<callback_entry<T>> entries_;
  std::vector<index_t> inputs_;
  object_arena arena_;
  std::size_t bytes_ = 0;
};

}  // namespace etad::detail
