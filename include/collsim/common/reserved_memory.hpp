#pragma once
// Address space reserved up front and made usable as it is needed: what grows in it never
// moves, so references into it stay valid, and an element is found by one multiplication
// instead of through a table of blocks. Reserving costs no memory (the pages are neither
// readable nor counted against the machine's commit limit until they are made usable).

#include <cstddef>
#include <utility>

namespace collsim {

class ReservedMemory {
 public:
  ReservedMemory() = default;
  // Throws std::bad_alloc when the address space cannot be had.
  explicit ReservedMemory(std::size_t bytes);
  ~ReservedMemory();
  ReservedMemory(ReservedMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        reserved_(std::exchange(other.reserved_, 0)),
        usable_(std::exchange(other.usable_, 0)) {}
  ReservedMemory& operator=(ReservedMemory&& other) noexcept;
  ReservedMemory(const ReservedMemory&) = delete;
  ReservedMemory& operator=(const ReservedMemory&) = delete;

  void* data() const { return data_; }
  std::size_t reserved() const { return reserved_; }
  // Bytes from data() that may be read and written (zero-filled at first).
  std::size_t usable() const { return usable_; }
  // Makes at least the first `bytes` usable; throws std::bad_alloc beyond the reservation or
  // when the memory cannot be had.
  void make_usable(std::size_t bytes);

 private:
  void* data_ = nullptr;
  std::size_t reserved_ = 0;
  std::size_t usable_ = 0;
};

}  // namespace collsim
