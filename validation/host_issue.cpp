#include "collsim/validation/host_issue.hpp"

#include <algorithm>

namespace collsim::validation {

double nccl_tests_iteration_us(double collective_us, std::uint32_t gpus_per_thread, double issue_us_per_gpu) {
  // One GPU per thread: the CPU enqueues the next iteration while the GPU runs this one.
  if (gpus_per_thread <= 1) return collective_us;
  return std::max(collective_us, gpus_per_thread * std::max(0.0, issue_us_per_gpu));
}

}  // namespace collsim::validation
