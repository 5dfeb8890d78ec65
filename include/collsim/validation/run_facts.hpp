#pragma once
// What a test run was, derived from what it printed: the collective, the rank count, the
// nodes and GPUs per node, the GPU model; and whether its numbers agree with nccl-tests'
// formulas. Every derived fact says where it came from, so that the user can judge it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collsim/collectives/collective.hpp"
#include "collsim/validation/nccl_tests_log.hpp"

namespace collsim::validation {

struct RunFacts {
  std::optional<collectives::Collective> collective;
  std::string collective_source;     // "program all_reduce_perf", "busbw/algbw and redop", ...
  // An nccl-tests program whose collective collsim does not simulate (gather_perf,
  // scatter_perf, hypercube_perf): the columns would pass for another collective's.
  std::string unsupported_program;
  std::uint32_t ranks = 0;           // 0: unknown
  std::string ranks_source;
  std::uint32_t nodes = 0;           // 0: unknown (no complete device list)
  std::uint32_t gpus_per_node = 0;   // 0: unknown
  std::string gpu;                   // as printed by the device lines; empty: unknown
  // GPUs one thread of nccl-tests drives (-g, the header's nGpus); 0: not printed.
  std::uint32_t gpus_per_thread = 0;
  std::string gpus_per_thread_source;
};

// Never throws: what cannot be derived stays unknown (0 / empty / nullopt).
RunFacts infer_run_facts(const TestRun& run);

struct Finding {
  std::size_t line = 0;
  std::string message;
};

// Recomputes algbw and busbw of every printed value with nccl-tests' formulas (within the
// printed precision), the count from the size, and the Avg bus bandwidth from the rows; each
// disagreement is a finding. Rows with #wrong > 0 and a FAILED footer are findings too.
std::vector<Finding> check_consistency(const TestRun& run, collectives::Collective c, std::uint32_t n);

// Summary tables print only busbw: fills time and algbw from it (marked derived).
void derive_summary_times(TestRun& run, collectives::Collective c, std::uint32_t n);

}  // namespace collsim::validation
