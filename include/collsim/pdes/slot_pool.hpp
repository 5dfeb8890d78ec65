#pragma once
// Fixed-size slots recycled through a free list. Storage grows in blocks and never moves, so
// a reference to a slot stays valid while new slots are taken; recently freed slots are
// reused first and stay warm in cache. Nothing is allocated per slot after warm-up.

#include <cstdint>
#include <memory>
#include <vector>

namespace collsim::pdes {

template <typename T>
class SlotPool {
 public:
  std::uint32_t allocate() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    if ((size_ & kBlockMask) == 0) blocks_.push_back(std::make_unique<T[]>(kBlockSize));
    return size_++;
  }
  void release(std::uint32_t i) { free_.push_back(i); }
  T& operator[](std::uint32_t i) { return blocks_[i >> kBlockBits][i & kBlockMask]; }
  // Slots ever handed out: every index below this is valid.
  std::uint32_t capacity() const { return size_; }

 private:
  static constexpr std::uint32_t kBlockBits = 12;
  static constexpr std::uint32_t kBlockSize = 1u << kBlockBits;
  static constexpr std::uint32_t kBlockMask = kBlockSize - 1;
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::vector<std::uint32_t> free_;
  std::uint32_t size_ = 0;
};

}  // namespace collsim::pdes
