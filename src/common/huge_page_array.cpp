#include "collsim/common/huge_page_array.hpp"

#include <sys/mman.h>

namespace collsim {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

HugePageMemory::HugePageMemory(std::size_t bytes) {
  if (bytes == 0) return;
  // Whole huge pages, so that the last one can be huge too.
  const std::size_t length = bytes >= kHugePage ? (bytes + kHugePage - 1) / kHugePage * kHugePage : bytes;
  memory_ = ReservedMemory(length);
  memory_.make_usable(length);
  // Advice only: without transparent huge pages the memory works the same.
  if (length >= kHugePage) ::madvise(memory_.data(), length, MADV_HUGEPAGE);
}

}  // namespace collsim
