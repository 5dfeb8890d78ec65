#pragma once
// FIFO queues by 64-bit key, for MPI matching by (source, tag): an open-addressing table of
// keys, each slot holding the front of its key's queue, the rest of which is a linked list in
// one pool of nodes. A key leaves the table when its queue empties, and a freed node is
// reused by the next push, so a run that gives every message its own tag allocates nothing
// once the table and the pool have grown to the most entries held at once (a
// std::unordered_map of std::deque allocated a node and a 512-byte block per tag, and freed
// them again, on every message).
//
// Most queues hold one item (a receive posted for one message, or a message that came
// first): keeping the front in the slot makes taking it the one cache miss of finding the
// key, where a node would be another, cold since the item was queued.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace collsim::exec {

template <typename T>
class FifoTable {
 public:
  bool contains(std::uint64_t key) const { return find(key) != kNoSlot; }

  // The front of key's queue; the key must be present.
  T& front(std::uint64_t key) { return slots_[find(key)].front; }
  const T& front(std::uint64_t key) const { return slots_[find(key)].front; }

  void push(std::uint64_t key, T item) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    std::size_t i = home(key);
    while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask();
    Slot& s = slots_[i];
    if (!s.used) {
      s.key = key;
      s.used = true;
      s.front = std::move(item);
      s.head = s.tail = kNone;
      ++used_;
      return;
    }
    const std::uint32_t node = new_node(std::move(item));
    if (s.head == kNone) {
      s.head = node;
    } else {
      nodes_[s.tail].next = node;
    }
    s.tail = node;
  }

  // Removes and returns the front of key's queue; the key must be present.
  T pop(std::uint64_t key) { return pop_at(find(key)); }

  // The front of key's queue, removed, or nothing when the key is absent: one lookup.
  std::optional<T> try_pop(std::uint64_t key) {
    const std::size_t i = find(key);
    if (i == kNoSlot) return std::nullopt;
    return pop_at(i);
  }

  // Every key with its queue's items, front first; keys in the table's order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_) {
      if (!s.used) continue;
      f(s.key, s.front);
      for (std::uint32_t n = s.head; n != kNone; n = nodes_[n].next) f(s.key, nodes_[n].item);
    }
  }

  // Every key with the front of its queue.
  template <typename F>
  void for_each_front(F&& f) const {
    for (const Slot& s : slots_)
      if (s.used) f(s.key, s.front);
  }

 private:
  static constexpr std::uint32_t kNone = ~0u;
  static constexpr std::size_t kNoSlot = ~std::size_t{0};
  struct Slot {
    std::uint64_t key = 0;
    bool used = false;
    std::uint32_t head = kNone;  // the items after the front, kNone when none
    std::uint32_t tail = kNone;
    T front{};
  };
  struct Node {
    T item{};
    std::uint32_t next = kNone;  // the next node of its queue
  };

  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(std::uint64_t key) const {
    // Fibonacci hashing: sources and tags are small consecutive numbers.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask();
  }

  std::size_t find(std::uint64_t key) const {
    if (slots_.empty()) return kNoSlot;
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      if (!slots_[i].used) return kNoSlot;
      if (slots_[i].key == key) return i;
    }
  }

  T pop_at(std::size_t i) {
    Slot& s = slots_[i];
    T item = std::move(s.front);
    if (s.head == kNone) {
      erase_slot(i);
      return item;
    }
    const std::uint32_t node = s.head;
    s.front = std::move(nodes_[node].item);
    s.head = nodes_[node].next;  // kNone after the tail
    if (s.head == kNone) s.tail = kNone;
    nodes_[node].item = T{};
    free_.push_back(node);
    return item;
  }

  std::uint32_t new_node(T item) {
    std::uint32_t n;
    if (!free_.empty()) {
      n = free_.back();
      free_.pop_back();
      nodes_[n].item = std::move(item);
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back({std::move(item), kNone});
    }
    nodes_[n].next = kNone;
    return n;
  }

  // Backward-shift deletion keeps every probe sequence unbroken without tombstones.
  void erase_slot(std::size_t i) {
    --used_;
    for (std::size_t j = (i + 1) & mask();; j = (j + 1) & mask()) {
      if (!slots_[j].used) break;
      const std::size_t h = home(slots_[j].key);
      // Slot j may move back to i only if its home is not in (i, j] cyclically.
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = std::move(slots_[j]);
      i = j;
    }
    slots_[i] = Slot{};
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    // A rank's table holds a few keys at a time: start small, as each rank has two.
    slots_.assign(old.empty() ? 4 : 2 * old.size(), Slot{});
    for (Slot& s : old) {
      if (!s.used) continue;
      std::size_t i = home(s.key);
      while (slots_[i].used) i = (i + 1) & mask();
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  std::vector<Node> nodes_;
  std::size_t used_ = 0;
  // Freed nodes, a stack: taking one reads nothing of it (a list through the nodes would).
  std::vector<std::uint32_t> free_;
};

}  // namespace collsim::exec
