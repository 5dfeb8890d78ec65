#pragma once
// What nccl-tests' clock sees besides the collective itself. It times a loop of iterations
// from the CPU: each iteration, one thread enqueues the collective on every GPU it drives
// (`-g G`, one grouped NCCL call per GPU), and the GPUs run the queued iterations back to
// back. In steady state an iteration therefore costs the longer of the collective on the GPUs
// and the CPU's enqueueing for its G GPUs. With one GPU per process (MPI, -g 1) enqueueing
// hides behind the collective; one thread driving 4 or 8 GPUs makes a flat floor of ~17 or
// ~35 us below which no small size goes (logs 22-24 and 28), far above NCCL's own latencies.

#include <cstdint>
#include <optional>

#include "collsim/common/sim_time.hpp"

namespace collsim::validation {

// CPU time to enqueue one collective on one GPU (NCCL's group launch: plan, kernel launch).
// Fitted by hand on the flat small-size floor of training log 22 (one thread, -g 4, 17.0 us
// from 4 B to 32 KiB, where NCCL's ring LL takes ~10 us): 17.0 / 4 = 4.25 us. `collsim
// calibrate` fits it on such logs (host_issue_us); this is the value where none did.
constexpr Duration kHostIssuePerGpu = Duration::us(4.25);
// A calibration's host_issue_us, or the fitted default where it has none.
constexpr Duration host_issue_per_gpu(const std::optional<Duration>& configured) {
  return configured.value_or(kHostIssuePerGpu);
}

// The time nccl-tests reports for one iteration whose collective takes `collective` on the
// GPUs, when one thread drives `gpus_per_thread` GPUs (0 or 1: enqueueing is hidden).
Duration nccl_tests_iteration(Duration collective, std::uint32_t gpus_per_thread, Duration issue_per_gpu);

}  // namespace collsim::validation
