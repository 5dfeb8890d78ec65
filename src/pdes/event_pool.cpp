#include "collsim/pdes/event_pool.hpp"

#include <algorithm>
#include <new>
#include <string>

#include "collsim/pdes/simulation_error.hpp"

namespace collsim::pdes {

namespace {
// Bodies are made usable this many at a time (256 KiB).
constexpr std::uint32_t kGrowSlots = 4096;
}  // namespace

EventPool::EventPool()
    : memory_(std::size_t{kMaxSlots} * sizeof(EventBody)), bodies_(static_cast<EventBody*>(memory_.data())) {}

std::uint32_t EventPool::grow() {
  const std::uint32_t ref = capacity();
  if (ref == kMaxSlots)
    throw SimulationError("more than " + std::to_string(kMaxSlots) +
                          " events are held at once on one rank (pending or on their way over links): the model "
                          "is larger than one rank can hold; run it on more ranks");
  const std::size_t need = (std::size_t{ref} + 1) * sizeof(EventBody);
  if (need > memory_.usable()) {
    const std::size_t slots = std::min<std::size_t>(std::size_t{ref} + kGrowSlots, kMaxSlots);
    memory_.make_usable(slots * sizeof(EventBody));
  }
  keys_.emplace_back();
  links_.push_back(kNoSlot);
  return ref;
}

}  // namespace collsim::pdes
