#pragma once
// Per-op start and end times of a run, as HDF5: one row per op, columns as datasets
// /ops/rank, /ops/op, /ops/kind (1 send, 2 recv, 3 calc), /ops/peer, /ops/bytes, /ops/cpu,
// /ops/start_ps, /ops/end_ps (-1 for an op that never started or ended): the /ops group of
// the `--hdf5` layout (README, "HDF5 results"). h5py reads them as NumPy arrays.

#include <string>
#include <vector>

#include "collsim/exec/execution.hpp"
#include "collsim/goal/schedule.hpp"

namespace collsim::out {

// Throws std::runtime_error naming the file when HDF5 cannot write it.
void write_op_times_hdf5(const std::string& path, const goal::Schedule& schedule, const std::vector<exec::OpTime>& times);

}  // namespace collsim::out
