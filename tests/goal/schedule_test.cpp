// The schedule's invariants: the builder keeps them, validate() finds every way raw
// arrays can break them, and the dependency analysis.

#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>

#include "collsim/goal/dependency_analysis.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/goal/schedule_stats.hpp"
#include "goal_test_util.hpp"

namespace collsim::goal {
namespace {

Schedule two_rank_chain() {
  ScheduleBuilder b(2);
  b.begin_rank(0);
  const LocalOp c = b.add(Op::calc(10));
  const LocalOp s = b.add(Op::send(64, 1, 3));
  b.add_requires(s, c);
  b.end_rank();
  b.begin_rank(1);
  b.add(Op::recv(64, 0, 3));
  b.end_rank();
  return b.finish();
}

// One rank of `ops` calc ops with the given (op, required op) dependencies, added in this order.
Schedule calc_rank(int ops, std::initializer_list<std::pair<LocalOp, LocalOp>> dependencies) {
  ScheduleBuilder b(1);
  b.begin_rank(0);
  for (int i = 0; i < ops; ++i) b.add(Op::calc(1));
  for (const auto& [op, required] : dependencies) b.add_requires(op, required);
  b.end_rank();
  return b.finish();
}

TEST(ScheduleBuilder, BuildsRankByRank) {
  const Schedule s = two_rank_chain();
  EXPECT_EQ(s.num_ranks(), 2u);
  EXPECT_EQ(s.num_ops(), 3u);
  EXPECT_EQ(s.rank(1).first_global_op(), 2u);
  EXPECT_EQ(s.rank(0).requires_of(1)[0], 0u);
  EXPECT_TRUE(s.rank(1).requires_of(0).empty());
  EXPECT_FALSE(validate(s.columns()).has_value());
}

TEST(ScheduleBuilder, DependencyListsAreSortedWhateverTheOrderOfCalls) {
  const Schedule s = calc_rank(4, {{3, 2}, {3, 0}, {3, 1}});
  const auto row = s.rank(0).requires_of(3);
  ASSERT_EQ(row.size(), 3u);
  EXPECT_EQ(row[0], 0u);
  EXPECT_EQ(row[1], 1u);
  EXPECT_EQ(row[2], 2u);
}

TEST(ScheduleBuilder, RejectsWhatNoReaderAccepts) {
  ScheduleBuilder b(2);
  EXPECT_THROW(b.begin_rank(1), std::invalid_argument);
  b.begin_rank(0);
  EXPECT_THROW(b.add(Op::send(1, 2)), std::invalid_argument);
  EXPECT_THROW(b.add(Op::send(1, kAnySource)), std::invalid_argument);
  EXPECT_THROW(b.add(Op::recv(1, 5)), std::invalid_argument);
  EXPECT_NO_THROW(b.add(Op::recv(1, kAnySource, kAnyTag)));
  EXPECT_THROW(b.add(Op::calc(kMaxSize + 1)), std::invalid_argument);
  EXPECT_THROW(b.add(Op{OpKind::Calc, 0, 0, 1, 0, 1}), std::invalid_argument);
  EXPECT_THROW(b.add_requires(0, 1), std::invalid_argument);
  EXPECT_THROW(b.finish(), std::logic_error);
  b.end_rank();
  EXPECT_THROW(b.finish(), std::logic_error);
  EXPECT_THROW(ScheduleBuilder(0), std::invalid_argument);
}

TEST(ScheduleValidate, FindsBrokenArrays) {
  const Schedule good = two_rank_chain();
  auto broken = [&](auto&& damage) {
    ScheduleArrays a = copy_columns(good.columns());
    EXPECT_FALSE(validate(a).has_value());
    damage(a);
    return validate(a).value_or("");
  };
  EXPECT_NE(broken([](ScheduleArrays& a) { a.num_ranks = 0; }), "");
  EXPECT_NE(broken([](ScheduleArrays& a) { a.peer.pop_back(); }), "");
  EXPECT_NE(broken([](ScheduleArrays& a) { a.op_begin[1] = 5; }), "");
  EXPECT_NE(broken([](ScheduleArrays& a) { a.kind[0] = static_cast<OpKind>(9); }), "");
  EXPECT_NE(broken([](ScheduleArrays& a) { a.peer[1] = 2; }), "");
  EXPECT_NE(broken([](ScheduleArrays& a) { a.tag[0] = 1; }), "");
  EXPECT_NE(broken([](ScheduleArrays& a) { a.requires_target[0] = 2; }), "");
  EXPECT_NE(broken([](ScheduleArrays& a) { a.size[2] = kMaxSize + 1; }), "");
  // Found by fuzzing: an offset in the middle of a rank that runs past the rank's edges
  // (later offsets back in range) used to be read before it was checked.
  EXPECT_NE(broken([](ScheduleArrays& a) { a.requires_offset[1] = 1000; }).find("run past"), std::string::npos);
  EXPECT_THROW(Schedule::from_arrays(ScheduleArrays{}), std::invalid_argument);
}

TEST(ScheduleValidate, RowsAscendWithinAndMayDescendBetween) {
  // Op 3 requires ops 1 and 2, op 4 nothing, op 5 op 0: targets [1, 2, 0], a descent where
  // op 5's row begins (after an empty row), which is valid; within op 3's row it is not.
  const Schedule s = calc_rank(6, {{3, 1}, {3, 2}, {5, 0}});
  ScheduleArrays a = copy_columns(s.columns());
  ASSERT_EQ(a.requires_target, (std::vector<std::uint32_t>{1, 2, 0}));
  EXPECT_FALSE(validate(a).has_value());
  std::swap(a.requires_target[0], a.requires_target[1]);
  EXPECT_EQ(validate(a).value_or(""), "rank 0 op 3: requires list is not sorted");
  std::swap(a.requires_target[0], a.requires_target[1]);
  a.requires_target[2] = 2;  // [1, 2, 2]: ascending everywhere, still valid
  EXPECT_FALSE(validate(a).has_value());
}

TEST(DependencyAnalysis, ChainsAndCycles) {
  const Schedule s = testing::parse(
      "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\nd: calc 1\n"
      "a requires b\nb irequires c\nd requires c\n}\n");
  const RankOps r = s.rank(0);
  EXPECT_FALSE(dependencies_point_backward(r));
  const auto order = topological_order(r);
  ASSERT_TRUE(order.has_value());
  // c before b before a, c before d.
  auto pos = [&](LocalOp op) { return std::find(order->begin(), order->end(), op) - order->begin(); };
  EXPECT_LT(pos(2), pos(1));
  EXPECT_LT(pos(1), pos(0));
  EXPECT_LT(pos(2), pos(3));
  EXPECT_EQ(longest_dependency_chain(r), 3u);
  EXPECT_TRUE(find_dependency_cycle(r).empty());
}

TEST(DependencyAnalysis, CycleFromBuilder) {
  ScheduleBuilder b(1);
  b.begin_rank(0);
  for (int i = 0; i < 5; ++i) b.add(Op::calc(1));
  b.add_requires(1, 0);
  b.add_requires(2, 1);
  b.add_irequires(3, 2);
  b.add_requires(1, 3);  // 1 -> 3 -> 2 -> 1
  b.add_requires(4, 3);
  b.end_rank();
  const Schedule s = b.finish();
  const auto cycle = find_dependency_cycle(s.rank(0));
  ASSERT_EQ(cycle.size(), 3u);
  // Each step depends on the next, the last on the first.
  std::vector<LocalOp> ops;
  for (const auto& step : cycle) ops.push_back(step.op);
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<LocalOp>{1, 2, 3}));
  EXPECT_THROW(longest_dependency_chain(s.rank(0)), std::invalid_argument);
  EXPECT_THROW(compute_stats(s), std::invalid_argument);
}

TEST(DependencyAnalysis, EmptyRank) {
  const Schedule s = testing::parse("num_ranks 1\nrank 0 {\n}\n");
  EXPECT_EQ(longest_dependency_chain(s.rank(0)), 0u);
  EXPECT_TRUE(topological_order(s.rank(0))->empty());
}

TEST(ScheduleStats, CountsByHand) {
  const ScheduleStats st = compute_stats(testing::parse(
      "num_ranks 2\nrank 0 {\na: calc 100 cpu 3\nb: send 10b to 1 tag 2 nic 1\nb requires a\nc: send 5b to 1\nc irequires b\n}\n"
      "rank 1 {\nrecv 10b from -1 tag 2\nrecv 5b from 0 tag -1\nrecv 1b from 0\n}\n"));
  EXPECT_EQ(st.num_ranks, 2u);
  EXPECT_EQ(st.ops, 6u);
  EXPECT_EQ(st.sends, 2u);
  EXPECT_EQ(st.recvs, 3u);
  EXPECT_EQ(st.calcs, 1u);
  EXPECT_EQ(st.requires_edges, 1u);
  EXPECT_EQ(st.irequires_edges, 1u);
  EXPECT_EQ(st.bytes_sent, 15u);
  EXPECT_EQ(st.bytes_received, 16u);
  EXPECT_EQ(st.calc_ns, 100u);
  EXPECT_EQ(st.wildcard_recvs, 2u);
  EXPECT_EQ(st.max_cpu, 3u);
  EXPECT_EQ(st.max_nic, 1u);
  EXPECT_EQ(st.max_ops_per_rank, 3u);
  EXPECT_EQ(st.longest_chain_ops, 3u);
}

TEST(Schedule, MemoryPerOp) {
  // 27 bytes per op, 4 per edge, 24 + 8 per rank (three begin arrays and two offset rows).
  const Schedule s = two_rank_chain();
  EXPECT_EQ(s.memory_bytes(), 3u * 27u + 1u * 4u + 3u * 8u * 3u + 2u * 4u * 2u);
}

}  // namespace
}  // namespace collsim::goal
