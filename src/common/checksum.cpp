#include "collsim/common/checksum.hpp"

#include <xxhash.h>
#if defined(__x86_64__)
// The same hashes with the widest vectors the CPU has (AVX2, AVX-512), chosen at run time:
// libxxhash's plain entry points are built for SSE2, and a .goalb's sections are checked in
// full whenever one is read.
#include <xxh_x86dispatch.h>
#endif

#include <new>

namespace collsim {

std::uint64_t checksum64(std::span<const std::byte> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

Checksum64::Checksum64() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}

Checksum64::~Checksum64() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void Checksum64::update(std::span<const std::byte> bytes) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), bytes.data(), bytes.size());
}

std::uint64_t Checksum64::digest() const {
  return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_));
}

}  // namespace collsim
