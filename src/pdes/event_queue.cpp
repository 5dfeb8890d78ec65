#include "collsim/pdes/event_queue.hpp"

#include "collsim/pdes/calendar_queue.hpp"
#include "collsim/pdes/quaternary_heap.hpp"
#include "collsim/pdes/radix_queue.hpp"
#include "collsim/pdes/timing_wheel.hpp"

namespace collsim::pdes {

std::unique_ptr<EventQueue> make_event_queue(QueueKind kind, const std::vector<EventKey>* keys) {
  switch (kind) {
    case QueueKind::Calendar: return std::make_unique<CalendarQueue>(keys);
    case QueueKind::Radix: return std::make_unique<RadixQueue>(keys);
    case QueueKind::Wheel: return std::make_unique<TimingWheel>(keys);
    case QueueKind::QuaternaryHeap: break;
  }
  return std::make_unique<QuaternaryHeap>(keys);
}

std::string_view to_string(QueueKind kind) {
  switch (kind) {
    case QueueKind::Calendar: return "calendar";
    case QueueKind::Radix: return "radix";
    case QueueKind::Wheel: return "wheel";
    case QueueKind::QuaternaryHeap: return "heap";
  }
  return "unknown";
}

std::optional<QueueKind> queue_kind_from_name(std::string_view name) {
  if (name == "heap") return QueueKind::QuaternaryHeap;
  if (name == "calendar") return QueueKind::Calendar;
  if (name == "radix") return QueueKind::Radix;
  if (name == "wheel") return QueueKind::Wheel;
  return std::nullopt;
}

}  // namespace collsim::pdes
