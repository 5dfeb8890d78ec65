#include "collsim/common/reserved_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace collsim {

namespace {
std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}
std::size_t whole_pages(std::size_t bytes) { return (bytes + page_size() - 1) / page_size() * page_size(); }
}  // namespace

ReservedMemory::ReservedMemory(std::size_t bytes) {
  if (bytes == 0) return;
  const std::size_t length = whole_pages(bytes);
  // Inaccessible pages are not counted against the commit limit; make_usable() counts them.
  void* p = ::mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = p;
  reserved_ = length;
}

ReservedMemory::~ReservedMemory() {
  if (data_ != nullptr) ::munmap(data_, reserved_);
}

ReservedMemory& ReservedMemory::operator=(ReservedMemory&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, reserved_);
    data_ = std::exchange(other.data_, nullptr);
    reserved_ = std::exchange(other.reserved_, 0);
    usable_ = std::exchange(other.usable_, 0);
  }
  return *this;
}

void ReservedMemory::make_usable(std::size_t bytes) {
  if (bytes <= usable_) return;
  const std::size_t length = whole_pages(bytes);
  if (length > reserved_) throw std::bad_alloc();
  auto* from = static_cast<char*>(data_) + usable_;
  if (::mprotect(from, length - usable_, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
  usable_ = length;
}

}  // namespace collsim
