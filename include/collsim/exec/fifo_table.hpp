#pragma once
// FIFO queues by 64-bit key, for MPI matching by (source, tag): an open-addressing table of
// keys (common::OpenAddressing), each slot holding the front of its key's queue, the rest of
// which is a linked list in one pool of nodes. A key leaves the table when its queue empties,
// and a freed node is reused by the next push, so a run that gives every message its own tag
// allocates nothing once the table and the pool have grown to the most entries held at once
// (a std::unordered_map of std::deque allocated a node and a 512-byte block per tag, and
// freed them again, on every message).
//
// Most queues hold one item (a receive posted for one message, or a message that came
// first): keeping the front in the slot makes taking it the one cache miss of finding the
// key, where a node would be another, cold since the item was queued.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "collsim/common/open_addressing.hpp"

namespace collsim::exec {

template <typename T>
class FifoTable {
 public:
  bool contains(std::uint64_t key) const { return slots_.find(key) != slots_.kAbsent; }

  // The front of key's queue; the key must be present.
  T& front(std::uint64_t key) { return slots_[slots_.find(key)].front; }
  const T& front(std::uint64_t key) const { return slots_[slots_.find(key)].front; }

  void push(std::uint64_t key, T item) {
    const auto [i, claimed] = slots_.find_or_claim(key);
    Slot& s = slots_[i];
    if (claimed) {
      s.used = true;
      s.front = std::move(item);
      s.head = s.tail = kNone;
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
  T pop(std::uint64_t key) { return pop_at(slots_.find(key)); }

  // The front of key's queue, removed, or nothing when the key is absent: one lookup.
  std::optional<T> try_pop(std::uint64_t key) {
    const std::size_t i = slots_.find(key);
    if (i == slots_.kAbsent) return std::nullopt;
    return pop_at(i);
  }

  // Every key with its queue's items, front first; keys in the table's order.
  template <typename F>
  void for_each(F&& f) const {
    slots_.for_each([&](const Slot& s) {
      f(s.key, s.front);
      for (std::uint32_t n = s.head; n != kNone; n = nodes_[n].next) f(s.key, nodes_[n].item);
    });
  }

  // Every key with the front of its queue.
  template <typename F>
  void for_each_front(F&& f) const {
    slots_.for_each([&](const Slot& s) { f(s.key, s.front); });
  }

 private:
  static constexpr std::uint32_t kNone = ~0u;
  struct Slot {
    std::uint64_t key = 0;
    bool used = false;
    std::uint32_t head = kNone;  // the items after the front, kNone when none
    std::uint32_t tail = kNone;
    T front{};
    bool occupied() const { return used; }
  };
  struct Node {
    T item{};
    std::uint32_t next = kNone;  // the next node of its queue
  };

  T pop_at(std::size_t i) {
    Slot& s = slots_[i];
    T item = std::move(s.front);
    if (s.head == kNone) {
      slots_.erase_at(i);
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

  // A rank's table holds a few keys at a time: start small, as each rank has two.
  common::OpenAddressing<Slot> slots_{4};
  std::vector<Node> nodes_;
  // Freed nodes, a stack: taking one reads nothing of it (a list through the nodes would).
  std::vector<std::uint32_t> free_;
};

}  // namespace collsim::exec
