#pragma once
// A job's own schedule, as it would run alone: a workload step lowered whole, a GOAL file, or
// a collective generated and repeated.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/goal/schedule.hpp"
#include "collsim/jobs/job_spec.hpp"
#include "collsim/topo/topology.hpp"
#include "collsim/workload/workload_spec.hpp"

namespace collsim::jobs {

struct LoadedJob {
  goal::Schedule schedule;
  std::string description;  // "gpt3_1.3b: GPT-3 XL 1.3B, TP2 PP2 DP4 ...", "allreduce 64MiB x10 (ring)"
};

// The ranks a job runs, before it has GPUs (0: as many as its GPU request gives).
// `workload_dir`: where workload presets live. Throws InputError or std::invalid_argument.
std::uint32_t ranks_needed(const JobSpec& job, const std::string& workload_dir);

// The job's schedule on `hosts` (rank i on hosts[i]). Throws std::invalid_argument naming the
// job when it does not fit them (a workload's TP group across servers).
LoadedJob load_job(const JobSpec& job, const std::string& workload_dir, const topo::Topology& topology,
                   const std::vector<std::uint32_t>& hosts);

}  // namespace collsim::jobs
