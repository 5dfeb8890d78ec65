// The gather_scatter family: allgather ring, recursive_doubling and bruck; reduce_scatter
// ring and recursive_halving.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collective_test_util.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

using testing::ceil_log2;
using testing::drop;
using testing::expect_error;

using testing::generate_and_verify;
using testing::spec_of;

struct GatherScatterCase {
  Collective collective;
  const char* algorithm;
  bool pipelined;  // cuts its messages to plan.chunk_bytes
};

std::string gather_scatter_name(const ::testing::TestParamInfo<GatherScatterCase>& info) {
  return std::string(to_string(info.param.collective)) + "_" + info.param.algorithm;
}

class GatherScatterAlgorithm : public ::testing::TestWithParam<GatherScatterCase> {};

TEST_P(GatherScatterAlgorithm, VerifiesForEveryRankCountSizeAndChannelCount) {
  const GatherScatterCase& a = GetParam();
  ASSERT_NE(find_algorithm(a.collective, a.algorithm), nullptr);
  std::vector<std::uint64_t> chunks = {0};  // the protocol's
  if (a.pipelined) chunks.push_back(16384);
  for (std::uint32_t n : testing::kRankCounts)
    for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000003}, std::uint64_t{1} << 20})
      for (std::uint32_t channels : {1u, 2u})
        for (std::uint64_t chunk : chunks) {
          // A chunk that holds a whole block per channel repeats the default chunk's schedule.
          if (chunk != 0 && bytes <= std::uint64_t{n} * channels * chunk) continue;
          CollectiveSpec spec = spec_of(a.collective, a.algorithm, n, bytes);
          spec.channels = channels;
          spec.chunk_bytes = chunk;
          const VerifyReport report = generate_and_verify(spec);
          EXPECT_TRUE(report.ok) << "n=" << n << " bytes=" << bytes << " channels=" << channels << " chunk=" << chunk
                                 << ": " << report.error;
        }
}

TEST_P(GatherScatterAlgorithm, RunsOnAnySubsetOfTheSchedulesRanks) {
  const GatherScatterCase& a = GetParam();
  CollectiveSpec spec = spec_of(a.collective, a.algorithm, 12, 5 * 3000);
  spec.group = {9, 2, 7, 0, 11};
  const AnnotatedSchedule s = generate_annotated(spec);
  EXPECT_EQ(s.schedule.rank(1).num_ops(), 0u);
  const VerifyReport report = verify(s);
  EXPECT_TRUE(report.ok) << report.error;
}

INSTANTIATE_TEST_SUITE_P(GatherScatter, GatherScatterAlgorithm,
                         ::testing::Values(GatherScatterCase{Collective::Allgather, "ring", true},
                                           GatherScatterCase{Collective::Allgather, "recursive_doubling", false},
                                           GatherScatterCase{Collective::Allgather, "bruck", false},
                                           GatherScatterCase{Collective::ReduceScatter, "ring", true},
                                           GatherScatterCase{Collective::ReduceScatter, "recursive_halving", false}),
                         gather_scatter_name);

// --- textbook message counts and bytes (Simple, one channel, one pipeline step) ----------

// Every rank's sends and bytes for S = n * 4096, so that blocks are S/n = 4096 bytes.
testing::RankTraffic traffic(Collective c, const char* algorithm, std::uint32_t n) {
  CollectiveSpec spec = spec_of(c, algorithm, n, std::uint64_t{n} * 4096);
  spec.protocol = Protocol::Simple;
  return testing::traffic_of(generate(spec));
}

TEST(GatherScatterTraffic, RingsSendNMinusOneMessagesOfSOverN) {
  for (Collective c : {Collective::Allgather, Collective::ReduceScatter})
    for (std::uint32_t n : {2u, 3u, 5u, 8u, 33u}) {
      const testing::RankTraffic t = traffic(c, "ring", n);
      for (goal::RankId r = 0; r < n; ++r) {
        EXPECT_EQ(t.messages[r], n - 1) << to_string(c) << " n=" << n << " rank " << r;
        EXPECT_EQ(t.bytes[r], (n - 1) * 4096u) << to_string(c) << " n=" << n << " rank " << r;
      }
    }
}

TEST(GatherScatterTraffic, RecursiveDoublingAndHalvingOnPowersOfTwoSendLogNMessagesAndSTimesNMinusOneOverN) {
  for (auto [c, algorithm] : {std::pair{Collective::Allgather, "recursive_doubling"},
                              std::pair{Collective::ReduceScatter, "recursive_halving"}})
    for (std::uint32_t k : {1u, 2u, 3u, 4u, 6u}) {
      const std::uint32_t n = 1u << k;
      const testing::RankTraffic t = traffic(c, algorithm, n);
      for (goal::RankId r = 0; r < n; ++r) {
        EXPECT_EQ(t.messages[r], k) << algorithm << " n=" << n << " rank " << r;
        EXPECT_EQ(t.bytes[r], (n - 1) * 4096u) << algorithm << " n=" << n << " rank " << r;
      }
    }
}

TEST(GatherScatterTraffic, BruckSendsCeilLogNMessagesAndSTimesNMinusOneOverNForAnyN) {
  for (std::uint32_t n : {2u, 3u, 5u, 6u, 7u, 8u, 33u, 64u}) {
    const testing::RankTraffic t = traffic(Collective::Allgather, "bruck", n);
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(t.messages[r], ceil_log2(n)) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], (n - 1) * 4096u) << "n=" << n << " rank " << r;
    }
  }
}

// n = 6 folds extras 4 and 5 into core ranks 0 and 1, which answer for blocks {0,4} and {1,5}.
TEST(GatherScatterTraffic, RecursiveDoublingFoldsSixRanksIntoFour) {
  const testing::RankTraffic t = traffic(Collective::Allgather, "recursive_doubling", 6);
  // Core 0 and 1: {own, extra's} = 2 blocks, then 4 blocks of the pair, then 5 to the extra.
  // Core 2 and 3: 1 block, then 2. Extras: their block.
  const std::vector<std::uint64_t> messages = {3, 3, 2, 2, 1, 1}, blocks = {11, 11, 3, 3, 1, 1};
  for (goal::RankId r = 0; r < 6; ++r) {
    EXPECT_EQ(t.messages[r], messages[r]) << "rank " << r;
    EXPECT_EQ(t.bytes[r], blocks[r] * 4096) << "rank " << r;
  }
}

TEST(GatherScatterTraffic, RecursiveHalvingFoldsSixRanksIntoFour) {
  const testing::RankTraffic t = traffic(Collective::ReduceScatter, "recursive_halving", 6);
  // Core 0: blocks {2,3}, then {1,5}, then block 4 to its extra; core 1: {2,3}, {0,4}, 5.
  // Core 2: {0,1,4,5}, then {3}; core 3: {0,1,4,5}, then {2}. Extras: all 6 blocks.
  const std::vector<std::uint64_t> messages = {3, 3, 2, 2, 1, 1}, blocks = {5, 5, 5, 5, 6, 6};
  for (goal::RankId r = 0; r < 6; ++r) {
    EXPECT_EQ(t.messages[r], messages[r]) << "rank " << r;
    EXPECT_EQ(t.bytes[r], blocks[r] * 4096) << "rank " << r;
  }
}

TEST(GatherScatterTraffic, RingChannelsAndChunksMultiplyTheMessagesAndBoundTheirSize) {
  for (Collective c : {Collective::Allgather, Collective::ReduceScatter}) {
    CollectiveSpec spec = spec_of(c, "ring", 5, 5 * 3 * 2 * 1024);
    spec.channels = 3;
    spec.chunk_bytes = 1024;  // a block of 6 KiB: 2 pipeline steps per channel
    spec.protocol = Protocol::Simple;
    const AnnotatedSchedule a = generate_annotated(spec);
    EXPECT_EQ(a.plan.slices, 3u * 2);
    const testing::RankTraffic t = testing::traffic_of(a.schedule);
    for (goal::RankId r = 0; r < 5; ++r) {
      EXPECT_EQ(t.messages[r], 4u * 3 * 2) << to_string(c) << " rank " << r;
      EXPECT_EQ(t.bytes[r], 4u * 3 * 2 * 1024) << to_string(c) << " rank " << r;
    }
    const VerifyReport report = verify(a);
    EXPECT_TRUE(report.ok) << report.error;
    const goal::RankOps ops = a.schedule.rank(2);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
      if (ops.kind(i) != goal::OpKind::Calc) {
        EXPECT_EQ(ops.tag(i), ops.cpu(i));
        EXPECT_EQ(ops.size(i), 1024u);
      }
  }
}

TEST(GatherScatterTraffic, EveryAllgatherSendsEachForeignBlockToEveryRankOnceWhateverTheRounding) {
  const std::uint32_t n = 7;
  const std::uint64_t bytes = 1000003, block = bytes / n;
  for (const char* algorithm : {"ring", "bruck"}) {
    const testing::RankTraffic t = testing::traffic_of(generate(spec_of(Collective::Allgather, algorithm, n, bytes)));
    std::uint64_t total = 0;
    for (std::uint64_t b : t.bytes) total += b;
    EXPECT_EQ(total, std::uint64_t{n} * (n - 1) * block) << algorithm;
  }
}

// --- deliberately broken schedules ---------------------------------------------------------

AnnotatedSchedule broken(Collective c, const char* algorithm, std::uint32_t n, goal::RankId rank, goal::OpKind kind,
                         std::uint32_t nth, const testing::TamperingSink::Tamper& tamper) {
  const Plan plan = make_plan(spec_of(c, algorithm, n, std::uint64_t{n} * 1024));
  const goal::LocalOp victim = testing::nth_op(generate(plan), rank, kind, nth);
  return testing::tampered(plan, rank, victim, tamper);
}

TEST(BrokenAllgatherRing, ADroppedStepShiftsTheBlocksThatFollow) {
  // Rank 2 then receives block 0 (rank 1's second send) where it expects block 1.
  expect_error(verify(broken(Collective::Allgather, "ring", 4, 1, goal::OpKind::Send, 0, drop)),
               {"rank 2 op", "expects chunk 1", "carries chunk 0"});
}

TEST(BrokenAllgatherRing, AReduceInPlaceOfACopyTouchesABlockNotYetHeld) {
  // Rank 2's second receive brings block 0.
  expect_error(verify(broken(Collective::Allgather, "ring", 4, 2, goal::OpKind::Recv, 1,
                             [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Reduce; })),
               {"rank 2 op", "reduces into chunk 0", "does not hold"});
}

TEST(BrokenAllgatherRecursiveDoubling, ReceivingOnesOwnHalfInPlaceOfThePartnersIsCaught) {
  // Rank 3's second round exchanges {2,3} for {0,1} with rank 1.
  expect_error(verify(broken(Collective::Allgather, "recursive_doubling", 8, 3, goal::OpKind::Recv, 1,
                             [](goal::Op&, Payload&, auto& units) { units = {UnitRange{2, 4}}; })),
               {"rank 3 op", "expects chunk 2", "carries chunk 0"});
}

TEST(BrokenAllgatherRecursiveDoubling, ACoreRankThatForgetsItsExtrasBlockIsCaught) {
  // n = 6: core 1 sends {1, 5} to core 0 in the first round; it leaves out block 5.
  expect_error(verify(broken(Collective::Allgather, "recursive_doubling", 6, 1, goal::OpKind::Send, 0,
                             [](goal::Op&, Payload&, auto& units) { units = {UnitRange{1, 2}}; })),
               {"rank 0 op", "expects chunk 5", "does not carry"});
}

TEST(BrokenAllgatherBruck, AMessageThatLosesItsWrappedBlocksIsCaught) {
  // n = 5, round 1: rank 4 sends blocks 4 and 0 (wrapping) to rank 2; it leaves out block 0.
  expect_error(verify(broken(Collective::Allgather, "bruck", 5, 4, goal::OpKind::Send, 1,
                             [](goal::Op&, Payload&, auto& units) { units.resize(1); })),
               {"rank 2 op", "expects chunk 0", "does not carry"});
}

TEST(BrokenAllgatherBruck, ReceivingFromTheWrongDirectionIsCaught) {
  // Round 0: rank 0 receives block 1 from rank 1; this receive expects block 4 instead.
  expect_error(verify(broken(Collective::Allgather, "bruck", 5, 0, goal::OpKind::Recv, 0,
                             [](goal::Op&, Payload&, auto& units) { units = {UnitRange{4, 5}}; })),
               {"rank 0 op", "expects chunk 4", "carries chunk 1"});
}

TEST(BrokenReduceScatterRing, ACopyThatShouldReduceLosesAContribution) {
  // Rank 0's first receive is block 2 from rank 3; copying it drops rank 0's part, which
  // rank 2 misses at the end.
  expect_error(verify(broken(Collective::ReduceScatter, "ring", 4, 0, goal::OpKind::Recv, 0,
                             [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Copy; })),
               {"rank 2 chunk 2", "contribution of rank 0 is missing"});
}

TEST(BrokenReduceScatterRing, SendingTheWrongBlockIsCaught) {
  // Rank 1 starts with block 0; here it sends its own block 1.
  expect_error(verify(broken(Collective::ReduceScatter, "ring", 4, 1, goal::OpKind::Send, 0,
                             [](goal::Op&, Payload&, auto& units) { units = {UnitRange{1, 2}}; })),
               {"rank 2 op", "expects chunk 0", "carries chunk 1"});
}

TEST(BrokenReduceScatterRecursiveHalving, SendingTheKeptHalfIsCaught) {
  // n = 8, round 0: rank 0 keeps blocks 0..3 and sends 4..7 to rank 4.
  expect_error(verify(broken(Collective::ReduceScatter, "recursive_halving", 8, 0, goal::OpKind::Send, 0,
                             [](goal::Op&, Payload&, auto& units) { units = {UnitRange{0, 4}}; })),
               {"rank 4 op", "expects chunk 4", "carries chunk 0"});
}

TEST(BrokenReduceScatterRecursiveHalving, AnExtraThatReducesItsResultCountsItselfTwice) {
  // n = 6: extra 4 gets block 4 complete from core 0 and must copy it.
  expect_error(verify(broken(Collective::ReduceScatter, "recursive_halving", 6, 4, goal::OpKind::Recv, 0,
                             [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Reduce; })),
               {"rank 4 op", "chunk 4", "contribution of rank 4 twice"});
}

}  // namespace
}  // namespace collsim::collectives
