// The whole step's size, counted from one rank per pipeline stage, is the lowered schedule's
// exactly: ranks of a stage differ only in their peers (the check that refuses a step too
// large for memory relies on it).

#include <gtest/gtest.h>

#include "collsim/workload/step_lowering.hpp"
#include "workload_test_util.hpp"

namespace collsim::workload {
namespace {

void expect_estimate_is_exact(const WorkloadSpec& w, std::uint32_t gpus_per_node) {
  LoweringOptions options;
  options.gpus_per_node = gpus_per_node;
  const StepSize size = estimate_step_size(w, options);
  const LoweredStep step = lower_step(w, options);
  EXPECT_EQ(size.ops, step.schedule.num_ops());
  std::uint64_t edges = 0;
  for (goal::RankId r = 0; r < step.schedule.num_ranks(); ++r) {
    const goal::RankOps ops = step.schedule.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) edges += ops.requires_of(i).size() + ops.irequires_of(i).size();
  }
  EXPECT_EQ(size.edges, edges);
}

TEST(StepSize, CountsWhatLoweringTheWholeStepWouldHold) {
  expect_estimate_is_exact(testing::tiny_transformer(2, 2, 2), 4);
  expect_estimate_is_exact(testing::tiny_transformer(1, 4, 1, 8), 1);
  WorkloadSpec interleaved = testing::tiny_transformer(2, 2, 3, 4);
  interleaved.parallel.schedule = PipelineSchedule::Interleaved;
  interleaved.parallel.virtual_stages = 2;
  interleaved.parallel.sp = true;
  expect_estimate_is_exact(interleaved, 2);
}

TEST(StepSize, RefusesWhatLoweringRefuses) {
  WorkloadSpec w = testing::tiny_transformer(2, 2, 2);
  w.parallel.tp = 0;
  LoweringOptions options;
  EXPECT_THROW(estimate_step_size(w, options), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::workload
