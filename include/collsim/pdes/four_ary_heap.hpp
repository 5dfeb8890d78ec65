#pragma once
// A 4-ary min-heap in one array, for any small value type and strict order: half the depth
// of a binary heap, and four 16-byte children fill one cache line. The array only grows,
// so once it has reached its peak size nothing is allocated. Serves the engine's 4-ary heap
// queue (QuaternaryHeap), the radix heap's and the timing wheel's same-time, past (and the
// wheel's far) entries, and the LogGOPS mode's event list.

#include <cstddef>
#include <vector>

namespace collsim::pdes {

template <typename T, typename Before>
class FourAryHeap {
 public:
  explicit FourAryHeap(Before before = Before{}) : before_(before) {}

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const T& top() const { return heap_.front(); }
  // Every value, in heap order (not sorted).
  const std::vector<T>& values() const { return heap_; }

  void push(const T& value) {
    std::size_t i = heap_.size();
    heap_.push_back(value);
    T* h = heap_.data();
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before_(value, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = value;
  }

  void pop() {
    const T last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down_from_root(last);
  }

 private:
  // Floyd's variant: move the hole left at the root down to a leaf along the smaller
  // children, then sift `value` up from there. The value usually belongs near the bottom,
  // so this saves comparing with it at every level.
  void sift_down_from_root(const T& value) {
    const std::size_t n = heap_.size();
    T* h = heap_.data();
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
      if (!before_(value, h[parent])) break;
      h[hole] = h[parent];
      hole = parent;
    }
    h[hole] = value;
  }

  Before before_;
  std::vector<T> heap_;
};

}  // namespace collsim::pdes
