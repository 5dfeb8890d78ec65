#include "collsim/pdes/timing_wheel.hpp"

#include <algorithm>
#include <bit>

namespace collsim::pdes {

std::uint64_t TimingWheel::next_occupied() const {
  const unsigned c = static_cast<unsigned>(current_ & (kSlots - 1));
  const unsigned word = c / 64;
  // The current slot's own bit is clear: its entries were taken (or went to late_).
  const auto at = [&](unsigned w, std::uint64_t bits) {
    const unsigned i = w * 64 + static_cast<unsigned>(std::countr_zero(bits));
    return current_ + ((i - c) & (kSlots - 1));
  };
  const unsigned bit = c % 64;
  if (const std::uint64_t above = bit == 63 ? 0 : occupied_[word] & (~std::uint64_t{0} << (bit + 1)); above != 0)
    return at(word, above);
  if (const std::uint64_t later = word == 63 ? 0 : words_ & (~std::uint64_t{0} << (word + 1)); later != 0) {
    const unsigned w = static_cast<unsigned>(std::countr_zero(later));
    return at(w, occupied_[w]);
  }
  // Round the wheel: the words up to the current one (whose bits left are below the slot).
  if (words_ != 0) {
    const unsigned w = static_cast<unsigned>(std::countr_zero(words_));
    return at(w, occupied_[w]);
  }
  return kNoSlot;
}

void TimingWheel::advance() const {
  std::uint64_t next = next_occupied();
  if (!far_.empty()) next = std::min(next, slot_of(far_.top()));
  current_ = next;
  // What the wheel now reaches leaves the heap beyond it (the current slot included).
  while (!far_.empty() && slot_of(far_.top()) - current_ < kSlots) {
    put(slot_of(far_.top()), far_.top());
    far_.pop();
  }
  const std::size_t at = static_cast<std::size_t>(current_ & (kSlots - 1));
  clear_bucket();
  std::uint32_t c = head_[at];
  while (c != kNone) {
    const Chunk& chunk = chunks_[c];
    take_bucket(chunk.entries.begin(), chunk.entries.begin() + filled(at, c));
    const std::uint32_t following = chunk.next;
    chunks_[c].next = free_;
    free_ = c;
    c = following;
  }
  head_[at] = kNone;
  tail_[at] = Tail{kNone, 0};
  occupied_[at / 64] &= ~(std::uint64_t{1} << (at % 64));
  if (occupied_[at / 64] == 0) words_ &= ~(std::uint64_t{1} << (at / 64));
  sort_bucket();
}

}  // namespace collsim::pdes
