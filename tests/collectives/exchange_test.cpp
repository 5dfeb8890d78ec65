// The exchange family: alltoall (direct, pairwise, bruck), the dissemination barrier and
// nccl-tests sendrecv.

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "collective_test_util.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

using testing::ceil_log2;
using testing::expect_error;
using testing::peers_of;

using testing::generate_and_verify;
using testing::spec_of;

struct Case {
  Collective collective;
  const char* algorithm;
};

void PrintTo(const Case& c, std::ostream* os) { *os << to_string(c.collective) << " " << c.algorithm; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(to_string(info.param.collective)) + "_" + info.param.algorithm;
}

// Simple protocol, one channel, one chunk: the textbook setting.
CollectiveSpec textbook(Collective c, const std::string& algorithm, std::uint32_t n, std::uint64_t bytes) {
  CollectiveSpec spec = spec_of(c, algorithm, n, bytes);
  spec.protocol = Protocol::Simple;
  return spec;
}

// Sizes of the sends of schedule rank r, in op order, and their peers.
std::vector<std::uint64_t> send_sizes(const goal::Schedule& s, goal::RankId r) {
  std::vector<std::uint64_t> sizes;
  const goal::RankOps ops = s.rank(r);
  for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
    if (ops.kind(i) == goal::OpKind::Send) sizes.push_back(ops.size(i));
  return sizes;
}
// Op `later` cannot start before op `earlier` has finished: some chain of dependencies from
// `later` reaches `earlier` through a requires edge (irequires edges only order starts).
bool starts_after_end_of(const goal::RankOps& ops, goal::LocalOp later, goal::LocalOp earlier) {
  std::vector<std::uint8_t> seen(ops.num_ops(), 0);
  std::vector<goal::LocalOp> stack{later};
  while (!stack.empty()) {
    const goal::LocalOp op = stack.back();
    stack.pop_back();
    for (std::uint32_t p : ops.requires_of(op)) {
      if (p == earlier) return true;
      if (!seen[p]) {
        seen[p] = 1;
        stack.push_back(p);
      }
    }
    for (std::uint32_t p : ops.irequires_of(op))
      if (!seen[p]) {
        seen[p] = 1;
        stack.push_back(p);
      }
  }
  return false;
}

// --- every algorithm verifies -------------------------------------------------------------

class ExchangeAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(ExchangeAlgorithm, VerifiesForEveryRankCountSizeChannelAndChunk) {
  const Case c = GetParam();
  // One channel in one chunk, and two channels in 64 KiB chunks (several per channel for
  // the larger sizes at small n).
  const struct {
    std::uint32_t channels;
    std::uint64_t chunk;
  } configs[] = {{1, 0}, {2, 64 << 10}};
  for (std::uint32_t n : testing::kRankCounts)
    for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000003}, std::uint64_t{1} << 20})
      for (const auto& config : configs) {
        CollectiveSpec spec = spec_of(c.collective, c.algorithm, n, bytes);
        spec.channels = config.channels;
        spec.chunk_bytes = config.chunk;
        const VerifyReport report = generate_and_verify(spec);
        EXPECT_TRUE(report.ok) << "n=" << n << " bytes=" << bytes << " channels=" << config.channels
                               << " chunk=" << config.chunk << ": " << report.error;
      }
}

TEST_P(ExchangeAlgorithm, NoMessageExceedsTheChunkAndChannelsKeepToTheirTags) {
  const Case c = GetParam();
  for (std::uint32_t n : {3u, 8u}) {
    CollectiveSpec spec = spec_of(c.collective, c.algorithm, n, 1000003);
    spec.channels = 2;
    spec.chunk_bytes = 4096;
    const AnnotatedSchedule a = generate_annotated(spec);
    for (goal::RankId r = 0; r < n; ++r) {
      const goal::RankOps ops = a.schedule.rank(r);
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        if (ops.kind(i) == goal::OpKind::Calc) continue;
        EXPECT_LE(ops.size(i), 4096u) << "n=" << n << " rank " << r << " op " << i;
        EXPECT_EQ(ops.tag(i), ops.cpu(i)) << "n=" << n << " rank " << r << " op " << i;
      }
    }
    const VerifyReport report = verify(a);
    EXPECT_TRUE(report.ok) << "n=" << n << ": " << report.error;
  }
}

TEST_P(ExchangeAlgorithm, RunsOnAnySubsetOfTheSchedulesRanks) {
  const Case c = GetParam();
  CollectiveSpec spec = spec_of(c.collective, c.algorithm, 10, 3000);
  spec.group = {5, 2, 7, 0, 9};
  const AnnotatedSchedule a = generate_annotated(spec);
  for (goal::RankId r : {1u, 3u, 4u, 6u, 8u}) EXPECT_EQ(a.schedule.rank(r).num_ops(), 0u) << "rank " << r;
  const VerifyReport report = verify(a);
  EXPECT_TRUE(report.ok) << report.error;
}

INSTANTIATE_TEST_SUITE_P(Exchange, ExchangeAlgorithm,
                         ::testing::Values(Case{Collective::AllToAll, "direct"}, Case{Collective::AllToAll, "pairwise"},
                                           Case{Collective::AllToAll, "bruck"},
                                           Case{Collective::Barrier, "dissemination"},
                                           Case{Collective::SendRecv, "direct"}),
                         case_name);

TEST(ExchangeFamily, AutoPicksThePointToPointAlgorithms) {
  EXPECT_EQ(make_plan(spec_of(Collective::AllToAll, "auto", 8, 8192)).algorithm, "direct");
  EXPECT_EQ(make_plan(spec_of(Collective::SendRecv, "auto", 8, 8192)).algorithm, "direct");
  EXPECT_EQ(make_plan(spec_of(Collective::Barrier, "auto", 8, 0)).algorithm, "dissemination");
}

// --- textbook traffic -------------------------------------------------------------------------

TEST(AlltoallDirect, SendsNMinusOneMessagesOfSOverNToEveryPeer) {
  for (std::uint32_t n : {1u, 2u, 3u, 5u, 8u, 33u}) {
    const std::uint64_t bytes = std::uint64_t{n} * 4096;
    const goal::Schedule s = generate(textbook(Collective::AllToAll, "direct", n, bytes));
    const testing::RankTraffic t = testing::traffic_of(s);
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(t.messages[r], n - 1u) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], (n - 1u) * std::uint64_t{4096}) << "n=" << n << " rank " << r;
      const std::vector<goal::RankId> to = peers_of(s, r, goal::OpKind::Send);
      const std::set<goal::RankId> distinct(to.begin(), to.end());
      EXPECT_EQ(distinct.size(), n - 1u) << "n=" << n << " rank " << r;
      EXPECT_EQ(distinct.count(r), 0u) << "n=" << n << " rank " << r;
    }
  }
}

TEST(AlltoallDirect, ChannelsAndChunksMultiplyTheMessages) {
  const std::uint32_t n = 4;
  CollectiveSpec spec = textbook(Collective::AllToAll, "direct", n, n * 3 * 2 * 1024);  // 6 KiB per pair
  spec.channels = 3;
  spec.chunk_bytes = 1024;  // 2 chunks per pair and channel
  const AnnotatedSchedule a = generate_annotated(spec);
  EXPECT_EQ(a.plan.slices, 6u);
  const testing::RankTraffic t = testing::traffic_of(a.schedule);
  for (goal::RankId r = 0; r < n; ++r) {
    EXPECT_EQ(t.messages[r], (n - 1) * 3u * 2);
    EXPECT_EQ(t.bytes[r], (n - 1) * 6u * 1024);
  }
  const VerifyReport report = verify(a);
  EXPECT_TRUE(report.ok) << report.error;
}

TEST(AlltoallPairwise, SendsNMinusOneMessagesOfSOverNOneStepAtATime) {
  for (std::uint32_t n : {2u, 3u, 5u, 7u, 8u, 16u}) {
    const std::uint64_t bytes = std::uint64_t{n} * 4096;
    const goal::Schedule s = generate(textbook(Collective::AllToAll, "pairwise", n, bytes));
    const testing::RankTraffic t = testing::traffic_of(s);
    const bool power_of_two = (n & (n - 1)) == 0;
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(t.messages[r], n - 1u) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], (n - 1u) * std::uint64_t{4096}) << "n=" << n << " rank " << r;
      // Step k's partners: r XOR k for powers of two, else r + k and r - k.
      const std::vector<goal::RankId> to = peers_of(s, r, goal::OpKind::Send);
      const std::vector<goal::RankId> from = peers_of(s, r, goal::OpKind::Recv);
      ASSERT_EQ(to.size(), n - 1u);
      ASSERT_EQ(from.size(), n - 1u);
      for (std::uint32_t k = 1; k < n; ++k) {
        EXPECT_EQ(to[k - 1], power_of_two ? (r ^ k) : (r + k) % n) << "n=" << n << " rank " << r << " step " << k;
        EXPECT_EQ(from[k - 1], power_of_two ? (r ^ k) : (r + n - k) % n) << "n=" << n << " rank " << r << " step " << k;
      }
    }
  }
}

TEST(AlltoallPairwise, EveryStepStartsAfterThePreviousStepHasFinished) {
  for (std::uint32_t n : {5u, 8u}) {
    CollectiveSpec spec = textbook(Collective::AllToAll, "pairwise", n, std::uint64_t{n} * 4 * 1024);
    spec.chunk_bytes = 1024;  // 4 chunks per step
    spec.max_in_flight = 1;
    const goal::Schedule s = generate(spec);
    for (goal::RankId r = 0; r < n; ++r) {
      const goal::RankOps ops = s.rank(r);
      // The step of a message, from its peer.
      std::vector<std::vector<goal::LocalOp>> step(n);
      const bool power_of_two = (n & (n - 1)) == 0;
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        if (ops.kind(i) == goal::OpKind::Calc) continue;
        const std::uint32_t peer = ops.peer(i);
        const std::uint32_t k = power_of_two ? (peer ^ r)
                                : ops.kind(i) == goal::OpKind::Send ? (peer + n - r) % n
                                                                    : (r + n - peer) % n;
        step[k].push_back(i);
      }
      for (std::uint32_t k = 1; k + 1 < n; ++k) {
        ASSERT_EQ(step[k].size(), 8u) << "n=" << n << " rank " << r << " step " << k;
        for (goal::LocalOp later : step[k + 1])
          for (goal::LocalOp earlier : step[k]) {
            EXPECT_TRUE(starts_after_end_of(ops, later, earlier))
                << "n=" << n << " rank " << r << ": op " << later << " of step " << k + 1 << " may start before op "
                << earlier << " of step " << k << " ends";
          }
      }
    }
  }
}

TEST(AlltoallBruck, SendsCeilLog2NMessagesOfHalfTheBlocksForPowersOfTwo) {
  for (std::uint32_t n : {1u, 2u, 4u, 8u, 16u, 64u}) {
    const std::uint64_t block = 1024;
    const goal::Schedule s = generate(textbook(Collective::AllToAll, "bruck", n, n * block));
    for (goal::RankId r = 0; r < n; ++r) {
      const std::vector<std::uint64_t> sizes = send_sizes(s, r);
      EXPECT_EQ(sizes.size(), ceil_log2(n)) << "n=" << n << " rank " << r;
      for (std::uint64_t size : sizes) EXPECT_EQ(size, n / 2 * block) << "n=" << n << " rank " << r;
      const std::vector<goal::RankId> to = peers_of(s, r, goal::OpKind::Send);
      for (std::uint32_t k = 0; k < to.size(); ++k) EXPECT_EQ(to[k], (r + (1u << k)) % n) << "n=" << n << " step " << k;
    }
  }
}

TEST(AlltoallBruck, SendsTheOffsetsWithBitKSetForOtherRankCounts) {
  // Blocks in step k's message: the offsets 1..n-1 with bit k set, counted by hand.
  //   n=3: {1} {2};  n=5: {1,3} {2,3} {4};  n=6: {1,3,5} {2,3} {4,5};  n=7: {1,3,5} {2,3,6} {4,5,6}
  const struct {
    std::uint32_t n;
    std::vector<std::uint64_t> blocks;
  } cases[] = {{3, {1, 1}}, {5, {2, 2, 1}}, {6, {3, 2, 2}}, {7, {3, 3, 3}}};
  for (const auto& c : cases) {
    const std::uint64_t block = 1000;
    const goal::Schedule s = generate(textbook(Collective::AllToAll, "bruck", c.n, c.n * block));
    for (goal::RankId r = 0; r < c.n; ++r) {
      std::vector<std::uint64_t> want;
      for (std::uint64_t b : c.blocks) want.push_back(b * block);
      EXPECT_EQ(send_sizes(s, r), want) << "n=" << c.n << " rank " << r;
    }
  }
}

TEST(BarrierDissemination, SendsCeilLog2NEmptyMessagesToRPlusTwoToTheK) {
  for (std::uint32_t n : {1u, 2u, 3u, 5u, 8u, 33u}) {
    const goal::Schedule s = generate(textbook(Collective::Barrier, "dissemination", n, 0));
    for (goal::RankId r = 0; r < n; ++r) {
      const std::vector<std::uint64_t> sizes = send_sizes(s, r);
      EXPECT_EQ(sizes, std::vector<std::uint64_t>(ceil_log2(n), 0)) << "n=" << n << " rank " << r;
      const std::vector<goal::RankId> to = peers_of(s, r, goal::OpKind::Send);
      const std::vector<goal::RankId> from = peers_of(s, r, goal::OpKind::Recv);
      for (std::uint32_t k = 0; k < to.size(); ++k) {
        EXPECT_EQ(to[k], (r + (1u << k)) % n) << "n=" << n << " rank " << r;
        EXPECT_EQ(from[k], (r + n - (1u << k) % n) % n) << "n=" << n << " rank " << r;
      }
    }
  }
}

TEST(BarrierDissemination, EveryRoundWaitsForThePreviousRoundsReceive) {
  const std::uint32_t n = 7;
  const goal::Schedule s = generate(textbook(Collective::Barrier, "dissemination", n, 0));
  for (goal::RankId r = 0; r < n; ++r) {
    const goal::RankOps ops = s.rank(r);
    std::vector<goal::LocalOp> sends, recvs;
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      if (ops.kind(i) == goal::OpKind::Send) sends.push_back(i);
      if (ops.kind(i) == goal::OpKind::Recv) recvs.push_back(i);
    }
    ASSERT_EQ(sends.size(), 3u);
    for (std::size_t k = 1; k < sends.size(); ++k) {
      EXPECT_TRUE(starts_after_end_of(ops, sends[k], recvs[k - 1])) << "rank " << r << " round " << k;
    }
  }
}

TEST(SendrecvDirect, SendsOneMessageOfSToTheNextRank) {
  for (std::uint32_t n : {1u, 2u, 3u, 5u, 8u}) {
    const std::uint64_t bytes = 12345;
    const goal::Schedule s = generate(textbook(Collective::SendRecv, "direct", n, bytes));
    const testing::RankTraffic t = testing::traffic_of(s);
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(t.messages[r], n == 1 ? 0u : 1u) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], n == 1 ? 0u : bytes) << "n=" << n << " rank " << r;
      if (n > 1) {
        EXPECT_EQ(peers_of(s, r, goal::OpKind::Send), std::vector<goal::RankId>{(r + 1) % n});
        EXPECT_EQ(peers_of(s, r, goal::OpKind::Recv), std::vector<goal::RankId>{(r + n - 1) % n});
      }
    }
  }
}

// --- deliberately broken schedules ------------------------------------------------------

// Rewrites the units an op carries.
auto with_units(std::vector<UnitRange> replacement) {
  return [replacement](goal::Op&, Payload&, std::vector<UnitRange>& units) { units = replacement; };
}
auto with_action(DataAction action) {
  return [action](goal::Op&, Payload& p, std::vector<UnitRange>&) { p.action = action; };
}

// n = 4, one slice: unit s*4 + d is what s sends to d.
class BrokenAlltoallDirect : public ::testing::Test {
 protected:
  Plan plan = make_plan(spec_of(Collective::AllToAll, "direct", 4, 4 * 1024));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenAlltoallDirect, AReceiveThatReducesIntoAnAbsentBlock) {
  // Rank 1's first receive is rank 0's block for it.
  const goal::LocalOp victim = testing::nth_op(good, 1, goal::OpKind::Recv, 0);
  expect_error(verify(testing::tampered(plan, 1, victim, with_action(DataAction::Reduce))),
               {"rank 1 op", "reduces into chunk 1 (slice 0, block 1)", "does not hold"});
}

TEST_F(BrokenAlltoallDirect, ASendOfTheWrongBlock) {
  // Rank 2's first send (to rank 3, block 11) carries the block rank 2 keeps (10).
  const goal::LocalOp victim = testing::nth_op(good, 2, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 2, victim, with_units({{10, 11}}))),
               {"rank 3 op", "expects chunk 11 (slice 0, block 11) but the send carries chunk 10"});
}

// n = 5 (steps to r+k, from r-k), one slice.
class BrokenAlltoallPairwise : public ::testing::Test {
 protected:
  Plan plan = make_plan(spec_of(Collective::AllToAll, "pairwise", 5, 5 * 1024));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenAlltoallPairwise, SendingABlockHeldElsewhere) {
  // Rank 0's step-1 send claims block 6 = (1, 1), which only rank 1 holds.
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 0, victim, with_units({{6, 7}}))),
               {"rank 0 op", "sends chunk 6 (slice 0, block 6), which it does not hold yet"});
}

TEST_F(BrokenAlltoallPairwise, AWrongPeerIsReceivedAStepLater) {
  // Rank 0's step-2 message (block 2) goes to rank 3, which takes it for rank 0's step-3
  // message (block 3).
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Send, 1);
  expect_error(verify(testing::tampered(plan, 0, victim, [](goal::Op& op, Payload&, auto&) { op.peer = 3; })),
               {"rank 3 op", "expects chunk 3 (slice 0, block 3) but the send carries chunk 2"});
}

TEST_F(BrokenAlltoallPairwise, ACopyTurnedIntoAReduceWithXorPartners) {
  const Plan p = make_plan(spec_of(Collective::AllToAll, "pairwise", 4, 4 * 1024));
  // Rank 2's step-3 receive is from 2 XOR 3 = 1: block 1*4 + 2.
  const goal::LocalOp victim = testing::nth_op(generate(p), 2, goal::OpKind::Recv, 2);
  expect_error(verify(testing::tampered(p, 2, victim, with_action(DataAction::Reduce))),
               {"rank 2 op", "reduces into chunk 6 (slice 0, block 6)"});
}

// n = 4: rank 0 sends {1, 3} at step 0 and {2, 14} at step 1 (14 = (3, 2), got from rank 3).
class BrokenAlltoallBruck : public ::testing::Test {
 protected:
  Plan plan = make_plan(spec_of(Collective::AllToAll, "bruck", 4, 4 * 1024));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenAlltoallBruck, ForwardingABlockThatNeverPassesThisRank) {
  // Block 13 = (3, 1) goes from 3 to 1 directly at step 1; rank 0 never holds it.
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Send, 1);
  expect_error(verify(testing::tampered(plan, 0, victim, with_units({{2, 3}, {13, 14}}))),
               {"rank 0 op", "sends chunk 13 (slice 0, block 13), which it does not hold yet"});
}

TEST_F(BrokenAlltoallBruck, BlocksInADifferentOrderThanTheReceiverExpects) {
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Send, 1);
  expect_error(verify(testing::tampered(plan, 0, victim, with_units({{14, 15}, {2, 3}}))),
               {"rank 2 op", "expects chunk 2 (slice 0, block 2) but the send carries chunk 14"});
}

// n = 5: rank 0 knows {0} in round 0, {0, 4} in round 1, {0, 2, 3, 4} in round 2.
class BrokenBarrierDissemination : public ::testing::Test {
 protected:
  Plan plan = make_plan(spec_of(Collective::Barrier, "dissemination", 5, 0));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenBarrierDissemination, PassingOnAnArrivalNotYetHeardOf) {
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 0, victim, with_units({{0, 2}}))),
               {"rank 0 op", "sends chunk 1 (slice 0, block 1), which it does not hold yet"});
}

TEST_F(BrokenBarrierDissemination, AReceiveThatForgetsAnArrival) {
  // Rank 2's round-1 receive (from rank 0) omits arrival 4.
  const goal::LocalOp victim = testing::nth_op(good, 2, goal::OpKind::Recv, 1);
  expect_error(verify(testing::tampered(plan, 2, victim, with_units({{0, 1}}))),
               {"rank 2 op", "the send carries more chunks than the receive expects (chunk 4 (slice 0, block 4))"});
}

// n = 3, one slice: unit s is rank s's buffer.
class BrokenSendrecv : public ::testing::Test {
 protected:
  Plan plan = make_plan(spec_of(Collective::SendRecv, "direct", 3, 3000));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenSendrecv, AReceiveThatReducesIntoAnAbsentBuffer) {
  const goal::LocalOp victim = testing::nth_op(good, 1, goal::OpKind::Recv, 0);
  expect_error(verify(testing::tampered(plan, 1, victim, with_action(DataAction::Reduce))),
               {"rank 1 op", "reduces into chunk 0 (slice 0, block 0), which the receiver does not hold"});
}

TEST_F(BrokenSendrecv, AReceiveFromTheWrongSide) {
  // Rank 0 expects its own successor's buffer (1) instead of its predecessor's (2).
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Recv, 0);
  expect_error(verify(testing::tampered(plan, 0, victim, with_units({{1, 2}}))),
               {"rank 0 op", "expects chunk 1 (slice 0, block 1) but the send carries chunk 2"});
}

}  // namespace
}  // namespace collsim::collectives
