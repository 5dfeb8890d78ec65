#pragma once
// Little-endian field access for the binary readers and writers. Every read is bounds
// checked against the input and fails with the file name and byte offset.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <span>
#include <string>

#include "collsim/common/input_error.hpp"

namespace collsim::goal::detail {

static_assert(std::endian::native == std::endian::little,
              "the binary schedule formats are little-endian; add byte swapping for this host");

class ByteReader {
 public:
  ByteReader(std::span<const std::byte> bytes, const std::string& file) : bytes_(bytes), file_(file) {}

  std::uint64_t size() const { return bytes_.size(); }
  std::span<const std::byte> bytes() const { return bytes_; }

  // Throws unless [offset, offset + length) lies inside the input.
  void require(std::uint64_t offset, std::uint64_t length, const std::string& what) const {
    if (offset > bytes_.size() || length > bytes_.size() - offset)
      fail(std::min<std::uint64_t>(offset, bytes_.size()),
           "file is truncated: " + what + " needs " + std::to_string(length) + " bytes here, the file has " +
               std::to_string(offset > bytes_.size() ? 0 : bytes_.size() - offset));
  }
  template <typename T>
  T read(std::uint64_t offset, const char* what) const {
    require(offset, sizeof(T), what);
    return load<T>(offset);
  }
  // Unchecked; the caller checked the whole range with require().
  template <typename T>
  T load(std::uint64_t offset) const {
    T v;
    std::memcpy(&v, bytes_.data() + offset, sizeof(T));
    return v;
  }
  [[noreturn]] void fail(std::uint64_t offset, const std::string& detail) const {
    throw InputError::at_byte(file_, offset, detail);
  }

 private:
  std::span<const std::byte> bytes_;
  const std::string& file_;
};

// Buffers output in large pieces.
class ByteWriter {
 public:
  explicit ByteWriter(std::ostream& out) : out_(out) { buf_.reserve(kFlushAt + 64); }
  ~ByteWriter() { flush(); }
  ByteWriter(const ByteWriter&) = delete;
  ByteWriter& operator=(const ByteWriter&) = delete;

  template <typename T>
  void put(T v) {
    char tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof(T));
    buf_.append(tmp, sizeof(T));
    if (buf_.size() >= kFlushAt) flush();
  }
  void put_bytes(const void* data, std::size_t n) {
    if (n >= kFlushAt) {
      flush();
      out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
      written_ += n;
      return;
    }
    buf_.append(static_cast<const char*>(data), n);
    if (buf_.size() >= kFlushAt) flush();
  }
  void pad_to(std::uint64_t offset) {
    while (position() < offset) put<std::uint8_t>(0);
  }
  std::uint64_t position() const { return written_ + buf_.size(); }
  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    written_ += buf_.size();
    buf_.clear();
  }

 private:
  static constexpr std::size_t kFlushAt = 1 << 20;
  std::ostream& out_;
  std::string buf_;
  std::uint64_t written_ = 0;
};

}  // namespace collsim::goal::detail
