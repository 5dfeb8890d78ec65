#pragma once
// The /ops group shared by `--ops` and `--hdf5` (internal to src/out): one row per op time.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collsim/exec/execution.hpp"
#include "collsim/goal/schedule.hpp"
#include "hdf5_node.hpp"

namespace collsim::out {

// op_role, when not empty, has one entry per op of the schedule (global index), each an index
// into role_names. Throws std::invalid_argument when times or roles do not fit the schedule.
void write_ops_group(const h5::Node& root, const goal::Schedule& schedule, std::span<const exec::OpTime> times,
                     std::span<const std::uint8_t> op_role, const std::vector<std::string>& role_names);

}  // namespace collsim::out
