#pragma once
// The probing of a hash table by 64-bit key, shared by tables whose slots hold different things
// (a queue's front, an index into a pool): linear probing over a power-of-two array kept at
// most half full, so a lookup reads about one cache line, and deletion by backward shift, so
// that no tombstones lengthen later probes. A node-based map costs a division and a node per
// lookup, which is what the tables on hot paths replace.
//
// A Slot is default-constructible as empty and has a `key` and `bool occupied() const`. A key
// is a 64-bit integer, or a type for which key_bits(key), found beside the type, folds it into
// 64 bits (equal keys, equal bits).

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace collsim::common {

inline std::uint64_t key_bits(std::uint64_t key) { return key; }

template <typename Slot>
class OpenAddressing {
 public:
  using Key = std::remove_cvref_t<decltype(std::declval<Slot&>().key)>;
  static constexpr std::size_t kAbsent = ~std::size_t{0};

  // `first_capacity` (a power of two, at least 2) is allocated at the first insertion.
  explicit OpenAddressing(std::size_t first_capacity) : first_capacity_(first_capacity) {
    assert(first_capacity >= 2 && std::has_single_bit(first_capacity));
  }

  std::size_t size() const { return size_; }

  // The slot holding `key`, or kAbsent.
  std::size_t find(const Key& key) const {
    if (slots_.empty()) return kAbsent;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      if (!slots_[i].occupied()) return kAbsent;
      if (slots_[i].key == key) return i;
    }
  }

  // The slot holding `key` and false, or an empty slot given `key` and true: the caller then
  // fills it (makes it occupied) before any other call.
  std::pair<std::size_t, bool> find_or_claim(const Key& key) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? first_capacity_ : 2 * slots_.size());
    std::size_t i = home(key);
    for (; slots_[i].occupied(); i = (i + 1) & mask_)
      if (slots_[i].key == key) return {i, false};
    slots_[i].key = key;
    ++size_;
    return {i, true};
  }

  Slot& operator[](std::size_t i) { return slots_[i]; }
  const Slot& operator[](std::size_t i) const { return slots_[i]; }

  // Empties slot i; entries after it that probed past it move back into the hole, so that no
  // search stops early at an empty slot.
  void erase_at(std::size_t i) {
    --size_;
    for (std::size_t j = (i + 1) & mask_; slots_[j].occupied(); j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].key);
      // Slot j may move back to i only if its home is not in (i, j] cyclically.
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = std::move(slots_[j]);
      i = j;
    }
    slots_[i] = Slot{};
  }

  // Every occupied slot, in the table's order (which depends on the keys' hashes).
  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.occupied()) f(s);
  }

 private:
  // Fibonacci hashing, top bits: keys are often small consecutive numbers.
  std::size_t home(const Key& key) const {
    return static_cast<std::size_t>((key_bits(key) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void rehash(std::size_t capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
    for (Slot& s : old) {
      if (!s.occupied()) continue;
      std::size_t i = home(s.key);
      while (slots_[i].occupied()) i = (i + 1) & mask_;
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  std::size_t first_capacity_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace collsim::common
