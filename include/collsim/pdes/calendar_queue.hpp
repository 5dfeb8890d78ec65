#pragma once

#include <cstdint>
#include <vector>

#include "collsim/pdes/event_queue.hpp"

namespace collsim::pdes {

// Brown's calendar queue: a ring of buckets one "day" wide; an event goes to the bucket
// of its day modulo the ring. Each bucket is kept sorted, earliest last. The ring doubles
// or halves with the event count, and the day width is re-estimated from the spacing of
// the earliest events. Degrades when many events share a time (one crowded bucket).
class CalendarQueue final : public EventQueue {
 public:
  explicit CalendarQueue(const std::vector<EventKey>* keys);
  void push(const QueueEntry& entry) override;
  const QueueEntry& top() const override;
  void pop() override;
  std::size_t size() const override { return size_; }
  std::string_view name() const override { return "calendar queue"; }
  bool visit(const std::function<bool(const QueueEntry&)>& f) const override {
    for (const auto& bucket : buckets_)
      for (const QueueEntry& e : bucket)
        if (!f(e)) return false;
    return true;
  }

 private:
  std::size_t bucket_of(SimTime t) const {
    return static_cast<std::size_t>(static_cast<std::uint64_t>(t.picoseconds()) / width_) & (buckets_.size() - 1);
  }
  void find_min() const;
  void resize(std::size_t buckets);

  EntryOrder before_;
  std::vector<std::vector<QueueEntry>> buckets_;
  std::uint64_t width_ = 1000;  // ps per day
  std::size_t size_ = 0;
  // The bucket holding the earliest event, found lazily by find_min().
  mutable std::size_t min_bucket_ = 0;
  mutable bool min_known_ = false;
  // Where the scan for the next minimum starts: the day of the last event popped.
  std::uint64_t current_day_ = 0;
};

}  // namespace collsim::pdes
