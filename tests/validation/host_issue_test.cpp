// nccl-tests' clock: one thread enqueues every iteration on each GPU it drives.

#include <gtest/gtest.h>

#include "collsim/validation/host_issue.hpp"

namespace collsim::validation {
namespace {

TEST(HostIssue, OneThreadDrivingFourGpusSetsAFloor) {
  // -g 4 at 4.25 us per GPU: 4 * 4.25 = 17 us per iteration, whatever the GPUs need below that.
  EXPECT_DOUBLE_EQ(nccl_tests_iteration(Duration::us(10.2), 4, Duration::us(4.25)).microseconds(), 17.0);
  // Above the floor the GPUs set the pace: the CPU enqueues ahead while they run.
  EXPECT_DOUBLE_EQ(nccl_tests_iteration(Duration::us(44.0), 4, Duration::us(4.25)).microseconds(), 44.0);
  // -g 8: 8 * 4.25 = 34 us (log 28 measures ~35 us from 8 B to 256 KiB).
  EXPECT_DOUBLE_EQ(nccl_tests_iteration(Duration::us(15.0), 8, Duration::us(4.25)).microseconds(), 34.0);
}

TEST(HostIssue, OneGpuPerThreadHidesTheEnqueueing) {
  // MPI with -g 1, and logs that do not say (0): the collective's own time.
  EXPECT_DOUBLE_EQ(nccl_tests_iteration(Duration::us(3.0), 1, Duration::us(4.25)).microseconds(), 3.0);
  EXPECT_DOUBLE_EQ(nccl_tests_iteration(Duration::us(3.0), 0, Duration::us(4.25)).microseconds(), 3.0);
}

TEST(HostIssue, ConstantIsTrainingLog22sFloorPerGpu) {
  // Log 22 (training): 17.0 us flat from 4 B to 32 KiB with one thread driving 4 GPUs.
  EXPECT_DOUBLE_EQ(kHostIssuePerGpu.microseconds() * 4, 17.0);
}

}  // namespace
}  // namespace collsim::validation
