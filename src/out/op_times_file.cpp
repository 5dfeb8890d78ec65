#include "collsim/out/op_times_file.hpp"

#include <hdf5.h>

#include <stdexcept>

namespace collsim::out {
namespace {

// Closes an HDF5 handle when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id_ < 0) throw std::runtime_error(what);
  }
  ~Handle() { close_(id_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

template <typename T>
void write_column(hid_t group, const char* name, hid_t type, const std::vector<T>& values, const std::string& path) {
  const hsize_t n = values.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, path + ": cannot describe /ops/" + name);
  Handle set(H5Dcreate2(group, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
             path + ": cannot create /ops/" + name);
  if (n > 0 && H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw std::runtime_error(path + ": cannot write /ops/" + name);
}

}  // namespace

void write_op_times_hdf5(const std::string& path, const goal::Schedule& schedule, const std::vector<exec::OpTime>& times) {
  std::vector<std::uint32_t> rank, op;
  std::vector<std::uint8_t> kind;
  std::vector<std::int64_t> start, end;
  for (const exec::OpTime& t : times) {
    rank.push_back(t.rank);
    op.push_back(t.op);
    kind.push_back(static_cast<std::uint8_t>(schedule.rank(t.rank).kind(t.op)));
    start.push_back(t.start_ps);
    end.push_back(t.end_ps);
  }
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, path + ": cannot create the HDF5 file");
  Handle group(H5Gcreate2(file.get(), "ops", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, path + ": cannot create /ops");
  write_column(group.get(), "rank", H5T_NATIVE_UINT32, rank, path);
  write_column(group.get(), "op", H5T_NATIVE_UINT32, op, path);
  write_column(group.get(), "kind", H5T_NATIVE_UINT8, kind, path);
  write_column(group.get(), "start_ps", H5T_NATIVE_INT64, start, path);
  write_column(group.get(), "end_ps", H5T_NATIVE_INT64, end, path);
}

}  // namespace collsim::out
