#pragma once
// Event bodies and full keys of one engine, in recycled slots (SlotPool): a handler may
// schedule new events while reading its own body. The keys sit in a plain array beside the
// slots, which the event queues read to break ties.

#include <cstdint>
#include <vector>

#include "collsim/pdes/event.hpp"
#include "collsim/pdes/slot_pool.hpp"

namespace collsim::pdes {

class EventPool {
 public:
  // A slot's body and full key, and the channel link the engine keeps per slot.
  static constexpr std::size_t kStoredEventBytes = sizeof(EventBody) + sizeof(EventKey) + sizeof(std::uint32_t);

  std::uint32_t store(const EventKey& key, const EventBody& body) {
    const std::uint32_t ref = allocate(key);
    bodies_[ref] = body;
    return ref;
  }
  // A slot with its key set, for the caller to fill the body in place.
  std::uint32_t allocate(const EventKey& key) {
    const std::uint32_t ref = bodies_.allocate();
    if (ref >= keys_.size()) keys_.emplace_back();
    keys_[ref] = key;
    return ref;
  }
  void release(std::uint32_t ref) { bodies_.release(ref); }
  EventBody& operator[](std::uint32_t ref) { return bodies_[ref]; }
  void prefetch(std::uint32_t ref) { __builtin_prefetch(&bodies_[ref]); }
  const EventKey& key(std::uint32_t ref) const { return keys_[ref]; }
  // The full key of every slot, by ref: what queues consult to break ties.
  const std::vector<EventKey>* keys() const { return &keys_; }
  std::uint32_t capacity() const { return bodies_.capacity(); }

 private:
  SlotPool<EventBody> bodies_;
  std::vector<EventKey> keys_;
};

}  // namespace collsim::pdes
