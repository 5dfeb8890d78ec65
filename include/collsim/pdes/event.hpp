#pragma once
// Events and their order.
//
// The order of events is total and depends only on where an event came from, never on
// which rank processes it or when it arrived there: (time, priority class, source LP,
// the source LP's own count of events it has scheduled). So every LP sees the same
// sequence of events whatever the number of ranks and the partitioning.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collsim/common/sim_time.hpp"

namespace collsim::pdes {

using LpId = std::uint32_t;
inline constexpr LpId kNoLp = 0xFFFFFFFFu;

// Lower classes run first among events at the same time.
using Priority = std::uint8_t;

// The full order of an event.
struct EventKey {
  SimTime time;
  std::uint64_t origin;    // priority << 32 | source LP
  std::uint64_t sequence;  // the source LP's count of scheduled events

  static constexpr std::uint64_t make_origin(Priority priority, LpId source) {
    return (std::uint64_t{priority} << 32) | source;
  }
  LpId source() const { return static_cast<LpId>(origin & 0xFFFFFFFFu); }
  Priority priority() const { return static_cast<Priority>(origin >> 32); }
};

inline bool before(const EventKey& a, const EventKey& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.origin != b.origin) return a.origin < b.origin;
  return a.sequence < b.sequence;
}

// What an event queue holds: 16 bytes, so that a 4-ary heap node's children share one cache
// line. `hint` follows (priority, source) as far as 32 bits allow (sources from 2^24 - 1 up
// share one value); when time and hint tie, the full keys settle it.
struct QueueEntry {
  SimTime time;
  std::uint32_t hint;
  std::uint32_t ref;  // the event's slot in the engine's pool, where its full key is

  static std::uint32_t hint_of(const EventKey& k) {
    const std::uint32_t source = k.source() < 0xFFFFFFu ? k.source() : 0xFFFFFFu;
    return (std::uint32_t{k.priority()} << 24) | source;
  }
};

// Orders queue entries exactly as before() orders their keys. In lock-step models (every
// host of a ring at the same phase) times tie in most comparisons, so the hint settles a tie
// in line; only when time and hint both tie are the full keys read.
class EntryOrder {
 public:
  explicit EntryOrder(const std::vector<EventKey>* keys) : keys_(keys) {}
  bool operator()(const QueueEntry& a, const QueueEntry& b) const {
    if (a.time != b.time) return a.time < b.time;
    if (a.hint != b.hint) return a.hint < b.hint;
    return tie(a, b);
  }

 private:
  [[gnu::noinline]] bool tie(const QueueEntry& a, const QueueEntry& b) const {
    return before((*keys_)[a.ref], (*keys_)[b.ref]);
  }
  const std::vector<EventKey>* keys_;
};

// Bytes an event may carry to its handler.
inline constexpr std::size_t kMaxPayloadBytes = 56;

// Bits of EventBody::lp_class: a class tag, or a channel's number.
inline constexpr std::uint32_t kLpClassBits = 24;

// The body of an event: who handles it and with what. Plain bytes, so that it crosses
// ranks by copying.
struct EventBody {
  LpId target;
  // Type tag of the target LP's class, checked on delivery; 24 bits and the handler's 8 share
  // one word so that a packet (net::Packet, 56 bytes) fits beside them in a cache line.
  std::uint32_t lp_class : kLpClassBits;
  std::uint32_t handler : 8;  // index into the target class's handler list
  alignas(8) std::byte payload[kMaxPayloadBytes];
};
static_assert(sizeof(EventBody) == 64);

// The handler index of a channel delivery (no LP class has this many handlers); its
// lp_class field then holds the channel's number in the engine.
inline constexpr std::uint8_t kChannelHandler = 0xFF;

// An event on its way to another rank.
struct RemoteEvent {
  EventKey key;
  EventBody body;
};

}  // namespace collsim::pdes
