#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "collsim/pdes/event_queue.hpp"
#include "collsim/pdes/four_ary_heap.hpp"

namespace collsim::pdes {

// A radix heap over event times (Ahuja, Mehlhorn, Orlin, Tarjan) with 4-bit digits: an entry
// later than the base time goes to the bucket of the highest 4-bit digit in which its time
// differs from the base (its level) and of its own value of that digit, an append. When the
// entries at the base run out, the lowest nonempty bucket (level, then digit) holds the
// earliest time, which becomes the base, and the bucket is spread over the lower levels: an
// entry moves down at most 16 times in all (64 with one bit per level). A packet model puts
// most of its events a link's delay ahead, so that per event this is a few appends where a
// heap of thousands of pending entries does a dozen comparisons of cold lines.
//
// The entries at the base time are sorted once in full (EntryOrder) as they come out of their
// bucket: hosts that move in lock step put hundreds at one time. Entries pushed at the base
// time after that go to a small heap, and the earlier of the two fronts is next. The engine
// pushes before the base only after a look at top() (events received from other ranks at a
// window's end): those go to a heap of their own, served first.
class RadixQueue final : public EventQueue {
 public:
  explicit RadixQueue(const std::vector<EventKey>* keys)
      : before_(keys), late_(EntryOrder(keys)), past_(EntryOrder(keys)) {}

  void push(const QueueEntry& entry) override {
    ++size_;
    const std::uint64_t t = time_of(entry);
    if (t > base_) {
      put(t, entry);
    } else if (t == base_) {
      late_.push(entry);
    } else {
      past_.push(entry);
    }
  }
  const QueueEntry& top() const override {
    if (!past_.empty()) return past_.top();
    return from_sorted() ? sorted_[next_] : late_.top();
  }
  void pop() override {
    --size_;
    if (!past_.empty()) {
      past_.pop();
    } else if (from_sorted()) {
      ++next_;
    } else {
      late_.pop();
    }
  }
  std::size_t size() const override { return size_; }
  std::string_view name() const override { return "radix heap"; }
  bool visit(const std::function<bool(const QueueEntry&)>& f) const override { return for_each(f); }
  // visit() without the indirection, for the engine.
  template <typename F>
  bool for_each(F&& f) const {
    for (const QueueEntry& e : past_.values())
      if (!f(e)) return false;
    for (std::size_t i = next_; i < sorted_.size(); ++i)
      if (!f(sorted_[i])) return false;
    for (const QueueEntry& e : late_.values())
      if (!f(e)) return false;
    for (std::uint16_t levels = levels_; levels != 0; levels = static_cast<std::uint16_t>(levels & (levels - 1))) {
      const unsigned level = static_cast<unsigned>(__builtin_ctz(levels));
      for (std::uint16_t digits = digits_[level]; digits != 0; digits = static_cast<std::uint16_t>(digits & (digits - 1)))
        for (const QueueEntry& e : buckets_[level * kDigits + static_cast<unsigned>(__builtin_ctz(digits))])
          if (!f(e)) return false;
    }
    return true;
  }

 private:
  static std::uint64_t time_of(const QueueEntry& e) { return static_cast<std::uint64_t>(e.time.picoseconds()); }
  static constexpr unsigned kDigitBits = 4, kDigits = 1u << kDigitBits, kLevels = 64 / kDigitBits;
  // Into the bucket of t (> base_): level and digit, with their bits in the masks.
  void put(std::uint64_t t, const QueueEntry& entry) const {
    const unsigned level = static_cast<unsigned>(63 - __builtin_clzll(t ^ base_)) / kDigitBits;
    const unsigned digit = static_cast<unsigned>(t >> (level * kDigitBits)) & (kDigits - 1);
    buckets_[level * kDigits + digit].push_back(entry);
    digits_[level] = static_cast<std::uint16_t>(digits_[level] | (1u << digit));
    levels_ = static_cast<std::uint16_t>(levels_ | (1u << level));
  }
  // Whether the next entry at the base time is sorted_'s (else late_'s), advancing to the next
  // time when both are used up. The queue must not be empty.
  bool from_sorted() const {
    if (next_ == sorted_.size()) {
      if (!late_.empty()) return false;
      advance();
    }
    return late_.empty() || before_(sorted_[next_], late_.top());
  }
  void advance() const;

  EntryOrder before_;
  // The advance a look at top() makes changes no entry's order, hence `mutable`.
  mutable std::array<std::vector<QueueEntry>, kLevels * kDigits> buckets_;  // level * kDigits + digit
  mutable std::array<std::uint16_t, kLevels> digits_{};  // per level, its nonempty buckets
  mutable std::uint16_t levels_ = 0;                     // levels with a nonempty bucket
  mutable std::vector<QueueEntry> sorted_;               // at the base time, in order, from next_
  mutable std::size_t next_ = 0;
  FourAryHeap<QueueEntry, EntryOrder> late_;  // pushed at the base time after it was sorted
  FourAryHeap<QueueEntry, EntryOrder> past_;  // before the base time
  mutable std::uint64_t base_ = 0;
  std::size_t size_ = 0;
};

}  // namespace collsim::pdes
