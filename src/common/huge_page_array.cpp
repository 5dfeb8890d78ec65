#include "collsim/common/huge_page_array.hpp"

#include <sys/mman.h>

#include <new>

namespace collsim {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

HugePageMemory::HugePageMemory(std::size_t bytes) {
  if (bytes == 0) return;
  // Whole huge pages, so that the last one can be huge too.
  const std::size_t length = bytes >= kHugePage ? (bytes + kHugePage - 1) / kHugePage * kHugePage : bytes;
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Advice only: without transparent huge pages the memory works the same.
  if (length >= kHugePage) ::madvise(p, length, MADV_HUGEPAGE);
  data_ = p;
  bytes_ = length;
}

HugePageMemory::~HugePageMemory() {
  if (data_ != nullptr) ::munmap(data_, bytes_);
}

HugePageMemory& HugePageMemory::operator=(HugePageMemory&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

}  // namespace collsim
