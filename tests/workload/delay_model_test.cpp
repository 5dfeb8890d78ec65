// With an infinitely fast network (LogGOPS with every parameter 0, collectives without
// launch, step or reduction costs) a step takes exactly what the delay model says.

#include <gtest/gtest.h>

#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/workload/compute_model.hpp"
#include "collsim/workload/step_lowering.hpp"
#include "collsim/workload/step_report.hpp"
#include "workload/loggops_step_times.hpp"
#include "workload/workload_test_util.hpp"

namespace collsim::workload {
namespace {

using testing::tiny_transformer;

void make_communication_free(WorkloadSpec& w) {
  w.comm.launch = SimTime::zero();
  w.comm.step = SimTime::zero();
  w.comm.reduce_bytes_per_ns = 0;
}

exec::LogGOPSResult run_ideal(const LoweredStep& s) {
  exec::LogGOPSParams p;
  p.L = p.o = p.g = p.G = p.O = 0;
  exec::LogGOPSOptions options;
  options.record_op_times = true;
  return exec::simulate_loggops(s.schedule, p, options);
}

TEST(DelayModel, ComputeCostsFollowTheRoofline) {
  DeviceSpec d = *device_preset("A100");
  d.kernel_launch = SimTime::us(1);
  // 312e12 × 0.6 = 187.2 TFLOP/s: 1.872e9 FLOPs take 10 us; 2.039e6 bytes take 1 us.
  EXPECT_EQ(compute_ns(d, DType::BF16, {1.872e9, 2.039e6, 2}), 10'000u + 2'000u);
  // Memory-bound: 2.039e8 bytes take 100 us, more than the FLOPs' 10 us.
  EXPECT_EQ(compute_ns(d, DType::BF16, {1.872e9, 2.039e8, 0}), 100'000u);
  d.roofline = false;
  EXPECT_EQ(compute_ns(d, DType::BF16, {1.872e9, 2.039e8, 0}), 10'000u);
  EXPECT_THROW(compute_ns(d, DType::FP8, {1, 0, 0}), std::invalid_argument);  // the A100 has no FP8
}

TEST(DelayModel, WithoutPipelineTheStepIsTheSumOfItsCompute) {
  WorkloadSpec w = tiny_transformer(2, 1, 2, 3);
  make_communication_free(w);
  const LoweredStep s = lower_step(w, {});
  const exec::LogGOPSResult r = run_ideal(s);
  ASSERT_TRUE(r.complete);
  for (goal::RankId rank = 0; rank < 4; ++rank) EXPECT_EQ(r.rank_finish[rank], s.compute_ns[rank]) << "rank " << rank;
  EXPECT_EQ(r.makespan, s.compute_ns[0]);
}

TEST(DelayModel, OneFOneBTakesMPlusPMinusOneStageTimes) {
  // Eight equal layers on p = 4 stages: a stage's forward f and backward b per micro-batch
  // are two layers' worth. With no communication cost, 1F1B ends stage 0's last backward at
  // (m + p - 1)(f + b), after which it steps its optimizer.
  const std::uint32_t p = 4, m = 6;
  WorkloadSpec w;
  w.model.layers.assign(8, ExplicitLayer{"l", 4e9, 1'000'000, 1'000'000, 0});
  w.training.global_batch = m;
  w.training.micro_batch = 1;
  w.parallel.pp = p;
  w.device = *device_preset("A100");
  w.comm.protocol = collectives::Protocol::Simple;
  make_communication_free(w);
  const LoweredStep s = lower_step(w, {});
  const DeviceSpec& d = w.device;
  const std::uint64_t f = 2 * compute_ns(d, DType::BF16, {4e9, 2e6 + 2e6, 1});
  const std::uint64_t b = 2 * compute_ns(d, DType::BF16, {8e9, 8e6, 1});
  const std::uint64_t optimizer = compute_ns(d, DType::BF16, {10 * 2e6, 32 * 2e6, 1});
  EXPECT_EQ(s.compute_ns[0], m * (f + b) + optimizer);
  const exec::LogGOPSResult r = run_ideal(s);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.makespan, (m + p - 1) * (f + b) + optimizer);
  // The report: compute on stage 0 is its own sum, the rest is the bubble (waiting on PP).
  const StepReport rep = analyse_step(w, s, testing::op_times(r.op_start), testing::op_times(r.op_end),
                                      testing::finish_times(r.rank_finish));
  EXPECT_EQ(rep.critical_rank, 0u);
  EXPECT_EQ(rep.iteration, SimTime::ns(static_cast<std::int64_t>(r.makespan)));
  EXPECT_EQ(rep.compute, SimTime::ns(static_cast<std::int64_t>(s.compute_ns[0])));
  SimTime total = rep.compute + rep.idle;
  for (SimTime e : rep.exposed_comm) total += e;
  EXPECT_EQ(total, rep.iteration);
  EXPECT_EQ(rep.exposed_comm[static_cast<std::size_t>(Dimension::PP)] + rep.idle,
            SimTime::ns(static_cast<std::int64_t>((p - 1) * (f + b))));
}

TEST(DelayModel, InterleavedAndExpertScheduleCompleteWithoutDeadlock) {
  WorkloadSpec w = tiny_transformer(2, 2, 4, 4);
  w.parallel.schedule = PipelineSchedule::Interleaved;
  w.parallel.virtual_stages = 2;
  w.parallel.sp = true;
  w.model.transformer->experts = 4;
  w.model.transformer->top_k = 2;
  w.parallel.ep = 2;
  w.parallel.zero = DpSharding::Zero3;
  const LoweredStep s = lower_step(w, {});
  const exec::LogGOPSResult r = run_ideal(s);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.ops_completed, s.schedule.num_ops());
}

}  // namespace
}  // namespace collsim::workload
