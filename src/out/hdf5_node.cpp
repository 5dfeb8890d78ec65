#include "hdf5_node.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::out::h5 {
namespace {

// Variable-length UTF-8 strings: h5py and pandas read them without knowing a width.
Handle string_type(const Node& at) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.valid() || H5Tset_size(type.get(), H5T_VARIABLE) < 0 || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0)
    at.fail("describe strings for");
  return type;
}

std::vector<const char*> c_strings(const std::vector<std::string>& values) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const std::string& v : values) pointers.push_back(v.c_str());
  return pointers;
}

Node create_dataset(const Node& group, std::string_view name, hid_t type, const Handle& space, hid_t properties) {
  const std::string path = group.child_path(name);
  Handle set(H5Dcreate2(group.id(), std::string(name).c_str(), type, space.get(), H5P_DEFAULT, properties, H5P_DEFAULT),
             H5Dclose);
  Node node(std::move(set), group.file(), path);
  if (node.id() < 0) node.fail("create");
  return node;
}

void write_attribute(const Node& node, std::string_view name, hid_t type, const Handle& space, const void* data) {
  Handle attribute(H5Acreate2(node.id(), std::string(name).c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                   H5Aclose);
  if (!attribute.valid() || H5Awrite(attribute.get(), type, data) < 0)
    node.fail("write attribute '" + std::string(name) + "' of");
}

}  // namespace

Handle::Handle(Handle&& other) noexcept
    : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, H5I_INVALID_HID);
    close_ = other.close_;
  }
  return *this;
}

void Handle::reset() {
  if (id_ >= 0 && close_ != nullptr) close_(id_);
  id_ = H5I_INVALID_HID;
}

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &saved_func_, &saved_data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, saved_func_, saved_data_); }

Node Node::create_file(const std::string& file) {
  Handle handle(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!handle.valid()) throw std::runtime_error(file + ": cannot create the HDF5 file (is the folder there and writable?)");
  return Node(std::move(handle), file, "/");
}

Node Node::create_group(std::string_view name) const {
  const std::string path = child_path(name);
  Handle handle(H5Gcreate2(id(), std::string(name).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  Node node(std::move(handle), file_, path);
  if (node.id() < 0) node.fail("create");
  return node;
}

std::string Node::child_path(std::string_view name) const {
  return (path_ == "/" ? path_ : path_ + "/") + std::string(name);
}

void Node::fail(std::string_view what) const {
  throw std::runtime_error(file_ + ": cannot " + std::string(what) + " " + path_);
}

Node write_column(const Node& group, std::string_view name, hid_t type, std::uint64_t n, const void* data) {
  const hsize_t dims = n;
  Handle space(H5Screate_simple(1, &dims, nullptr), H5Sclose);
  if (!space.valid()) group.fail("describe a column of");
  Node set = create_dataset(group, name, type, space, H5P_DEFAULT);
  if (n > 0 && H5Dwrite(set.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) set.fail("write");
  return set;
}

Node write_strings(const Node& group, std::string_view name, const std::vector<std::string>& values) {
  const Handle type = string_type(group);
  const std::vector<const char*> pointers = c_strings(values);
  return write_column(group, name, type.get(), pointers.size(), pointers.data());
}

Matrix::Matrix(const Node& group, std::string_view name, hid_t type, std::uint64_t rows, std::uint64_t cols)
    : node_(Handle(), group.file(), group.child_path(name)), type_(type), rows_(rows), cols_(cols) {
  const hsize_t dims[2] = {rows, cols};
  Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
  Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!space.valid() || !properties.valid()) group.fail("describe a matrix in");
  if (rows > 0 && cols > 0) {
    // Chunks of about 16 Ki values (128 KiB of 8-byte values), at most 256 columns wide, so
    // that reading one link over the whole run or every link over a short time stays cheap.
    const hsize_t chunk_cols = std::min<hsize_t>(cols, 256);
    const hsize_t chunk_rows = std::min<hsize_t>(rows, std::max<hsize_t>(1, 16384 / chunk_cols));
    const hsize_t chunk[2] = {chunk_rows, chunk_cols};
    if (H5Pset_chunk(properties.get(), 2, chunk) < 0 || H5Pset_shuffle(properties.get()) < 0 ||
        H5Pset_deflate(properties.get(), 4) < 0)
      group.fail("set chunking and compression in");
  }
  node_ = create_dataset(group, name, type, space, properties.get());
}

void Matrix::write_rows(std::uint64_t first, std::uint64_t count, const void* data) {
  if (count == 0 || cols_ == 0) return;
  if (first + count > rows_) throw std::logic_error(node_.path() + ": rows beyond the matrix");
  const hsize_t start[2] = {first, 0};
  const hsize_t size[2] = {count, cols_};
  Handle file_space(H5Dget_space(node_.id()), H5Sclose);
  Handle memory_space(H5Screate_simple(2, size, nullptr), H5Sclose);
  if (!file_space.valid() || !memory_space.valid() ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr) < 0 ||
      H5Dwrite(node_.id(), type_, memory_space.get(), file_space.get(), H5P_DEFAULT, data) < 0)
    node_.fail("write");
}

void set_attribute(const Node& node, std::string_view name, std::string_view value) {
  const Handle type = string_type(node);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const std::string text(value);
  const char* pointer = text.c_str();
  write_attribute(node, name, type.get(), space, &pointer);
}

void set_attribute(const Node& node, std::string_view name, std::int64_t value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  write_attribute(node, name, H5T_NATIVE_INT64, space, &value);
}

void set_attribute(const Node& node, std::string_view name, const std::vector<std::string>& values) {
  const Handle type = string_type(node);
  const hsize_t n = values.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  const std::vector<const char*> pointers = c_strings(values);
  write_attribute(node, name, type.get(), space, pointers.data());
}

}  // namespace collsim::out::h5
