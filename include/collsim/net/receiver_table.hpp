#pragma once
// A host's receivers by flow key (source host and the source's flow number). Every data packet
// looks its receiver up, and flows of a long run come and go by the million: the keys sit in
// an open-addressing table (common::OpenAddressing) whose slots hold an index into a deque of
// receivers, so a reference stays valid until its own erase; erased places are reused.

#include <cstdint>
#include <deque>
#include <vector>

#include "collsim/common/open_addressing.hpp"

namespace collsim::net::detail {

template <typename Receiver>
class ReceiverTable {
 public:
  // The receiver of `key`, made default if there is none.
  Receiver& operator[](std::uint64_t key) {
    const auto [i, claimed] = slots_.find_or_claim(key);
    if (claimed) {
      std::uint32_t index;
      if (free_.empty()) {
        index = static_cast<std::uint32_t>(pool_.size());
        pool_.emplace_back();
      } else {
        index = free_.back();
        free_.pop_back();
      }
      slots_[i].index = index;
    }
    return pool_[slots_[i].index];
  }

  // Forgets the receiver of `key` (if any) and frees what it held.
  void erase(std::uint64_t key) {
    const std::size_t i = slots_.find(key);
    if (i == slots_.kAbsent) return;
    pool_[slots_[i].index] = Receiver{};
    free_.push_back(slots_[i].index);
    slots_.erase_at(i);
  }

  std::size_t size() const { return slots_.size(); }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t index = kEmpty;  // into pool_
    bool occupied() const { return index != kEmpty; }
  };

  common::OpenAddressing<Slot> slots_{16};
  std::deque<Receiver> pool_;
  std::vector<std::uint32_t> free_;
};

}  // namespace collsim::net::detail
