#pragma once
// The LogGOPS mode's event list: events popped by (time, seq), the order of LogGOPSim's
// std::priority_queue, as a radix heap over the integer times.
//
// Nearly every event is queued at or after the time of the one being handled, and then a
// radix heap costs a few appends per event where a heap of thousands of pending events costs
// a dozen comparisons of cold entries. Events are kept in buckets by the highest bit in which
// their time differs from `now_time_` (the time of the events being taken); when the events
// at `now_time_` run out, the lowest nonempty bucket is spread over the lower ones around its
// earliest time, and the events at that time, sorted by seq, are the next to go. Events
// queued at `now_time_` itself come with a fresh seq, larger than any before, and join the
// end. LogGOPSim's ready rule (causal=0) can queue an op on an idle cpu before the current
// time; those few go to a small binary heap that is served first.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "collsim/pdes/four_ary_heap.hpp"

namespace collsim::exec::loggops {

// An event is an op that waits to run, or a message on its way: the op field of a message
// is its send's index with this bit set (ranks have fewer than 2^31 ops).
inline constexpr std::uint32_t kMessageBit = 0x80000000u;

struct Event {
  std::uint64_t time;
  std::uint64_t seq;   // when it was first queued: breaks ties in time; a retry keeps it
  std::uint32_t rank;  // the op's rank; for a message, the sender's
  std::uint32_t op;
};

// Without branches: with event times all over the place a branch predictor guesses wrong
// half the time, which costs more than evaluating both halves.
inline bool before(const Event& a, const Event& b) {
  return (a.time < b.time) | ((a.time == b.time) & (a.seq < b.seq));
}

struct EventBefore {
  bool operator()(const Event& a, const Event& b) const { return before(a, b); }
};

class EventQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push(const Event& e) {
    ++size_;
    if (e.time < now_time_) {
      past_.push(e);
    } else if (e.time == now_time_) {
      now_.push_back(e);
    } else {
      buckets_[bucket_of(e.time)].push_back(e);
    }
  }

  // An event that pop() will return soon: the k-th after the next among those at the
  // current time (nullptr when there are fewer), so that the caller can ask for its data
  // ahead of time. Ranks that advance together queue hundreds of events at one time.
  const Event* upcoming(std::size_t k) const { return next_ + k < now_.size() ? &now_[next_ + k] : nullptr; }

  // The first event by (time, seq); the queue must not be empty.
  Event pop() {
    --size_;
    if (!past_.empty()) {
      const Event e = past_.top();
      past_.pop();
      return e;
    }
    if (next_ == now_.size()) advance();
    return now_[next_++];
  }

 private:
  // 1..64: one past the highest bit in which `time` differs from now_time_.
  std::size_t bucket_of(std::uint64_t time) const {
    return static_cast<std::size_t>(64 - std::countl_zero(time ^ now_time_));
  }

  // The events at now_time_ are gone: the lowest nonempty bucket's earliest time is next.
  void advance() {
    now_.clear();
    next_ = 0;
    std::size_t b = 1;
    while (buckets_[b].empty()) ++b;
    std::vector<Event>& spread = buckets_[b];
    std::uint64_t earliest = spread.front().time;
    for (const Event& e : spread) earliest = std::min(earliest, e.time);
    now_time_ = earliest;
    // Every other event of bucket b shares its bits above b - 1 with the new time, so it
    // lands in a lower bucket.
    for (const Event& e : spread) {
      if (e.time == now_time_) {
        now_.push_back(e);
      } else {
        buckets_[bucket_of(e.time)].push_back(e);
      }
    }
    spread.clear();
    // Often already in order: events of one time tend to be queued in the order of their seq.
    const auto by_seq = [](const Event& x, const Event& y) { return x.seq < y.seq; };
    if (!std::is_sorted(now_.begin(), now_.end(), by_seq)) std::sort(now_.begin(), now_.end(), by_seq);
  }

  std::array<std::vector<Event>, 65> buckets_;  // [0] unused: time == now_time_ is now_
  std::vector<Event> now_;                      // at now_time_, by seq; taken from next_
  std::size_t next_ = 0;
  std::uint64_t now_time_ = 0;
  pdes::FourAryHeap<Event, EventBefore> past_;  // before now_time_
  std::size_t size_ = 0;
};

}  // namespace collsim::exec::loggops
