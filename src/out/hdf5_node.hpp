#pragma once
// A thin layer over the HDF5 C API for the result writers (internal to src/out). Every open
// object knows its file and its path, so that an error says "out.h5: cannot create /ops/rank"
// rather than leaving the reader with HDF5's error stack.

#include <hdf5.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace collsim::out::h5 {

// Closes an HDF5 identifier when it goes out of scope.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// Silences HDF5's automatic printing of its error stack while alive: our exceptions say what
// failed, and the stack on stderr would only bury that message.
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t saved_func_ = nullptr;
  void* saved_data_ = nullptr;
};

// An open file, group or dataset.
class Node {
 public:
  // Creates (or truncates) the file; throws std::runtime_error naming it when HDF5 cannot.
  static Node create_file(const std::string& file);
  Node create_group(std::string_view name) const;

  hid_t id() const { return handle_.get(); }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  std::string child_path(std::string_view name) const;
  // Throws std::runtime_error: "<file>: cannot <what> <path>".
  [[noreturn]] void fail(std::string_view what) const;

  Node(Handle handle, std::string file, std::string path)
      : handle_(std::move(handle)), file_(std::move(file)), path_(std::move(path)) {}

 private:
  Handle handle_;
  std::string file_;
  std::string path_;
};

// The HDF5 memory type of a C++ number type.
template <typename T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return H5T_NATIVE_UINT8;
  else if constexpr (std::is_same_v<T, std::int32_t>) return H5T_NATIVE_INT32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return H5T_NATIVE_UINT32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return H5T_NATIVE_UINT64;
  else {
    static_assert(std::is_same_v<T, double>, "no HDF5 type mapped for this C++ type");
    return H5T_NATIVE_DOUBLE;
  }
}

// A 1-D dataset of n values of `type`, stored contiguously (columns are read whole).
Node write_column(const Node& group, std::string_view name, hid_t type, std::uint64_t n, const void* data);

template <typename T>
Node write_column(const Node& group, std::string_view name, std::span<const T> values) {
  return write_column(group, name, native_type<T>(), values.size(), values.data());
}
template <typename T>
Node write_column(const Node& group, std::string_view name, const std::vector<T>& values) {
  return write_column(group, name, std::span<const T>(values));
}

// A 1-D dataset of variable-length UTF-8 strings (h5py reads them as bytes objects).
Node write_strings(const Node& group, std::string_view name, const std::vector<std::string>& values);

// A rows × cols dataset written in blocks of whole rows, chunked and deflate-compressed:
// link samples are large and mostly zeros, which compress well.
class Matrix {
 public:
  Matrix(const Node& group, std::string_view name, hid_t type, std::uint64_t rows, std::uint64_t cols);
  // Writes rows [first, first + count) from count × cols values, row-major.
  void write_rows(std::uint64_t first, std::uint64_t count, const void* data);
  const Node& node() const { return node_; }

 private:
  Node node_;
  hid_t type_;
  std::uint64_t rows_;
  std::uint64_t cols_;
};

// Attributes on a file (its root group), group or dataset.
void set_attribute(const Node& node, std::string_view name, std::string_view value);
void set_attribute(const Node& node, std::string_view name, std::int64_t value);
void set_attribute(const Node& node, std::string_view name, const std::vector<std::string>& values);

}  // namespace collsim::out::h5
