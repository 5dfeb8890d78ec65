#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "collsim/pdes/sorted_front.hpp"

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
// The entries at the base time are served in order from there (SortedFront).
class RadixQueue final : public SortedFront<RadixQueue> {
 public:
  explicit RadixQueue(const std::vector<EventKey>* keys) : SortedFront(keys) {}

  void push(const QueueEntry& entry) override {
    ++size_;
    const std::uint64_t t = time_of(entry);
    if (t > base_) {
      put(t, entry);
    } else if (t == base_) {
      push_late(entry);
    } else {
      push_past(entry);
    }
  }
  std::string_view name() const override { return "radix heap"; }

 private:
  friend class SortedFront<RadixQueue>;
  template <typename F>
  bool for_each_bucketed(F&& f) const {
    for (std::uint16_t levels = levels_; levels != 0; levels = static_cast<std::uint16_t>(levels & (levels - 1))) {
      const unsigned level = static_cast<unsigned>(__builtin_ctz(levels));
      for (std::uint16_t digits = digits_[level]; digits != 0; digits = static_cast<std::uint16_t>(digits & (digits - 1)))
        for (const QueueEntry& e : buckets_[level * kDigits + static_cast<unsigned>(__builtin_ctz(digits))])
          if (!f(e)) return false;
    }
    return true;
  }
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
  // The next time with entries becomes the base, its entries the front's.
  void advance() const;

  // The advance a look at top() makes changes no entry's order, hence `mutable`.
  mutable std::array<std::vector<QueueEntry>, kLevels * kDigits> buckets_;  // level * kDigits + digit
  mutable std::array<std::uint16_t, kLevels> digits_{};  // per level, its nonempty buckets
  mutable std::uint16_t levels_ = 0;                     // levels with a nonempty bucket
  mutable std::uint64_t base_ = 0;
};

}  // namespace collsim::pdes
