// Busy time by role (what a streamed run keeps of its op times) and the report built from it.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "collsim/goal/schedule_builder.hpp"
#include "collsim/workload/role_timeline.hpp"
#include "collsim/workload/step_report.hpp"
#include "workload/workload_test_util.hpp"

namespace collsim::workload {
namespace {

constexpr SimTime ps(std::int64_t v) { return SimTime::ps(v); }

// Rank 0's busy intervals for `role`, in ps.
std::vector<std::pair<std::int64_t, std::int64_t>> spans(const RoleTimelines& t, OpRole role) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const BusyInterval& b : t.busy(0, role)) out.emplace_back(b.start.picoseconds(), b.end.picoseconds());
  return out;
}

TEST(RoleTimelines, MergesOverlappingAndTouchingIntervalsInAnyOrder) {
  RoleTimelines t(1);
  t.add(0, OpRole::TP, ps(10), ps(20));
  t.add(0, OpRole::TP, ps(30), ps(40));
  EXPECT_EQ(spans(t, OpRole::TP), (std::vector<std::pair<std::int64_t, std::int64_t>>{{10, 20}, {30, 40}}));
  t.add(0, OpRole::TP, ps(15), ps(30));  // bridges both
  t.add(0, OpRole::TP, ps(0), ps(5));    // before everything
  t.add(0, OpRole::TP, ps(7), ps(7));    // empty: ignored
  t.add(0, OpRole::TP, ps(9), ps(3));    // never ran properly: ignored
  EXPECT_EQ(spans(t, OpRole::TP), (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 5}, {10, 40}}));
  t.add(0, OpRole::TP, ps(5), ps(10));  // touches both sides
  EXPECT_EQ(spans(t, OpRole::TP), (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 40}}));
  t.add(0, OpRole::PP, ps(50), ps(60));  // other roles apart
  EXPECT_EQ(spans(t, OpRole::TP).size(), 1u);
  EXPECT_EQ(t.num_intervals(), 2u);
}

// Intervals that mostly come in order, some starting early (a receive posted long before
// its message) and some wholly before the others, with the list read in between (which
// closes the latest interval): always the union a sort and one pass give.
TEST(RoleTimelines, AgreesWithASortedUnionWhateverTheOrderAndReads) {
  std::mt19937_64 rng(7);
  RoleTimelines t(1);
  std::vector<std::pair<std::int64_t, std::int64_t>> all;
  std::int64_t clock = 0;
  for (int i = 0; i < 4000; ++i) {
    clock += static_cast<std::int64_t>(rng() % 20);
    std::int64_t start = clock, end = clock + 1 + static_cast<std::int64_t>(rng() % 15);
    const unsigned kind = rng() % 10;
    if (kind == 0) start = std::max<std::int64_t>(0, clock - static_cast<std::int64_t>(rng() % 400));  // early start
    if (kind == 1) {  // wholly in the past
      start = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(clock + 1));
      end = start + 1 + static_cast<std::int64_t>(rng() % 5);
    }
    t.add(0, OpRole::DP, ps(start), ps(end));
    all.emplace_back(start, end);
    if (rng() % 50 != 0) continue;
    std::sort(all.begin(), all.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> want;
    for (const auto& [s, e] : all) {
      if (!want.empty() && s <= want.back().second) {
        want.back().second = std::max(want.back().second, e);
      } else {
        want.emplace_back(s, e);
      }
    }
    ASSERT_EQ(spans(t, OpRole::DP), want) << "after " << i + 1 << " intervals";
    ASSERT_EQ(t.num_intervals(), want.size());
  }
}

// One rank: TP over [0, 1 us) and [1 us, 10 us) as two ops, PP and DP over [0, 10 us), a
// compute op over [2 us, 4 us); it finishes at 10 us.
TEST(RoleTimelines, ReportIsTheSameAsFromTheOpsAndSharesExactly) {
  const WorkloadSpec w = testing::tiny_transformer(1, 1, 1);
  const auto us = [](std::int64_t v) { return SimTime::us(v); };
  struct OpTime {
    OpRole role;
    SimTime start, end;
  };
  const std::vector<OpTime> ops = {{OpRole::TP, us(0), us(1)},  {OpRole::TP, us(1), us(10)},
                                   {OpRole::PP, us(0), us(10)}, {OpRole::DP, us(0), us(10)},
                                   {OpRole::Compute, us(2), us(4)}};
  LoweredStep step;
  step.compute_ns = {2000};
  step.bytes_sent = {{{300, 30, 3, 0}}};
  step.model_flops = 0.5 * 10e-6 * w.device.peak_flops[static_cast<std::size_t>(w.model.dtype)];
  goal::ScheduleBuilder b(1);
  b.begin_rank(0);
  std::vector<std::optional<SimTime>> start, end;
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
  const std::vector<SimTime> finish = {us(10)};
  const StepReport from_ops = analyse_step(w, step, start, end, finish);
  const StepReport from_busy = analyse_step(w, step, t, finish);
  // Compute 2 us; the other 8 us three dimensions share: 8/3 us each = 2666666.67 ps, rounded
  // down to 2666666; the 2 ps left over go to idle.
  for (const StepReport& r : {from_ops, from_busy}) {
    EXPECT_EQ(r.iteration, us(10));
    EXPECT_EQ(r.compute, us(2));
    EXPECT_EQ(r.exposed_comm, (std::array<SimTime, kDimensions>{ps(2666666), ps(2666666), ps(2666666), ps(0)}));
    EXPECT_EQ(r.idle, ps(2));
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
  t.add(0, OpRole::Compute, ps(0), ps(10));
  t.add(0, OpRole::Compute, ps(20), ps(30));
  t.add(0, OpRole::TP, ps(5), ps(25));
  t.add(0, OpRole::DP, ps(24), ps(40));
  const RankActivity a = t.activity(0);
  EXPECT_EQ(a.computing, SimTime::ps(20));
  EXPECT_EQ(a.communicating, SimTime::ps(20));
  // Rank 1: PP only, two touching-free pieces.
  t.add(1, OpRole::PP, ps(100), ps(150));
  t.add(1, OpRole::EP, ps(200), ps(210));
  EXPECT_EQ(t.activity(1).computing, SimTime::zero());
  EXPECT_EQ(t.activity(1).communicating, SimTime::ps(60));
}

}  // namespace
}  // namespace collsim::workload
