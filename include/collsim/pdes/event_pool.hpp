#pragma once
// Event bodies and full keys of one engine, in recycled slots: a handler may schedule new
// events while reading its own body, so the bodies never move (they sit in reserved address
// space, one multiplication from their number). The keys sit in a plain array beside the
// slots, which the event queues read to break ties, and so does a link per slot: the next
// free slot, or for a delivery waiting in a channel the channel's next delivery. Recently
// freed slots are reused first and stay warm in cache. Nothing is allocated per event after
// warm-up.

#include <cstdint>
#include <vector>

#include "collsim/common/reserved_memory.hpp"
#include "collsim/pdes/event.hpp"

namespace collsim::pdes {

class EventPool {
 public:
  // A slot's body and full key, and its link.
  static constexpr std::size_t kStoredEventBytes = sizeof(EventBody) + sizeof(EventKey) + sizeof(std::uint32_t);
  // Events held at once (pending or waiting in channels), 8 GiB of bodies: more is an error.
  // Where the process's address space is limited, as many as fit in it.
  static constexpr std::uint32_t kMaxSlots = std::uint32_t{1} << 27;
  static constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;

  EventPool();

  std::uint32_t store(const EventKey& key, const EventBody& body) {
    const std::uint32_t ref = allocate(key);
    bodies_[ref] = body;
    return ref;
  }
  // A slot with its key set, for the caller to fill the body in place.
  std::uint32_t allocate(const EventKey& key) {
    std::uint32_t ref = free_;
    if (ref != kNoSlot) [[likely]] {
      free_ = links_[ref];
    } else {
      ref = grow();
    }
    keys_[ref] = key;
    return ref;
  }
  void release(std::uint32_t ref) {
    links_[ref] = free_;
    free_ = ref;
  }
  EventBody& operator[](std::uint32_t ref) { return bodies_[ref]; }
  void prefetch(std::uint32_t ref) { __builtin_prefetch(&bodies_[ref]); }
  // The link of a slot in use, for whoever holds it in a list (a channel's waiting deliveries).
  std::uint32_t& link(std::uint32_t ref) { return links_[ref]; }
  const EventKey& key(std::uint32_t ref) const { return keys_[ref]; }
  // The full key of every slot, by ref: what queues consult to break ties.
  const std::vector<EventKey>* keys() const { return &keys_; }
  // Slots ever handed out: the most events held at once.
  std::uint32_t capacity() const { return static_cast<std::uint32_t>(links_.size()); }

 private:
  // A new slot, once every slot is in use; out of line, it is rare after warm-up.
  [[gnu::noinline]] std::uint32_t grow();

  // As many slots as its reservation holds.
  std::uint32_t max_slots() const { return static_cast<std::uint32_t>(memory_.reserved() / sizeof(EventBody)); }

  ReservedMemory memory_;
  EventBody* bodies_;
  std::vector<EventKey> keys_;
  std::vector<std::uint32_t> links_;
  std::uint32_t free_ = kNoSlot;
};

}  // namespace collsim::pdes
