#pragma once
// A host's receivers by flow key (source host and the source's flow number). Every data packet
// looks its receiver up, and flows of a long run come and go by the million: open addressing
// (linear probing, deletion by backward shift) over a power-of-two array of keys finds one in
// about one cache line, where a node-based map reads a bucket, a node and the receiver. The
// receivers live in a deque, so a reference stays valid until its own erase; erased places are
// reused.

#include <cstdint>
#include <deque>
#include <vector>

namespace collsim::net::detail {

template <typename Receiver>
class ReceiverTable {
 public:
  // The receiver of `key`, made default if there is none.
  Receiver& operator[](std::uint64_t key) {
    if (slots_.empty()) rehash(16);
    std::size_t i = home(key);
    while (slots_[i].index != kEmpty) {
      if (slots_[i].key == key) return pool_[slots_[i].index];
      i = (i + 1) & mask_;
    }
    if (2 * (size_ + 1) > slots_.size()) {  // at most half full: probes stay short
      rehash(2 * slots_.size());
      return (*this)[key];
    }
    std::uint32_t index;
    if (free_.empty()) {
      index = static_cast<std::uint32_t>(pool_.size());
      pool_.emplace_back();
    } else {
      index = free_.back();
      free_.pop_back();
    }
    slots_[i] = Slot{key, index};
    ++size_;
    return pool_[index];
  }

  // Forgets the receiver of `key` (if any) and frees what it held.
  void erase(std::uint64_t key) {
    if (slots_.empty()) return;
    std::size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].index == kEmpty) return;
      if (slots_[i].key == key) break;
    }
    pool_[slots_[i].index] = Receiver{};
    free_.push_back(slots_[i].index);
    --size_;
    // Entries after the hole that probed past it move back into it, so that no search stops
    // early at an empty slot.
    for (std::size_t j = (i + 1) & mask_; slots_[j].index != kEmpty; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].key);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].index = kEmpty;
  }

  std::size_t size() const { return size_; }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t index = kEmpty;  // into pool_
  };

  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void rehash(std::size_t capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c /= 2) --shift_;
    for (const Slot& s : old) {
      if (s.index == kEmpty) continue;
      std::size_t i = home(s.key);
      while (slots_[i].index != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::deque<Receiver> pool_;
  std::vector<std::uint32_t> free_;
  std::size_t size_ = 0;
};

}  // namespace collsim::net::detail
