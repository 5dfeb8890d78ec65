#pragma once
// Which GPUs (topology hosts) each job runs on: lists and node ranges as given, then the
// policies over the GPUs left, in job order.

#include <cstdint>
#include <vector>

#include "collsim/jobs/job_spec.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::jobs {

// `needed[j]`: the ranks job j runs (0: as many as its request gives). Returns, per job, the
// host of each of its ranks. Throws std::invalid_argument naming the job for GPUs two jobs
// share, a host or node the topology lacks, more GPUs than are left, or a request whose size
// is not what the job runs.
std::vector<std::vector<std::uint32_t>> assign_gpus(const std::vector<JobSpec>& jobs,
                                                    const std::vector<std::uint32_t>& needed,
                                                    const topo::Topology& topology);

}  // namespace collsim::jobs
