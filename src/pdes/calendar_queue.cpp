#include "collsim/pdes/calendar_queue.hpp"

#include <algorithm>

namespace collsim::pdes {

namespace {
std::uint64_t day_of(SimTime t, std::uint64_t width) { return static_cast<std::uint64_t>(t.picoseconds()) / width; }
}  // namespace

CalendarQueue::CalendarQueue(const std::vector<EventKey>* keys) : before_(keys), buckets_(16) {}

void CalendarQueue::push(const QueueEntry& entry) {
  // Buckets are sorted with the earliest entry at the back.
  auto& bucket = buckets_[bucket_of(entry.time)];
  bucket.insert(std::upper_bound(bucket.begin(), bucket.end(), entry,
                                 [this](const QueueEntry& x, const QueueEntry& y) { return before_(y, x); }),
                entry);
  ++size_;
  const std::uint64_t day = day_of(entry.time, width_);
  if (day < current_day_) current_day_ = day;
  if (min_known_ && before_(entry, buckets_[min_bucket_].back())) min_bucket_ = bucket_of(entry.time);
  if (size_ > 2 * buckets_.size()) resize(buckets_.size() * 2);
}

const QueueEntry& CalendarQueue::top() const {
  if (!min_known_) find_min();
  return buckets_[min_bucket_].back();
}

void CalendarQueue::find_min() const {
  // Scan one year of days from the current one; an event of this year sits in its day's
  // bucket with a day no later than the one being scanned.
  const std::size_t n = buckets_.size();
  std::uint64_t day = current_day_;
  for (std::size_t step = 0; step < n; ++step, ++day) {
    const auto& bucket = buckets_[day & (n - 1)];
    if (!bucket.empty() && day_of(bucket.back().time, width_) <= day) {
      min_bucket_ = day & (n - 1);
      min_known_ = true;
      return;
    }
  }
  // Nothing this year: the earliest event overall, by direct search.
  bool found = false;
  for (std::size_t b = 0; b < n; ++b) {
    if (buckets_[b].empty()) continue;
    if (!found || before_(buckets_[b].back(), buckets_[min_bucket_].back())) min_bucket_ = b;
    found = true;
  }
  min_known_ = true;
}

void CalendarQueue::pop() {
  if (!min_known_) find_min();
  auto& bucket = buckets_[min_bucket_];
  current_day_ = day_of(bucket.back().time, width_);
  bucket.pop_back();
  --size_;
  min_known_ = false;
  if (buckets_.size() > 16 && size_ < buckets_.size() / 2) resize(buckets_.size() / 2);
}

void CalendarQueue::resize(std::size_t count) {
  std::vector<QueueEntry> all;
  all.reserve(size_);
  for (auto& b : buckets_) all.insert(all.end(), b.begin(), b.end());
  // Day width: three times the mean gap between the earliest events (Brown's rule).
  const std::size_t sample = std::min<std::size_t>(all.size(), 64);
  if (sample >= 2) {
    std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(sample - 1), all.end(), before_);
    std::sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(sample), before_);
    const auto span = static_cast<std::uint64_t>((all[sample - 1].time - all[0].time).picoseconds());
    const std::uint64_t gap = span / (sample - 1);
    width_ = std::max<std::uint64_t>(1, gap > UINT64_MAX / 3 ? UINT64_MAX / 3 : 3 * gap);
  }
  buckets_.assign(count, {});
  for (const auto& e : all) buckets_[bucket_of(e.time)].push_back(e);
  for (auto& b : buckets_) std::sort(b.begin(), b.end(), [this](const QueueEntry& x, const QueueEntry& y) { return before_(y, x); });
  current_day_ = all.empty() ? 0 : day_of(std::min_element(all.begin(), all.end(), before_)->time, width_);
  min_known_ = false;
}

}  // namespace collsim::pdes
