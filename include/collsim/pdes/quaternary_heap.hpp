#pragma once

#include <vector>

#include "collsim/pdes/event_queue.hpp"
#include "collsim/pdes/four_ary_heap.hpp"

namespace collsim::pdes {

// A FourAryHeap of 16-byte entries (`--queue heap`; the engine's default is RadixQueue).
class QuaternaryHeap final : public EventQueue {
 public:
  explicit QuaternaryHeap(const std::vector<EventKey>* keys) : heap_(EntryOrder(keys)) {}

  void push(const QueueEntry& entry) override { heap_.push(entry); }
  const QueueEntry& top() const override { return heap_.top(); }
  void pop() override { heap_.pop(); }
  std::size_t size() const override { return heap_.size(); }
  std::string_view name() const override { return "4-ary heap"; }
  bool visit(const std::function<bool(const QueueEntry&)>& f) const override {
    for (const QueueEntry& e : heap_.values())
      if (!f(e)) return false;
    return true;
  }

 private:
  FourAryHeap<QueueEntry, EntryOrder> heap_;
};

}  // namespace collsim::pdes
