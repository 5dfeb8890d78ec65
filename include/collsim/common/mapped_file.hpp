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
    WholeFile,   // all of it, soon and repeatedly: map every page up front
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

 private:
  void release() noexcept;
  std::string path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace collsim
