#pragma once
// A FIFO of plain values in a power-of-two ring that grows when full and never shrinks:
// after warm-up, pushing and popping allocate nothing (std::deque frees and reallocates
// blocks as it drains and refills). 24 bytes, so that a port's queue of a class and its
// byte count share a cache line with the next class's (see OutputPort).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace collsim::net {

template <typename T>
class RingQueue {
  static_assert(std::is_trivially_copyable_v<T>, "a ring of plain values");

 public:
  RingQueue() = default;
  RingQueue(const RingQueue& other) { *this = other; }
  RingQueue& operator=(const RingQueue& other) {
    if (this == &other) return *this;
    items_.reset(other.capacity_ == 0 ? nullptr : new T[other.capacity_]);
    capacity_ = other.capacity_;
    size_ = other.size_;
    head_ = 0;
    for (std::uint32_t i = 0; i < size_; ++i) items_[i] = other[i];
    return *this;
  }
  RingQueue(RingQueue&& other) noexcept { swap(other); }
  RingQueue& operator=(RingQueue&& other) noexcept {
    RingQueue gone;
    gone.swap(other);
    swap(gone);
    return *this;
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  const T& operator[](std::size_t i) const { return items_[(head_ + i) & (capacity_ - 1)]; }

  void push_back(const T& v) {
    if (size_ == capacity_) grow();
    items_[(head_ + size_) & (capacity_ - 1)] = v;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (capacity_ - 1);
    // Emptied: start again at the front, which is still in cache.
    if (--size_ == 0) head_ = 0;
  }

 private:
  void swap(RingQueue& other) noexcept {
    std::swap(items_, other.items_);
    std::swap(capacity_, other.capacity_);
    std::swap(head_, other.head_);
    std::swap(size_, other.size_);
  }
  void grow() {
    const std::uint32_t capacity = capacity_ == 0 ? 8 : capacity_ * 2;
    std::unique_ptr<T[]> bigger(new T[capacity]);
    for (std::uint32_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    items_ = std::move(bigger);
    capacity_ = capacity;
    head_ = 0;
  }
  std::unique_ptr<T[]> items_;
  std::uint32_t capacity_ = 0;
  std::uint32_t head_ = 0;
  std::uint32_t size_ = 0;
};

}  // namespace collsim::net
