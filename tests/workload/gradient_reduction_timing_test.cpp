// The DP gradient reduction runs on its own cpu (stream) and must not start before the
// backward compute that produces its gradients has ended, neither in the whole-step run nor
// in the streamed one. LogGOPSim's ready rule (LogGOPSParams::causal = 0) breaks this: an op
// on an idle cpu is queued at the time that cpu is free, which for a never-used cpu is 0.

#include <gtest/gtest.h>

#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/exec/loggops_stream.hpp"
#include "collsim/workload/role_timeline.hpp"
#include "collsim/workload/step_lowering.hpp"
#include "collsim/workload/step_report.hpp"
#include "collsim/workload/step_stream.hpp"
#include "workload/loggops_step_times.hpp"

namespace collsim::workload {
namespace {

// Two layers of 10 MFLOP each on DP 2, one micro-batch, on a device doing exactly 1 TFLOP/s
// (no roofline, no launch cost): every forward takes 10 us and every backward 20 us. Each
// layer has 1000 parameters, so the single bucket (FP32 gradients) is 2 × 1000 × 4 = 8000 B,
// far below the 25 MiB bucket size: it is reduced once, after the last backward.
WorkloadSpec two_layers_dp2() {
  WorkloadSpec w;
  w.name = "two-layers";
  w.model.layers.assign(2, ExplicitLayer{"l", 10e6, 1000, 1000, 0});
  w.training.global_batch = 2;
  w.training.micro_batch = 1;
  w.parallel.dp = 2;
  w.device.name = "exact";
  w.device.peak_flops[static_cast<std::size_t>(DType::BF16)] = 1e12;
  w.device.efficiency = 1.0;
  w.device.roofline = false;
  w.device.kernel_launch = SimTime::zero();
  w.comm.allreduce = "ring";
  w.comm.protocol = collectives::Protocol::Simple;
  w.comm.channels = 1;
  w.comm.launch = SimTime::zero();
  w.comm.step = SimTime::zero();
  w.comm.reduce_bytes_per_ns = 0;
  return w;
}

// Only latency: every message takes L = 50 us, everything is eager.
exec::LogGOPSParams latency_only(std::uint64_t causal) {
  exec::LogGOPSParams p;
  p.L = 50'000;
  p.o = p.g = p.G = p.O = 0;
  p.S = exec::kMaxLogGOPSParam;
  p.causal = causal;
  return p;
}

StepReport whole_step(const WorkloadSpec& w, const exec::LogGOPSParams& p, exec::LogGOPSResult& run,
                      LoweredStep& step) {
  step = lower_step(w, {});
  exec::LogGOPSOptions options;
  options.record_op_times = true;
  run = exec::simulate_loggops(step.schedule, p, options);
  return analyse_step(w, step, testing::op_times(run.op_start), testing::op_times(run.op_end),
                      testing::finish_times(run.rank_finish));
}

StepReport streamed_step(const WorkloadSpec& w, const exec::LogGOPSParams& p) {
  StepStream stream(w, {});
  RoleTimelines timelines(stream.num_ranks());
  exec::LogGOPSStreamOptions options;
  options.on_finished = testing::hear_into(timelines);
  const exec::LogGOPSStreamResult r = exec::simulate_loggops_stream(stream, p, options);
  EXPECT_TRUE(r.run.complete);
  stream.finish();
  return analyse_step(w, stream.totals(), timelines, testing::finish_times(r.run.rank_finish));
}

// Expected, by hand: forward 0-10-20 us, backward 20-40-60 us; the 2-rank ring all-reduce
// then sends half the bucket (reduce-scatter) at 60, which arrives at 110, and the other half
// (all-gather) at 110, which arrives at 160; the optimizer (10 FLOPs × 2000 parameters =
// 20 ns) runs 160 to 160.02 us. Compute 20 + 40 + 0.02 = 60.02 us, exposed DP 160 - 60 =
// 100 us, no idle (60.02 + 100 = 160.02).
constexpr SimTime kIteration = SimTime::us(160) + SimTime::ns(20);
constexpr SimTime kCompute = SimTime::us(60) + SimTime::ns(20);
constexpr SimTime kExposedDp = SimTime::us(100);

void expect_hand_derived(const StepReport& r) {
  EXPECT_EQ(r.iteration, kIteration);
  EXPECT_EQ(r.compute, kCompute);
  EXPECT_EQ(r.exposed_comm[static_cast<std::size_t>(Dimension::DP)], kExposedDp);
  EXPECT_EQ(r.exposed_comm[static_cast<std::size_t>(Dimension::TP)], SimTime::zero());
  EXPECT_EQ(r.idle, SimTime::zero());
}

TEST(GradientReductionTiming, WaitsForTheBackwardComputeInTheWholeStep) {
  const WorkloadSpec w = two_layers_dp2();
  exec::LogGOPSResult run;
  LoweredStep step;
  const StepReport r = whole_step(w, latency_only(1), run, step);
  ASSERT_TRUE(run.complete);
  expect_hand_derived(r);
  // No DP op of either rank starts before the last backward ends at 60 us.
  for (std::uint64_t g = 0; g < step.schedule.num_ops(); ++g) {
    if (step.role[g] == OpRole::DP) {
      EXPECT_GE(run.op_start[g], 60'000u) << "op " << g;
    }
  }
}

TEST(GradientReductionTiming, WaitsForTheBackwardComputeInTheStreamedStep) {
  expect_hand_derived(streamed_step(two_layers_dp2(), latency_only(1)));
}

TEST(GradientReductionTiming, LogGOPSimsRuleStartsTheReductionBeforeItsGradients) {
  // Why the workload runs with causal = 1: under LogGOPSim's rule the reduction's first sends
  // are released when the last backward starts (40 us) and queued when cpu 16 is free (0),
  // so the reduction runs from 0 to 100 us and the step looks shorter than it is.
  const WorkloadSpec w = two_layers_dp2();
  exec::LogGOPSResult run;
  LoweredStep step;
  const StepReport r = whole_step(w, latency_only(0), run, step);
  ASSERT_TRUE(run.complete);
  std::uint64_t first_dp = exec::kNever;
  for (std::uint64_t g = 0; g < step.schedule.num_ops(); ++g)
    if (step.role[g] == OpRole::DP) first_dp = std::min(first_dp, run.op_start[g]);
  EXPECT_EQ(first_dp, 0u);
  EXPECT_EQ(r.iteration, SimTime::us(100));
  EXPECT_EQ(streamed_step(w, latency_only(0)).iteration, SimTime::us(100));
}

TEST(GradientReductionTiming, CausalTakesOnlyZeroOrOne) {
  exec::LogGOPSParams p;
  exec::set_loggops_param(p, "causal", "1");
  EXPECT_EQ(p.causal, 1u);
  EXPECT_THROW(exec::set_loggops_param(p, "causal", "2"), std::invalid_argument);
  p.causal = 7;
  EXPECT_THROW(exec::validate(p), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::workload
