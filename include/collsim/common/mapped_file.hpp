#pragma once
// A whole file mapped read-only into memory; parsers scan it without copying.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace collsim {

class MappedFile {
 public:
  enum class Access {
    Sequential,  // read front to back once (parsers)
    InParts,     // a part at a time, maybe more than once (see drop_resident)
  };
  // Throws InputError naming the path when the file cannot be opened or mapped.
  explicit MappedFile(const std::string& path, Access access = Access::Sequential);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  std::string_view text() const { return {reinterpret_cast<const char*>(data_), size_}; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Gives back the memory of the whole pages inside `range` (a part of bytes()): they are
  // read from the file again if touched later. For a reader done with part of a large file.
  void drop_resident(std::span<const std::byte> range) const;

 private:
  void release() noexcept;
  std::string path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace collsim
