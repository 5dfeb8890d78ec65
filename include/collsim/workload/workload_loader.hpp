#pragma once
// The workload YAML: model, training, parallelism, comm, device, cluster. Errors name the
// file, line and column, and what was expected there.

#include <string>
#include <vector>

#include "collsim/workload/workload_spec.hpp"

namespace collsim::workload {

// Reads and validates a workload file; throws collsim::InputError.
WorkloadSpec load_workload(const std::string& path);

}  // namespace collsim::workload
