#include "collsim/pdes/event_pool.hpp"

#include <algorithm>
#include <new>
#include <string>

#include "collsim/pdes/simulation_error.hpp"

namespace collsim::pdes {

namespace {
// Bodies are made usable this many at a time (256 KiB).
constexpr std::uint32_t kGrowSlots = 4096;

// As much address space as the process may have, up to kMaxSlots bodies: where the virtual
// memory of a process is limited (ulimit -v, as some batch systems set it), less.
ReservedMemory reserve_bodies() {
  for (std::uint32_t slots = EventPool::kMaxSlots;; slots /= 2) {
    try {
      return ReservedMemory(std::size_t{slots} * sizeof(EventBody));
    } catch (const std::bad_alloc&) {
      if (slots <= kGrowSlots) throw;
    }
  }
}
}  // namespace

EventPool::EventPool() : memory_(reserve_bodies()), bodies_(static_cast<EventBody*>(memory_.data())) {}

std::uint32_t EventPool::grow() {
  const std::uint32_t ref = capacity();
  const std::uint32_t limit = max_slots();
  if (ref == limit)
    throw SimulationError("more than " + std::to_string(limit) +
                          " events are held at once on one rank (pending or on their way over links)" +
                          (limit < kMaxSlots ? ", as many as the process's virtual memory limit (ulimit -v) leaves room for"
                                              : "") +
                          ": run the model on more ranks");
  const std::size_t need = (std::size_t{ref} + 1) * sizeof(EventBody);
  if (need > memory_.usable()) {
    const std::size_t slots = std::min<std::size_t>(std::size_t{ref} + kGrowSlots, limit);
    memory_.make_usable(slots * sizeof(EventBody));
  }
  keys_.emplace_back();
  links_.push_back(kNoSlot);
  return ref;
}

}  // namespace collsim::pdes
