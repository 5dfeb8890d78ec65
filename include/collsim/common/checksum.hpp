#pragma once
// 64-bit content checksum (XXH3): fast enough to verify files at memory bandwidth,
// so that binary inputs are always checked before use.

#include <cstddef>
#include <cstdint>
#include <span>

namespace collsim {

std::uint64_t checksum64(std::span<const std::byte> bytes);

// Incremental form for data written in pieces.
class Checksum64 {
 public:
  Checksum64();
  ~Checksum64();
  Checksum64(const Checksum64&) = delete;
  Checksum64& operator=(const Checksum64&) = delete;
  void update(std::span<const std::byte> bytes);
  std::uint64_t digest() const;

 private:
  void* state_;
};

}  // namespace collsim
