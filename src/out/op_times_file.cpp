#include "collsim/out/op_times_file.hpp"

#include "hdf5_node.hpp"
#include "ops_group.hpp"
#include "result_format.hpp"

namespace collsim::out {

void write_op_times_hdf5(const std::string& path, const goal::Schedule& schedule, const std::vector<exec::OpTime>& times) {
  const h5::QuietErrors quiet;
  const h5::Node file = h5::Node::create_file(path);
  write_format_marker(file);
  write_ops_group(file, schedule, times, {}, {});
}

}  // namespace collsim::out
