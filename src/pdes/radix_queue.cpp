#include "collsim/pdes/radix_queue.hpp"

#include <algorithm>
#include <bit>

namespace collsim::pdes {

void RadixQueue::advance() const {
  const unsigned level = static_cast<unsigned>(std::countr_zero(levels_));
  const unsigned digit = static_cast<unsigned>(std::countr_zero(digits_[level]));
  digits_[level] = static_cast<std::uint16_t>(digits_[level] & ~(1u << digit));
  if (digits_[level] == 0) levels_ = static_cast<std::uint16_t>(levels_ & ~(1u << level));
  std::vector<QueueEntry>& spread = buckets_[level * kDigits + digit];
  std::uint64_t earliest = time_of(spread.front());
  for (const QueueEntry& e : spread) earliest = std::min(earliest, time_of(e));
  base_ = earliest;
  clear_bucket();
  // The new base agrees with the old one above this level and has this digit, so the other
  // buckets stay as they are, and every entry of this one lands at a lower level (or at the
  // base).
  for (const QueueEntry& e : spread) {
    const std::uint64_t t = time_of(e);
    if (t == base_) {
      take_bucket(e);
    } else {
      put(t, e);
    }
  }
  spread.clear();
  sort_bucket();
}

}  // namespace collsim::pdes
