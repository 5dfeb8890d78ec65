#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "collsim/pdes/four_ary_heap.hpp"
#include "collsim/pdes/sorted_front.hpp"

namespace collsim::pdes {

// A timing wheel of 4096 slots of 1,024 ps each (4.2 us ahead of the current slot), with a
// heap for what lies beyond. A packet model puts nearly every event a link's delay ahead (a
// few hundred ns), so an event is one append to its slot; when the run reaches a slot, its
// entries are sorted once and served from there (SortedFront). Where a radix heap moves each
// entry down a level per digit of its delay (five times for 500 ns in picoseconds), this
// moves it never. Entries beyond the wheel wait in a heap and enter their slot when the wheel
// comes within reach of it.
class TimingWheel final : public SortedFront<TimingWheel> {
 public:
  explicit TimingWheel(const std::vector<EventKey>* keys) : SortedFront(keys), far_(EntryOrder(keys)) {
    head_.fill(kNone);
    tail_.fill(Tail{kNone, 0});
  }

  void push(const QueueEntry& entry) override { add(entry); }
  // push() for the engine, which schedules through the concrete type: inlined there, the
  // call's own cost was a third of a push.
  [[gnu::always_inline]] void add(const QueueEntry& entry) {
    ++size_;
    const std::uint64_t slot = slot_of(entry);
    if (slot - current_ < kSlots) {
      if (slot == current_) {
        push_late(entry);
      } else {
        put(slot, entry);
      }
    } else if (slot < current_) {
      push_past(entry);
    } else {
      far_.push(entry);
    }
  }
  std::string_view name() const override { return "timing wheel"; }

 private:
  static constexpr unsigned kSlotBits = 10, kWheelBits = 12;
  static constexpr std::uint64_t kSlots = std::uint64_t{1} << kWheelBits;
  static constexpr std::size_t kWords = kSlots / 64;
  static_assert(kWords <= 64, "one summary word covers the occupancy words");
  // A slot's entries sit in a list of chunks from one pool, so that the wheel holds no more
  // than its entries (and a part-filled chunk per slot), however they move round it.
  static constexpr std::uint32_t kChunkEntries = 15, kNone = 0xFFFFFFFFu;
  // Every chunk of a slot but its last is full; the last's fill is the slot's Tail::count.
  struct Chunk {
    std::array<QueueEntry, kChunkEntries> entries;
    std::uint32_t next;
  };
  static std::uint64_t slot_of(const QueueEntry& e) {
    return static_cast<std::uint64_t>(e.time.picoseconds()) >> kSlotBits;
  }
  // Into its slot of the wheel (ahead of the current slot, within reach).
  [[gnu::always_inline]] void put(std::uint64_t slot, const QueueEntry& entry) const {
    const std::size_t at = static_cast<std::size_t>(slot & (kSlots - 1));
    // Only stores reach the chunk: the slot's fill is read beside its tail, where a load from a
    // chunk last written a few microseconds of simulated time ago would wait for memory.
    Tail& tail = tail_[at];
    if (tail.chunk == kNone || tail.count == kChunkEntries) {
      const std::uint32_t fresh = new_chunk();
      if (tail.chunk == kNone) {
        head_[at] = fresh;
        occupied_[at / 64] |= std::uint64_t{1} << (at % 64);
        words_ |= std::uint64_t{1} << (at / 64);
      } else {
        chunks_[tail.chunk].next = fresh;
      }
      tail = Tail{fresh, 0};
    }
    Chunk& c = chunks_[tail.chunk];
    c.entries[tail.count++] = entry;
  }
  // Once per kChunkEntries pushes into a slot: kept out of line, so that put() stays small.
  [[gnu::noinline]] std::uint32_t new_chunk() const {
    std::uint32_t c = free_;
    if (c != kNone) {
      free_ = chunks_[c].next;
    } else {
      c = static_cast<std::uint32_t>(chunks_.size());
      chunks_.emplace_back();
    }
    chunks_[c].next = kNone;
    return c;
  }
  friend class SortedFront<TimingWheel>;
  void advance() const;
  template <typename F>
  bool for_each_bucketed(F&& f) const {
    for (std::uint64_t words = words_; words != 0; words &= words - 1) {
      const unsigned w = static_cast<unsigned>(__builtin_ctzll(words));
      for (std::uint64_t bits = occupied_[w]; bits != 0; bits &= bits - 1) {
        const std::size_t at = w * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
        for (std::uint32_t c = head_[at]; c != kNone; c = chunks_[c].next)
          for (std::uint32_t i = 0; i < filled(at, c); ++i)
            if (!f(chunks_[c].entries[i])) return false;
      }
    }
    for (const QueueEntry& e : far_.values())
      if (!f(e)) return false;
    return true;
  }
  // The first occupied slot of the wheel after the current one, as an absolute slot number;
  // kNoSlot if the wheel is empty.
  static constexpr std::uint64_t kNoSlot = ~std::uint64_t{0};
  std::uint64_t next_occupied() const;

  // The advance a look at top() makes changes no entry's order, hence `mutable`.
  mutable std::vector<Chunk> chunks_;
  mutable std::uint32_t free_ = kNone;  // chunks not in use, linked by `next`
  // Per slot, its first chunk, and its last with the entries in it.
  struct Tail {
    std::uint32_t chunk;
    std::uint32_t count;
  };
  mutable std::array<std::uint32_t, kSlots> head_;
  mutable std::array<Tail, kSlots> tail_;
  // Entries in chunk `c` of slot `at`.
  std::uint32_t filled(std::size_t at, std::uint32_t c) const {
    return c == tail_[at].chunk ? tail_[at].count : kChunkEntries;
  }
  mutable std::array<std::uint64_t, kWords> occupied_{};  // bit per slot with entries
  mutable std::uint64_t words_ = 0;                       // bit per nonzero word of occupied_
  mutable std::uint64_t current_ = 0;  // the slot being served (absolute: time >> kSlotBits)
  mutable FourAryHeap<QueueEntry, EntryOrder> far_;  // beyond the wheel's reach
};

}  // namespace collsim::pdes
