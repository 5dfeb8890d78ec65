#pragma once
// Event bodies and full keys of one engine, recycled through a free list. Storage grows in fixed blocks
// and never moves, so a handler may schedule new events while reading its own body.

#include <cstdint>
#include <memory>
#include <vector>

#include "collsim/pdes/event.hpp"

namespace collsim::pdes {

class EventPool {
 public:
  std::uint32_t store(const EventKey& key, const EventBody& body) {
    std::uint32_t ref;
    if (!free_.empty()) {
      ref = free_.back();
      free_.pop_back();
    } else {
      if ((size_ & kBlockMask) == 0) blocks_.push_back(std::make_unique<EventBody[]>(kBlockSize));
      ref = size_++;
      keys_.emplace_back();
    }
    (*this)[ref] = body;
    keys_[ref] = key;
    return ref;
  }
  void release(std::uint32_t ref) { free_.push_back(ref); }
  EventBody& operator[](std::uint32_t ref) { return blocks_[ref >> kBlockBits][ref & kBlockMask]; }
  const EventKey& key(std::uint32_t ref) const { return keys_[ref]; }
  // The full key of every slot, by ref: what queues consult to break ties.
  const std::vector<EventKey>* keys() const { return &keys_; }
  std::uint32_t capacity() const { return size_; }

 private:
  static constexpr std::uint32_t kBlockBits = 12;
  static constexpr std::uint32_t kBlockSize = 1u << kBlockBits;
  static constexpr std::uint32_t kBlockMask = kBlockSize - 1;
  std::vector<std::unique_ptr<EventBody[]>> blocks_;
  std::vector<EventKey> keys_;
  std::vector<std::uint32_t> free_;
  std::uint32_t size_ = 0;
};

}  // namespace collsim::pdes
