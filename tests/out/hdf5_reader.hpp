#pragma once
// Reads back what the writers wrote, with the HDF5 C API directly (not through the writer's
// own helpers, so that a mistake there cannot hide itself). Throws on any HDF5 failure.

#include <hdf5.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace collsim::out::test {

class H5Reader {
 public:
  explicit H5Reader(const std::string& path) : file_(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {
    if (file_ < 0) throw std::runtime_error("cannot open " + path);
  }
  ~H5Reader() { H5Fclose(file_); }
  H5Reader(const H5Reader&) = delete;
  H5Reader& operator=(const H5Reader&) = delete;

  // Whether "/a" or "/a/b" exists (each part is checked, as H5Lexists requires).
  bool exists(const std::string& path) const;
  std::vector<hsize_t> shape(const std::string& dataset) const;
  // Number of HDF5 filters (compression, shuffle) the dataset is stored with.
  std::vector<H5Z_filter_t> filters(const std::string& dataset) const;

  template <typename T>
  std::vector<T> read(const std::string& dataset) const {
    std::vector<T> values(element_count(dataset));
    read_into(dataset, memory_type<T>(), values.data());
    return values;
  }
  std::vector<std::string> read_strings(const std::string& dataset) const;

  // `object` is "/" for the root group.
  std::string string_attribute(const std::string& object, const std::string& name) const;
  std::vector<std::string> strings_attribute(const std::string& object, const std::string& name) const;
  std::int64_t int_attribute(const std::string& object, const std::string& name) const;

 private:
  template <typename T>
  static hid_t memory_type() {
    if constexpr (std::is_same_v<T, std::uint8_t>) return H5T_NATIVE_UINT8;
    else if constexpr (std::is_same_v<T, std::int32_t>) return H5T_NATIVE_INT32;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return H5T_NATIVE_UINT32;
    else if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
    else if constexpr (std::is_same_v<T, std::uint64_t>) return H5T_NATIVE_UINT64;
    else return H5T_NATIVE_DOUBLE;
  }
  std::size_t element_count(const std::string& dataset) const;
  void read_into(const std::string& dataset, hid_t type, void* out) const;
  hid_t file_;
};

}  // namespace collsim::out::test
