#pragma once

#include <vector>

#include "collsim/pdes/event_queue.hpp"

namespace collsim::pdes {

// A 4-ary min-heap in one array: half the depth of a binary heap, and the four 16-byte
// children of a node fill one cache line. Defined inline: the engine calls it directly.
class QuaternaryHeap final : public EventQueue {
 public:
  explicit QuaternaryHeap(const std::vector<EventKey>* keys) : before_(keys) {}

  void push(const QueueEntry& entry) override {
    std::size_t i = heap_.size();
    heap_.push_back(entry);
    QueueEntry* h = heap_.data();
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before_(entry, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = entry;
  }

  const QueueEntry& top() const override { return heap_.front(); }

  // Floyd's variant: move the hole left at the root down to a leaf along the smaller
  // children, then sift the former last entry up from there. The last entry usually
  // belongs near the bottom, so this saves comparing with it at every level.
  void pop() override {
    const QueueEntry last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return;
    QueueEntry* h = heap_.data();
    std::size_t hole = 0;
    for (;;) {
      const std::size_t first = 4 * hole + 1;
      std::size_t best;
      if (first + 3 < n) {
        // Two independent comparisons, then one, as arithmetic rather than branches: with
        // random times every comparison is a coin toss for a branch predictor.
        const std::size_t a = first + static_cast<std::size_t>(before_(h[first + 1], h[first]));
        const std::size_t b = first + 2 + static_cast<std::size_t>(before_(h[first + 3], h[first + 2]));
        best = before_(h[b], h[a]) ? b : a;
      } else if (first < n) {
        best = first;
        for (std::size_t c = first + 1; c < n; ++c)
          if (before_(h[c], h[best])) best = c;
      } else {
        break;
      }
      h[hole] = h[best];
      hole = best;
    }
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / 4;
      if (!before_(last, h[parent])) break;
      h[hole] = h[parent];
      hole = parent;
    }
    h[hole] = last;
  }

  std::size_t size() const override { return heap_.size(); }
  std::string_view name() const override { return "4-ary heap"; }

 private:
  EntryOrder before_;
  std::vector<QueueEntry> heap_;
};

}  // namespace collsim::pdes
