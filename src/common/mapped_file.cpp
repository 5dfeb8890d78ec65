#include "collsim/common/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "collsim/common/input_error.hpp"

namespace collsim {

MappedFile::MappedFile(const std::string& path, Access access) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError::in_file(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw InputError::in_file(path, std::string("cannot stat: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw InputError::in_file(path, "is a directory, expected a file");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw InputError::in_file(path, std::string("cannot map into memory: ") + std::strerror(err));
    }
    if (access == Access::Sequential) ::madvise(p, size_, MADV_SEQUENTIAL);
    // A file just written sits in the page cache in folios of up to 2 MiB, which a fault
    // would map whole: parts given back would stay mapped around the part being read.
    if (access == Access::InParts) ::madvise(p, size_, MADV_NOHUGEPAGE);
    data_ = static_cast<const std::byte*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::drop_resident(std::span<const std::byte> range) const {
  if (range.empty() || range.data() < data_ || range.data() + range.size() > data_ + size_) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto from = (reinterpret_cast<std::uintptr_t>(range.data()) + page - 1) / page * page;
  const auto to = (reinterpret_cast<std::uintptr_t>(range.data()) + range.size()) / page * page;
  // A private read-only mapping of a file: its pages are the page cache's, never modified.
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

void MappedFile::release() noexcept {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace collsim
