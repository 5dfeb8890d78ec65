#pragma once
// Storage for the deliveries waiting in an engine's channels: one SlotPool shared by every
// channel of the engine, so the slots in use stay few and warm in cache (per-channel rings
// would each grow to their own worst burst). A channel threads its waiting deliveries
// through the slots as a singly linked FIFO.

#include <cstddef>
#include <cstdint>

#include "collsim/pdes/event.hpp"
#include "collsim/pdes/slot_pool.hpp"

namespace collsim::pdes {

struct ChannelSlot {
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  EventKey key;
  std::uint32_t next;
  alignas(8) std::byte payload[kMaxPayloadBytes];
};

using ChannelStore = SlotPool<ChannelSlot>;

}  // namespace collsim::pdes
