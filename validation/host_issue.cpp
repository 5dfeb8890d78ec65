#include "collsim/validation/host_issue.hpp"

#include <algorithm>

namespace collsim::validation {

Duration nccl_tests_iteration(Duration collective, std::uint32_t gpus_per_thread, Duration issue_per_gpu) {
  // One GPU per thread: the CPU enqueues the next iteration while the GPU runs this one.
  if (gpus_per_thread <= 1) return collective;
  return std::max(collective, gpus_per_thread * std::max(Duration::zero(), issue_per_gpu));
}

}  // namespace collsim::validation
