#pragma once
// The pending-event set of one engine, behind a small interface so that implementations
// can be measured against each other (bench/pdes_queue_bench).
//
//   implementation     push           pop            memory
//   QuaternaryHeap     O(log4 n)      O(log4 n)      16 B per event, one array
//   CalendarQueue      O(1) expected  O(1) expected  16 B per event + buckets; resizes
//                                                    when the event count doubles/halves
//   RadixQueue         O(1)           O(log C) amortised (C: the largest time difference),
//                                                    16 B per event + 256 buckets
//   TimingWheel        O(1) within    O(1) per entry 16 B per event in 15-entry chunks +
//                      4.2 us, else   and per slot   32 KB of slot lists
//                      O(log4 n)      passed
//
// All order entries by EntryOrder (event.hpp) exactly, ties included. The engine uses the
// timing wheel directly (no virtual calls); the interface serves the alternatives and benchmarks.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "collsim/pdes/event.hpp"

namespace collsim::pdes {

class EventQueue {
 public:
  virtual ~EventQueue() = default;
  virtual void push(const QueueEntry& entry) = 0;
  // The first entry in EntryOrder. The queue must not be empty.
  virtual const QueueEntry& top() const = 0;
  virtual void pop() = 0;
  virtual std::size_t size() const = 0;
  bool empty() const { return size() == 0; }
  // Calls f on every entry, in no particular order, until it returns false; returns whether
  // it went through them all.
  virtual bool visit(const std::function<bool(const QueueEntry&)>& f) const = 0;
  virtual std::string_view name() const = 0;
};

enum class QueueKind { QuaternaryHeap, Calendar, Radix, Wheel };

// `keys` holds the full key of every entry's ref and must outlive the queue.
std::unique_ptr<EventQueue> make_event_queue(QueueKind kind, const std::vector<EventKey>* keys);
std::string_view to_string(QueueKind kind);
// "heap", "calendar", "radix" or "wheel".
std::optional<QueueKind> queue_kind_from_name(std::string_view name);

}  // namespace collsim::pdes
