#pragma once
// Reading an HDF5 file with the C API: datasets as vectors, string and integer attributes,
// shapes and storage filters. What the report page reads a result file with (and the writer's
// tests read back with: it shares no code with the writer, so a mistake there cannot hide).

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace collsim::report {

class Hdf5File {
 public:
  // Throws collsim::InputError when `path` is not an HDF5 file.
  explicit Hdf5File(const std::string& path);
  ~Hdf5File();
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;

  const std::string& path() const { return path_; }
  // Whether "/a" or "/a/b" exists (each part is checked, as H5Lexists requires).
  bool exists(const std::string& path) const;
  std::vector<hsize_t> shape(const std::string& dataset) const;
  // The HDF5 filters (compression, shuffle) a dataset is stored with.
  std::vector<H5Z_filter_t> filters(const std::string& dataset) const;

  template <typename T>
  std::vector<T> read(const std::string& dataset) const {
    std::vector<T> values(element_count(dataset));
    read_into(dataset, memory_type<T>(), values.data());
    return values;
  }
  std::vector<std::string> read_strings(const std::string& dataset) const;

  // `object` is "/" for the root group.
  bool has_attribute(const std::string& object, const std::string& name) const;
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
  std::string path_;
  hid_t file_;
};

}  // namespace collsim::report
