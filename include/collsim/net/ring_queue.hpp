#pragma once
// A FIFO of plain values in a power-of-two ring that grows when full and never shrinks:
// after warm-up, pushing and popping allocate nothing (std::deque frees and reallocates
// blocks as it drains and refills).

#include <cstddef>
#include <vector>

namespace collsim::net {

template <typename T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  const T& operator[](std::size_t i) const { return items_[(head_ + i) & (items_.size() - 1)]; }

  void push_back(const T& v) {
    if (size_ == items_.size()) grow();
    items_[(head_ + size_) & (items_.size() - 1)] = v;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (items_.size() - 1);
    // Emptied: start again at the front, which is still in cache.
    if (--size_ == 0) head_ = 0;
  }

 private:
  void grow() {
    std::vector<T> bigger(items_.empty() ? 8 : items_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    items_.swap(bigger);
    head_ = 0;
  }
  std::vector<T> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace collsim::net
