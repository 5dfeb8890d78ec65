// Busy time by role (what a streamed run keeps of its op times) and the report built from it.

#include <gtest/gtest.h>

#include "collsim/goal/schedule_builder.hpp"
#include "collsim/workload/role_timeline.hpp"
#include "collsim/workload/step_report.hpp"
#include "workload/workload_test_util.hpp"

namespace collsim::workload {
namespace {

std::vector<std::pair<std::int64_t, std::int64_t>> spans(const RoleTimelines& t, OpRole role) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const BusyInterval& b : t.busy(0, role)) out.emplace_back(b.start, b.end);
  return out;
}

TEST(RoleTimelines, MergesOverlappingAndTouchingIntervalsInAnyOrder) {
  RoleTimelines t(1);
  t.add(0, OpRole::TP, 10, 20);
  t.add(0, OpRole::TP, 30, 40);
  EXPECT_EQ(spans(t, OpRole::TP), (std::vector<std::pair<std::int64_t, std::int64_t>>{{10, 20}, {30, 40}}));
  t.add(0, OpRole::TP, 15, 30);  // bridges both
  t.add(0, OpRole::TP, 0, 5);    // before everything
  t.add(0, OpRole::TP, 7, 7);    // empty: ignored
  t.add(0, OpRole::TP, 9, 3);    // never ran properly: ignored
  EXPECT_EQ(spans(t, OpRole::TP), (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 5}, {10, 40}}));
  t.add(0, OpRole::TP, 5, 10);  // touches both sides
  EXPECT_EQ(spans(t, OpRole::TP), (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 40}}));
  t.add(0, OpRole::PP, 50, 60);  // other roles apart
  EXPECT_EQ(spans(t, OpRole::TP).size(), 1u);
  EXPECT_EQ(t.num_intervals(), 2u);
}

// One rank: TP over [0, 1 us) and [1 us, 10 us) as two ops, PP and DP over [0, 10 us), a
// compute op over [2 us, 4 us); it finishes at 10 us.
TEST(RoleTimelines, ReportIsTheSameAsFromTheOpsAndSharesExactly) {
  const WorkloadSpec w = testing::tiny_transformer(1, 1, 1);
  const std::int64_t us = 1'000'000;
  struct OpTime {
    OpRole role;
    std::int64_t start, end;
  };
  const std::vector<OpTime> ops = {{OpRole::TP, 0, us},         {OpRole::TP, us, 10 * us}, {OpRole::PP, 0, 10 * us},
                                   {OpRole::DP, 0, 10 * us},    {OpRole::Compute, 2 * us, 4 * us}};
  LoweredStep step;
  step.compute_ns = {2000};
  step.bytes_sent = {{{300, 30, 3, 0}}};
  step.model_flops = 0.5 * 10e-6 * w.device.peak_flops[static_cast<std::size_t>(w.model.dtype)];
  goal::ScheduleBuilder b(1);
  b.begin_rank(0);
  std::vector<std::int64_t> start, end;
  RoleTimelines t(1);
  for (const OpTime& o : ops) {
    b.add(goal::Op::calc(1));
    step.role.push_back(o.role);
    start.push_back(o.start);
    end.push_back(o.end);
    t.add(0, o.role, o.start, o.end);
  }
  b.end_rank();
  step.schedule = b.finish();
  const std::vector<std::int64_t> finish = {10 * us};
  const StepReport from_ops = analyse_step(w, step, start, end, finish);
  const StepReport from_busy = analyse_step(w, step, t, finish);
  // Compute 2 us; the other 8 us three dimensions share: 8/3 us each = 2666666.67 ps, rounded
  // down to 2666666; the 2 ps left over go to idle.
  for (const StepReport& r : {from_ops, from_busy}) {
    EXPECT_EQ(r.iteration_ps, 10 * us);
    EXPECT_EQ(r.compute_ps, 2 * us);
    EXPECT_EQ(r.exposed_comm_ps, (std::array<std::int64_t, kDimensions>{2666666, 2666666, 2666666, 0}));
    EXPECT_EQ(r.idle_ps, 2);
    EXPECT_DOUBLE_EQ(r.mfu, 0.5);
    EXPECT_EQ(r.bytes_per_rank, (std::array<double, kDimensions>{300, 30, 3, 0}));
  }
}

}  // namespace
}  // namespace collsim::workload

namespace collsim::workload {
namespace {

TEST(RoleTimelines, ActivitySplitsComputingFromCommunicatingAlone) {
  RoleTimelines t(2);
  // Rank 0: compute [0, 10) and [20, 30); TP [5, 25) overlaps both; DP [24, 40) overlaps TP
  // and the second compute. Communicating alone: [10, 20) and [30, 40) = 20.
  t.add(0, OpRole::Compute, 0, 10);
  t.add(0, OpRole::Compute, 20, 30);
  t.add(0, OpRole::TP, 5, 25);
  t.add(0, OpRole::DP, 24, 40);
  const RankActivity a = t.activity(0);
  EXPECT_EQ(a.computing, SimTime::ps(20));
  EXPECT_EQ(a.communicating, SimTime::ps(20));
  // Rank 1: PP only, two touching-free pieces.
  t.add(1, OpRole::PP, 100, 150);
  t.add(1, OpRole::EP, 200, 210);
  EXPECT_EQ(t.activity(1).computing, SimTime::zero());
  EXPECT_EQ(t.activity(1).communicating, SimTime::ps(60));
}

}  // namespace
}  // namespace collsim::workload
