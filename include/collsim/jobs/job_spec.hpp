#pragma once
// Several jobs on one cluster: what a jobs file asks for. Each job is a workload step, a GOAL
// schedule or a collective repeated; it gets GPUs (a list, a range of nodes, or a policy) and
// starts at a given time.
//
//   topology: dgx_a100_pod          # optional; --topology wins
//   jobs:
//     - name: train                 # default job0, job1, ...
//       workload: gpt3_1.3b         # or schedule: FILE.goal, trace: [FILES], or collective: {...}
//       gpus: {nodes: 0-1}          # or [0, 1, 2, 3], or {policy: packed|spread|random, count: 16, seed: 1}
//       start: 0ms
//     - collective: {coll: allreduce, bytes: 64MiB, algo: ring, channels: 2, repeat: 10}
//       gpus: {policy: spread, count: 16}

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/collectives/collective.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::jobs {

enum class JobKind : std::uint8_t { Workload, Schedule, Collective, Trace };
enum class GpuPolicy : std::uint8_t { List, Nodes, Packed, Spread, Random };

struct GpuRequest {
  GpuPolicy policy = GpuPolicy::Packed;
  std::vector<std::uint32_t> hosts;  // List: these hosts, rank i on hosts[i]
  std::uint32_t first_node = 0;      // Nodes: every host of servers first..last
  std::uint32_t last_node = 0;
  std::uint32_t count = 0;           // Packed, Spread, Random: this many (0: what the job needs)
  std::uint64_t seed = 1;            // Random
};

struct CollectiveJob {
  collectives::Collective collective = collectives::Collective::Allreduce;
  std::string algorithm = "auto";
  std::uint64_t bytes = 0;
  std::uint32_t channels = 1;
  std::uint32_t repeat = 1;  // one after the other
};

struct JobSpec {
  std::string name;
  JobKind kind = JobKind::Schedule;
  std::string file;  // Workload: file or preset name; Schedule: the GOAL file
  std::vector<std::string> traces;  // Trace: Chakra traces or NCCL logs, as `collsim replay` takes them
  CollectiveJob collective;
  GpuRequest gpus;
  SimTime start = SimTime::zero();
  std::uint64_t line = 0;  // where the job is in its file, for messages
};

struct JobsFile {
  std::string path;
  std::string topology;  // empty: not given
  std::vector<JobSpec> jobs;
};

// Throws InputError naming the file, line and what was expected.
JobsFile load_jobs_file(const std::string& path);

}  // namespace collsim::jobs
