#pragma once
// Storage for the deliveries waiting in an engine's channels: fixed-size slots recycled
// through one free list shared by every channel of the engine, so the slots in use stay few
// and warm in cache (per-channel rings would each grow to their own worst burst). A channel
// threads its waiting deliveries through the slots as a singly linked FIFO.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "collsim/pdes/event.hpp"

namespace collsim::pdes {

class ChannelStore {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Slot {
    EventKey key;
    std::uint32_t next;
    alignas(8) std::byte payload[kMaxPayloadBytes];
  };

  std::uint32_t allocate() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    if ((size_ & kBlockMask) == 0) blocks_.push_back(std::make_unique<Slot[]>(kBlockSize));
    return size_++;
  }
  void release(std::uint32_t i) { free_.push_back(i); }
  Slot& operator[](std::uint32_t i) { return blocks_[i >> kBlockBits][i & kBlockMask]; }

 private:
  static constexpr std::uint32_t kBlockBits = 12;
  static constexpr std::uint32_t kBlockSize = 1u << kBlockBits;
  static constexpr std::uint32_t kBlockMask = kBlockSize - 1;
  std::vector<std::unique_ptr<Slot[]>> blocks_;
  std::vector<std::uint32_t> free_;
  std::uint32_t size_ = 0;
};

}  // namespace collsim::pdes
