#pragma once
// A fixed-size array of trivially copyable values, zero-filled, in memory of its own that
// the kernel is asked to back with huge pages (transparent huge pages, 2 MiB on x86-64)
// once it is large. For arrays that a run reads at random: with 4 KiB pages, every access
// to a table of tens of MB is also a miss of the TLB; with huge pages it rarely is, and the
// table is faulted in 512 times fewer times. Where huge pages are off, it is plain memory.

#include <cstddef>
#include <span>
#include <type_traits>

#include "collsim/common/reserved_memory.hpp"

namespace collsim {

// The untyped memory: anonymous pages, zero-filled, released on destruction (reserved memory
// made usable whole at once).
class HugePageMemory {
 public:
  HugePageMemory() = default;
  // Throws std::bad_alloc when the memory cannot be had.
  explicit HugePageMemory(std::size_t bytes);

  void* data() const { return memory_.data(); }

 private:
  ReservedMemory memory_;
};

template <typename T>
class HugePageArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  HugePageArray() = default;
  explicit HugePageArray(std::size_t n) : memory_(n * sizeof(T)), size_(n) {}

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return static_cast<T*>(memory_.data()); }
  const T* data() const { return static_cast<const T*>(memory_.data()); }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  std::span<T> span() { return {data(), size_}; }
  std::span<const T> span() const { return {data(), size_}; }

 private:
  HugePageMemory memory_;
  std::size_t size_ = 0;
};

}  // namespace collsim
