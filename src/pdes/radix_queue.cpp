#include "collsim/pdes/radix_queue.hpp"

#include <algorithm>

namespace collsim::pdes {

void RadixQueue::advance() const {
  std::size_t b = 1;
  while (buckets_[b].empty()) ++b;
  std::vector<QueueEntry>& spread = buckets_[b];
  std::uint64_t earliest = time_of(spread.front());
  for (const QueueEntry& e : spread) earliest = std::min(earliest, time_of(e));
  base_ = earliest;
  sorted_.clear();
  next_ = 0;
  // Every entry of bucket b shares its bits above b - 1 with the new base, so each lands in a
  // lower bucket (or at the base).
  for (const QueueEntry& e : spread) {
    const std::uint64_t t = time_of(e);
    if (t == base_) {
      sorted_.push_back(e);
    } else {
      buckets_[bucket_of(t)].push_back(e);
    }
  }
  spread.clear();
  std::sort(sorted_.begin(), sorted_.end(), before_);
}

}  // namespace collsim::pdes
