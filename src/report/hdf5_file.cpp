#include "collsim/report/hdf5_file.hpp"

#include <stdexcept>

#include "collsim/common/input_error.hpp"

namespace collsim::report {
namespace {

hid_t vlen_string_type() {
  const hid_t type = H5Tcopy(H5T_C_S1);
  if (type < 0) throw std::runtime_error("HDF5 failed: copy a string type");
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  return type;
}

std::vector<std::string> take_strings(std::vector<char*>& raw) {
  std::vector<std::string> out;
  for (char* s : raw) {
    out.emplace_back(s == nullptr ? "" : s);
    H5free_memory(s);  // HDF5 allocated the variable-length strings
  }
  return out;
}

hid_t open_file(const std::string& path) {
  // HDF5 prints its own error stack on failure; the InputError says it better.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw InputError::in_file(path, "not an HDF5 file (or it cannot be read)");
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw InputError::in_file(path, "cannot open it as HDF5");
  return f;
}

}  // namespace

Hdf5File::Hdf5File(const std::string& path) : path_(path), file_(open_file(path)) {}

Hdf5File::~Hdf5File() { H5Fclose(file_); }

bool Hdf5File::exists(const std::string& path) const {
  for (std::size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
  }
}

std::vector<hsize_t> Hdf5File::shape(const std::string& dataset) const {
  const hid_t set = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
  if (set < 0) throw InputError::in_file(path_, "no dataset " + dataset);
  const hid_t space = H5Dget_space(set);
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(0, H5Sget_simple_extent_ndims(space))));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  H5Sclose(space);
  H5Dclose(set);
  return dims;
}

std::vector<H5Z_filter_t> Hdf5File::filters(const std::string& dataset) const {
  const hid_t set = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
  if (set < 0) throw InputError::in_file(path_, "no dataset " + dataset);
  const hid_t properties = H5Dget_create_plist(set);
  std::vector<H5Z_filter_t> out;
  for (int i = 0; i < H5Pget_nfilters(properties); ++i) {
    unsigned flags = 0;
    std::size_t n = 0;
    out.push_back(H5Pget_filter2(properties, static_cast<unsigned>(i), &flags, &n, nullptr, 0, nullptr, nullptr));
  }
  H5Pclose(properties);
  H5Dclose(set);
  return out;
}

std::size_t Hdf5File::element_count(const std::string& dataset) const {
  std::size_t n = 1;
  for (hsize_t d : shape(dataset)) n *= d;
  return n;
}

void Hdf5File::read_into(const std::string& dataset, hid_t type, void* out) const {
  const hid_t set = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
  if (set < 0) throw InputError::in_file(path_, "no dataset " + dataset);
  const herr_t status = H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
  H5Dclose(set);
  if (status < 0) throw InputError::in_file(path_, "cannot read " + dataset + " as the type collsim writes it");
}

std::vector<std::string> Hdf5File::read_strings(const std::string& dataset) const {
  std::vector<char*> raw(element_count(dataset));
  const hid_t type = vlen_string_type();
  read_into(dataset, type, raw.data());
  H5Tclose(type);
  return take_strings(raw);
}

bool Hdf5File::has_attribute(const std::string& object, const std::string& name) const {
  return H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

std::string Hdf5File::string_attribute(const std::string& object, const std::string& name) const {
  const std::vector<std::string> values = strings_attribute(object, name);
  if (values.size() != 1) throw InputError::in_file(path_, object + " " + name + " is not one string");
  return values[0];
}

std::vector<std::string> Hdf5File::strings_attribute(const std::string& object, const std::string& name) const {
  const hid_t attribute = H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  if (attribute < 0) throw InputError::in_file(path_, "no attribute " + name + " on " + object);
  const hid_t space = H5Aget_space(attribute);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  std::vector<char*> raw(static_cast<std::size_t>(std::max<hssize_t>(0, n)));
  const hid_t type = vlen_string_type();
  const herr_t status = H5Aread(attribute, type, raw.data());
  H5Tclose(type);
  H5Aclose(attribute);
  if (status < 0) throw InputError::in_file(path_, "cannot read attribute " + name + " of " + object + " as strings");
  return take_strings(raw);
}

std::int64_t Hdf5File::int_attribute(const std::string& object, const std::string& name) const {
  const hid_t attribute = H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  if (attribute < 0) throw InputError::in_file(path_, "no attribute " + name + " on " + object);
  std::int64_t value = 0;
  const herr_t status = H5Aread(attribute, H5T_NATIVE_INT64, &value);
  H5Aclose(attribute);
  if (status < 0) throw InputError::in_file(path_, "cannot read attribute " + name + " of " + object + " as an integer");
  return value;
}

}  // namespace collsim::report
