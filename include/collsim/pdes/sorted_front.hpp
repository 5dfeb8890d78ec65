#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "collsim/pdes/event_queue.hpp"
#include "collsim/pdes/four_ary_heap.hpp"

namespace collsim::pdes {

// What a bucketed queue (RadixQueue, TimingWheel) serves from: the entries of its current
// bucket, sorted once in full when the bucket is taken (hosts that move in lock step put
// hundreds at one time), then read in order. Entries pushed into the current bucket after it
// was sorted go to a small heap, and the earlier of the two fronts is next. The engine pushes
// before the current bucket only after a look at top() (events received from other ranks at a
// window's end): those go to a heap of their own, served first.
//
// `Queue` holds the buckets: its advance() moves on to the next bucket with entries, hands
// them over (clear_bucket(), take_bucket(), sort_bucket()); its for_each_bucketed() visits
// what its buckets still hold. Called through the concrete queue, nothing here is virtual.
template <typename Queue>
class SortedFront : public EventQueue {
 public:
  const QueueEntry& top() const final {
    if (!past_.empty()) return past_.top();
    return from_sorted() ? sorted_[next_] : late_.top();
  }
  void pop() final {
    --size_;
    if (!past_.empty()) {
      past_.pop();
    } else if (from_sorted()) {
      ++next_;
    } else {
      late_.pop();
    }
  }
  std::size_t size() const final { return size_; }
  // top() and pop() for the engine's loop, which looks at the next entry and then takes it:
  // peek() remembers which front its entry came from, so that pop_peeked() need not work it
  // out again. Nothing may be pushed between the two.
  const QueueEntry& peek() const {
    if (!past_.empty()) {
      peeked_ = Front::Past;
      return past_.top();
    }
    if (from_sorted()) {
      peeked_ = Front::Sorted;
      return sorted_[next_];
    }
    peeked_ = Front::Late;
    return late_.top();
  }
  void pop_peeked() {
    --size_;
    if (peeked_ == Front::Sorted) [[likely]] {
      ++next_;
    } else if (peeked_ == Front::Past) {
      past_.pop();
    } else {
      late_.pop();
    }
  }
  // The entry k places after the next in the current bucket's sorted run, or nullptr when the
  // run is shorter: a hint for fetching an event's body ahead of its turn (late and past
  // entries, which may come between, are not looked at).
  const QueueEntry* upcoming(std::size_t k) const { return next_ + k < sorted_.size() ? &sorted_[next_ + k] : nullptr; }
  bool visit(const std::function<bool(const QueueEntry&)>& f) const final { return for_each(f); }
  // visit() without the indirection, for the engine.
  template <typename F>
  bool for_each(F&& f) const {
    for (const QueueEntry& e : past_.values())
      if (!f(e)) return false;
    for (std::size_t i = next_; i < sorted_.size(); ++i)
      if (!f(sorted_[i])) return false;
    for (const QueueEntry& e : late_.values())
      if (!f(e)) return false;
    return static_cast<const Queue&>(*this).for_each_bucketed(f);
  }

 protected:
  explicit SortedFront(const std::vector<EventKey>* keys)
      : before_(keys), late_(EntryOrder(keys)), past_(EntryOrder(keys)) {}

  // A push into the current bucket after it was sorted, or before it.
  void push_late(const QueueEntry& entry) { late_.push(entry); }
  void push_past(const QueueEntry& entry) { past_.push(entry); }
  // advance(): the new current bucket's entries, then their order.
  void clear_bucket() const {
    sorted_.clear();
    next_ = 0;
  }
  void take_bucket(const QueueEntry& entry) const { sorted_.push_back(entry); }
  template <typename It>
  void take_bucket(It first, It last) const {
    sorted_.insert(sorted_.end(), first, last);
  }
  void sort_bucket() const {
    // Often in order already: hosts in lock step schedule their next events in the order in
    // which they ran, which is the order of their sources.
    if (!std::is_sorted(sorted_.begin(), sorted_.end(), before_)) std::sort(sorted_.begin(), sorted_.end(), before_);
  }

  EntryOrder before_;
  std::size_t size_ = 0;  // the derived push() counts its entries in

 private:
  // Whether the next entry of the current bucket is sorted_'s (else late_'s), moving on to the
  // next bucket with entries when both are used up. The queue must not be empty.
  bool from_sorted() const {
    if (next_ == sorted_.size()) {
      if (!late_.empty()) return false;
      static_cast<const Queue&>(*this).advance();
    }
    return late_.empty() || before_(sorted_[next_], late_.top());
  }

  enum class Front : std::uint8_t { Past, Sorted, Late };
  mutable Front peeked_ = Front::Sorted;
  // The advance a look at top() makes changes no entry's order, hence `mutable`.
  mutable std::vector<QueueEntry> sorted_;  // the current bucket's, in order, from next_
  mutable std::size_t next_ = 0;
  FourAryHeap<QueueEntry, EntryOrder> late_;  // pushed into the current bucket after it was sorted
  FourAryHeap<QueueEntry, EntryOrder> past_;  // before the current bucket
};

}  // namespace collsim::pdes
