// MPI matching and DAG readiness, the two pieces every execution mode shares.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collsim/exec/dependency_tracker.hpp"
#include "collsim/exec/match_queue.hpp"
#include "collsim/goal/schedule_builder.hpp"

namespace collsim::exec {
namespace {

using goal::kAnySource;
using goal::kAnyTag;
using Queue = MatchQueue<std::string, std::string>;

TEST(MatchQueue, AMessageTakesTheEarliestPostedMatchingReceive) {
  Queue q;
  EXPECT_FALSE(q.post(1, 7, "r1"));
  EXPECT_FALSE(q.post(1, 7, "r2"));
  EXPECT_FALSE(q.post(2, 7, "r3"));
  EXPECT_EQ(q.arrive(1, 7, "m1"), "r1");
  EXPECT_EQ(q.arrive(1, 7, "m2"), "r2");
  EXPECT_FALSE(q.arrive(1, 7, "m3"));  // nobody waits: unexpected
  EXPECT_EQ(q.unexpected_count(), 1u);
  EXPECT_EQ(q.posted_count(), 1u);
  EXPECT_EQ(q.post(1, 7, "r4"), "m3");
}

TEST(MatchQueue, WildcardsRespectPostingOrder) {
  Queue q;
  EXPECT_FALSE(q.post(kAnySource, 5, "any-source"));
  EXPECT_FALSE(q.post(3, 5, "exact"));
  EXPECT_EQ(q.arrive(3, 5, "m1"), "any-source");  // posted first
  EXPECT_EQ(q.arrive(3, 5, "m2"), "exact");
  EXPECT_FALSE(q.post(3, 9, "exact-first"));
  EXPECT_FALSE(q.post(kAnySource, kAnyTag, "anything"));
  EXPECT_EQ(q.arrive(3, 9, "m3"), "exact-first");
  EXPECT_EQ(q.arrive(4, 1, "m4"), "anything");
}

TEST(MatchQueue, AWildcardReceiveTakesTheEarliestArrivedUnexpectedMessage) {
  Queue q;
  EXPECT_FALSE(q.arrive(2, 1, "first"));
  EXPECT_FALSE(q.arrive(1, 1, "second"));
  EXPECT_FALSE(q.arrive(2, 3, "third"));
  EXPECT_EQ(q.post(kAnySource, 1, "r"), "first");
  EXPECT_EQ(q.post(kAnySource, kAnyTag, "r"), "second");
  EXPECT_EQ(q.post(2, kAnyTag, "r"), "third");
  EXPECT_EQ(q.unexpected_count(), 0u);
}

TEST(DependencyTracker, RequiresWaitsForFinishAndIrequiresForStart) {
  goal::ScheduleBuilder b(1);
  b.begin_rank(0);
  const auto a = b.add(goal::Op::calc(10));
  const auto c = b.add(goal::Op::calc(10));
  const auto d = b.add(goal::Op::calc(10));
  b.add_requires(c, a);   // c after a finished
  b.add_irequires(d, a);  // d after a started
  b.add_requires(d, c);
  b.end_rank();
  const goal::Schedule s = b.finish();
  DependencyTracker t(s.rank(0));
  std::vector<goal::LocalOp> ready;
  auto push = [&](goal::LocalOp i) { ready.push_back(i); };
  t.for_initially_ready(push);
  EXPECT_EQ(ready, std::vector<goal::LocalOp>{a});
  ready.clear();
  t.start(a, push);
  EXPECT_TRUE(ready.empty());
  EXPECT_EQ(t.waiting_irequires(d), 0u);
  t.finish(a, push);
  EXPECT_EQ(ready, std::vector<goal::LocalOp>{c});
  ready.clear();
  t.start(c, push);
  t.finish(c, push);
  EXPECT_EQ(ready, std::vector<goal::LocalOp>{d});
  EXPECT_EQ(t.unfinished(), 1u);
  EXPECT_EQ(t.state(d), OpState::Ready);
}

}  // namespace
}  // namespace collsim::exec
