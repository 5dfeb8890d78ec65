// The rooted family: binomial-tree and pipelined-chain broadcast and reduce.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "collective_test_util.hpp"

namespace collsim::collectives {
namespace {

using testing::ceil_log2;
using testing::drop;
using testing::expect_error;
using testing::peers_of;

using testing::spec_of;

struct Rooted {
  Collective collective;
  const char* name;
};
const Rooted kBinomialBroadcast{Collective::Broadcast, "binomial_tree"};
const Rooted kChainBroadcast{Collective::Broadcast, "pipelined_chain"};
const Rooted kBinomialReduce{Collective::Reduce, "binomial_tree"};
const Rooted kChainReduce{Collective::Reduce, "pipelined_chain"};
const Rooted kAllRooted[] = {kBinomialBroadcast, kChainBroadcast, kBinomialReduce, kChainReduce};

std::string label(const Rooted& a) { return std::string(to_string(a.collective)) + " " + a.name; }

CollectiveSpec rooted_spec(const Rooted& a, std::uint32_t n, std::uint64_t bytes, std::uint32_t root,
                           std::uint32_t channels = 1, std::uint64_t chunk = 0) {
  CollectiveSpec spec = spec_of(a.collective, a.name, n, bytes);
  spec.root = root;
  spec.channels = channels;
  spec.chunk_bytes = chunk;
  spec.protocol = Protocol::Simple;
  return spec;
}

// Per-rank receives and bytes received (traffic_of counts the sending side).
std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t total = 0;
  for (std::uint64_t x : v) total += x;
  return total;
}

// --- every plan verifies ------------------------------------------------------------------

TEST(RootedAlgorithms, VerifyForEveryRankCountSizeChannelCountAndChunk) {
  const std::uint64_t sizes[] = {0, 1, 1000003, std::uint64_t{1} << 20};
  for (const Rooted& a : kAllRooted)
    for (std::uint32_t n : testing::kRankCounts)
      for (std::uint64_t bytes : sizes)
        for (std::uint32_t channels : {1u, 2u})
          for (std::uint64_t chunk : {std::uint64_t{0}, std::uint64_t{64} << 10})
            for (std::uint32_t root : {0u, n / 2, n - 1}) {
              const VerifyReport report = verify(generate_annotated(rooted_spec(a, n, bytes, root, channels, chunk)));
              EXPECT_TRUE(report.ok) << label(a) << " n=" << n << " bytes=" << bytes << " channels=" << channels
                                     << " chunk=" << chunk << " root=" << root << ": " << report.error;
            }
}

TEST(RootedAlgorithms, VerifyForEveryRoot) {
  for (const Rooted& a : kAllRooted)
    for (std::uint32_t n : {1u, 2u, 3u, 5u, 8u})
      for (std::uint32_t root = 0; root < n; ++root)
        for (std::uint32_t channels : {1u, 2u}) {
          const VerifyReport report = verify(generate_annotated(rooted_spec(a, n, 10000, root, channels, 1000)));
          EXPECT_TRUE(report.ok) << label(a) << " n=" << n << " root=" << root << " channels=" << channels << ": "
                                 << report.error;
        }
}

TEST(RootedAlgorithms, VerifyOnASubsetOfTheSchedulesRanksAndWithEveryProtocol) {
  for (const Rooted& a : kAllRooted)
    for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
      CollectiveSpec spec = rooted_spec(a, 10, 100000, 2, 2, 4096);
      spec.group = {5, 2, 7, 9, 0};
      spec.protocol = p;
      const VerifyReport report = verify(generate_annotated(spec));
      EXPECT_TRUE(report.ok) << label(a) << " " << to_string(p) << ": " << report.error;
    }
}

TEST(RootedAlgorithms, AutoBroadcastAndReduceVerify) {
  for (Collective c : {Collective::Broadcast, Collective::Reduce}) {
    CollectiveSpec spec = spec_of(c, "auto", 6, 1 << 20);
    spec.root = 4;
    const VerifyReport report = verify(generate_annotated(spec));
    EXPECT_TRUE(report.ok) << to_string(c) << ": " << report.error;
  }
}

TEST(RootedAlgorithms, OneRankSendsNothing) {
  for (const Rooted& a : kAllRooted) {
    const goal::Schedule s = generate(rooted_spec(a, 1, 4096, 0));
    EXPECT_EQ(testing::traffic_of(s).messages[0], 0u) << label(a);
    EXPECT_EQ(testing::traffic_of(s, goal::OpKind::Recv).messages[0], 0u) << label(a);
  }
}

TEST(RootedAlgorithms, EachChannelMovesOnlyItsOwnSlicesWithItsOwnTagAndCpu) {
  for (const Rooted& a : kAllRooted) {
    CollectiveSpec spec = rooted_spec(a, 7, 3 * 5 * 1000, 3, 3, 1000);  // 5 pipeline steps per channel
    spec.tag = 40;
    const AnnotatedSchedule as = generate_annotated(spec);
    ASSERT_EQ(as.plan.slices, 15u) << label(a);
    for (goal::RankId r = 0; r < 7; ++r) {
      const goal::RankOps ops = as.schedule.rank(r);
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        if (ops.kind(i) == goal::OpKind::Calc) continue;
        const std::uint32_t channel = ops.tag(i) - 40;
        ASSERT_LT(channel, 3u) << label(a);
        EXPECT_EQ(ops.cpu(i), channel) << label(a);
        for (const UnitRange& u : as.annotations.units_of(ops.first_global_op() + i)) {
          EXPECT_GE(u.begin, channel * 5u) << label(a) << " rank " << r << " op " << i;
          EXPECT_LE(u.end, channel * 5u + 5u) << label(a) << " rank " << r << " op " << i;
        }
      }
    }
  }
}

// --- textbook message counts (Simple, one channel, one chunk unless said) --------------

TEST(BinomialBroadcast, RootSendsCeilLog2NAndEveryOtherRankReceivesOnce) {
  for (std::uint32_t n : {2u, 3u, 5u, 8u, 33u})
    for (std::uint32_t root : {0u, n / 3, n - 1}) {
      const std::uint64_t bytes = std::uint64_t{n} * 4096;
      const goal::Schedule s = generate(rooted_spec(kBinomialBroadcast, n, bytes, root));
      const testing::RankTraffic sent = testing::traffic_of(s), got = testing::traffic_of(s, goal::OpKind::Recv);
      EXPECT_EQ(sent.messages[root], ceil_log2(n)) << "n=" << n << " root=" << root;
      EXPECT_EQ(sent.bytes[root], ceil_log2(n) * bytes) << "n=" << n << " root=" << root;
      for (goal::RankId r = 0; r < n; ++r) {
        EXPECT_EQ(got.messages[r], r == root ? 0u : 1u) << "n=" << n << " root=" << root << " rank " << r;
        EXPECT_EQ(got.bytes[r], r == root ? 0u : bytes) << "n=" << n << " root=" << root << " rank " << r;
      }
      EXPECT_EQ(sum(sent.messages), n - 1u) << "n=" << n;
      EXPECT_EQ(sum(sent.bytes), (n - 1u) * bytes) << "n=" << n;
    }
}

TEST(BinomialBroadcast, FollowsTheMpichTreeLargestSubtreeFirst) {
  // n = 8, root 0: 0 -> 4, 2, 1; 4 -> 6, 5; 2 -> 3; 6 -> 7.
  goal::Schedule s = generate(rooted_spec(kBinomialBroadcast, 8, 8192, 0));
  EXPECT_EQ(testing::traffic_of(s).messages, (std::vector<std::uint64_t>{3, 0, 1, 0, 2, 0, 1, 0}));
  EXPECT_EQ(peers_of(s, 0, goal::OpKind::Send), (std::vector<goal::RankId>{4, 2, 1}));
  EXPECT_EQ(peers_of(s, 4, goal::OpKind::Send), (std::vector<goal::RankId>{6, 5}));
  EXPECT_EQ(peers_of(s, 7, goal::OpKind::Recv), (std::vector<goal::RankId>{6}));
  EXPECT_EQ(peers_of(s, 3, goal::OpKind::Recv), (std::vector<goal::RankId>{2}));
  // n = 5, root 2: relative ranks 0..4 are members 2, 3, 4, 0, 1; relative 0 -> 4, 2, 1 and 2 -> 3.
  s = generate(rooted_spec(kBinomialBroadcast, 5, 8192, 2));
  EXPECT_EQ(testing::traffic_of(s).messages, (std::vector<std::uint64_t>{0, 0, 3, 0, 1}));
  EXPECT_EQ(peers_of(s, 2, goal::OpKind::Send), (std::vector<goal::RankId>{1, 4, 3}));
  EXPECT_EQ(peers_of(s, 4, goal::OpKind::Send), (std::vector<goal::RankId>{0}));
}

TEST(PipelinedChain, EveryRankButTheLastForwardsEveryChunkOnce) {
  for (std::uint32_t n : {2u, 3u, 5u, 8u, 33u})
    for (std::uint32_t root : {0u, n / 3, n - 1})
      for (std::uint64_t steps : {1u, 4u}) {
        const std::uint64_t bytes = std::uint64_t{n} * 4096;
        const goal::Schedule s = generate(rooted_spec(kChainBroadcast, n, bytes, root, 1, bytes / steps));
        const testing::RankTraffic sent = testing::traffic_of(s), got = testing::traffic_of(s, goal::OpKind::Recv);
        const goal::RankId last = (root + n - 1) % n;
        for (goal::RankId r = 0; r < n; ++r) {
          EXPECT_EQ(sent.messages[r], r == last ? 0u : steps) << "n=" << n << " root=" << root << " rank " << r;
          EXPECT_EQ(got.messages[r], r == root ? 0u : steps) << "n=" << n << " root=" << root << " rank " << r;
          EXPECT_EQ(got.bytes[r], r == root ? 0u : bytes) << "n=" << n << " root=" << root << " rank " << r;
          for (goal::RankId peer : peers_of(s, r, goal::OpKind::Send)) {
            EXPECT_EQ(peer, (r + 1) % n);
          }
        }
        EXPECT_EQ(sum(sent.bytes), (n - 1u) * bytes) << "n=" << n;
      }
}

TEST(PipelinedChain, ReduceRunsFromTheRootsSuccessorAroundToTheRoot) {
  for (std::uint32_t n : {2u, 3u, 5u, 8u, 33u})
    for (std::uint32_t root : {0u, n / 3, n - 1})
      for (std::uint64_t steps : {1u, 4u}) {
        const std::uint64_t bytes = std::uint64_t{n} * 4096;
        const goal::Schedule s = generate(rooted_spec(kChainReduce, n, bytes, root, 1, bytes / steps));
        const testing::RankTraffic sent = testing::traffic_of(s), got = testing::traffic_of(s, goal::OpKind::Recv);
        const goal::RankId first = (root + 1) % n;
        for (goal::RankId r = 0; r < n; ++r) {
          EXPECT_EQ(sent.messages[r], r == root ? 0u : steps) << "n=" << n << " root=" << root << " rank " << r;
          EXPECT_EQ(got.messages[r], r == first ? 0u : steps) << "n=" << n << " root=" << root << " rank " << r;
          EXPECT_EQ(got.bytes[r], r == first ? 0u : bytes) << "n=" << n << " root=" << root << " rank " << r;
          for (goal::RankId peer : peers_of(s, r, goal::OpKind::Send)) {
            EXPECT_EQ(peer, (r + 1) % n);
          }
        }
        EXPECT_EQ(sum(sent.bytes), (n - 1u) * bytes) << "n=" << n;
      }
}

TEST(PipelinedChain, ChunksAreOneStepOfNcclsBuffer) {
  // BROADCAST_CHUNKSTEPS = REDUCE_CHUNKSTEPS = 1: a quarter of the ring's 4-step chunk
  // (Simple 2 MiB -> 512 KiB); LL's protocol chunk is already one step.
  for (const Rooted& a : {kChainBroadcast, kChainReduce}) {
    CollectiveSpec spec = rooted_spec(a, 8, 64 << 20, 0);
    EXPECT_EQ(make_plan(spec).chunk_bytes, 512u << 10) << label(a);
    spec.protocol = Protocol::LL;
    EXPECT_EQ(make_plan(spec).chunk_bytes, protocol_costs(Protocol::LL).chunk_bytes) << label(a);
  }
}

TEST(PipelinedChain, NcclsTuningRunsReduceAndBroadcastAsChains) {
  for (Collective c : {Collective::Broadcast, Collective::Reduce}) {
    CollectiveSpec spec = spec_of(c, "auto", 8, 64 << 20);
    EXPECT_EQ(make_plan(spec).algorithm, "pipelined_chain") << to_string(c);
  }
}

TEST(BinomialReduce, EveryOtherRankSendsOnceAndTheRootReceivesCeilLog2N) {
  for (std::uint32_t n : {2u, 3u, 5u, 8u, 33u})
    for (std::uint32_t root : {0u, n / 3, n - 1}) {
      const std::uint64_t bytes = std::uint64_t{n} * 4096;
      const goal::Schedule s = generate(rooted_spec(kBinomialReduce, n, bytes, root));
      const testing::RankTraffic sent = testing::traffic_of(s), got = testing::traffic_of(s, goal::OpKind::Recv);
      for (goal::RankId r = 0; r < n; ++r) {
        EXPECT_EQ(sent.messages[r], r == root ? 0u : 1u) << "n=" << n << " root=" << root << " rank " << r;
        EXPECT_EQ(sent.bytes[r], r == root ? 0u : bytes) << "n=" << n << " root=" << root << " rank " << r;
      }
      EXPECT_EQ(got.messages[root], ceil_log2(n)) << "n=" << n << " root=" << root;
      EXPECT_EQ(sum(sent.messages), n - 1u) << "n=" << n;
      EXPECT_EQ(sum(got.bytes), (n - 1u) * bytes) << "n=" << n;
    }
}

TEST(BinomialReduce, MirrorsTheBroadcastTreeSmallestSubtreeFirst) {
  // n = 8, root 0: 0 <- 1, 2, 4; 4 <- 5, 6; 2 <- 3; 6 <- 7.
  const goal::Schedule s = generate(rooted_spec(kBinomialReduce, 8, 8192, 0));
  EXPECT_EQ(testing::traffic_of(s, goal::OpKind::Recv).messages, (std::vector<std::uint64_t>{3, 0, 1, 0, 2, 0, 1, 0}));
  EXPECT_EQ(peers_of(s, 0, goal::OpKind::Recv), (std::vector<goal::RankId>{1, 2, 4}));
  EXPECT_EQ(peers_of(s, 4, goal::OpKind::Recv), (std::vector<goal::RankId>{5, 6}));
  const goal::RankId parent[] = {0, 0, 0, 2, 0, 4, 4, 6};
  for (goal::RankId r = 1; r < 8; ++r) {
    EXPECT_EQ(peers_of(s, r, goal::OpKind::Send), (std::vector<goal::RankId>{parent[r]})) << "rank " << r;
  }
}

TEST(RootedAlgorithms, ChunksAndChannelsMultiplyTheMessagesNotTheBytes) {
  const std::uint32_t n = 5;
  const std::uint64_t bytes = 2 * 3 * 4096;  // 2 channels x 3 chunks of 4096
  for (const Rooted& a : kAllRooted) {
    const testing::RankTraffic one = testing::traffic_of(generate(rooted_spec(a, n, bytes, 1)));
    const goal::Schedule s = generate(rooted_spec(a, n, bytes, 1, 2, 4096));
    const testing::RankTraffic six = testing::traffic_of(s);
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(six.messages[r], 6 * one.messages[r]) << label(a) << " rank " << r;
      EXPECT_EQ(six.bytes[r], one.bytes[r]) << label(a) << " rank " << r;
      const goal::RankOps ops = s.rank(r);
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
        if (ops.kind(i) != goal::OpKind::Calc) {
          EXPECT_EQ(ops.size(i), 4096u) << label(a) << " rank " << r;
        }
    }
  }
}

TEST(RootedAlgorithms, ForwardEachChunkAsSoonAsItArrives) {
  // Rank 4's k-th send waits for its k-th receive (broadcasts) or for the k-th slice's
  // reductions (reduce), not for the whole buffer.
  for (const Rooted& a : kAllRooted) {
    CollectiveSpec spec = rooted_spec(a, 8, 4 * 1000, 0, 1, 1000);
    spec.step = SimTime::zero();
    spec.launch = SimTime::zero();
    spec.reduce_bytes_per_ns = 0;
    const goal::Schedule s = generate(spec);
    const goal::RankOps ops = s.rank(4);
    std::vector<goal::LocalOp> sends, recvs;
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      if (ops.kind(i) == goal::OpKind::Send) sends.push_back(i);
      if (ops.kind(i) == goal::OpKind::Recv) recvs.push_back(i);
    }
    const std::size_t per_slice_sends = sends.size() / 4, per_slice_recvs = recvs.size() / 4;
    ASSERT_GT(per_slice_sends, 0u) << label(a);
    ASSERT_GT(per_slice_recvs, 0u) << label(a);
    for (std::size_t k = 0; k < 4; ++k) {
      const auto req = ops.requires_of(sends[k * per_slice_sends]);
      for (std::size_t j = 0; j < per_slice_recvs; ++j) {
        EXPECT_NE(std::find(req.begin(), req.end(), recvs[k * per_slice_recvs + j]), req.end())
            << label(a) << " slice " << k;
      }
      for (std::uint32_t p : req) {
        EXPECT_LT(p, k + 1 < 4 ? recvs[(k + 1) * per_slice_recvs] : ops.num_ops()) << label(a);
      }
    }
  }
}

// --- deliberately broken schedules ------------------------------------------------------

// n = 8, root 3, 2 chunks: relative ranks 0..7 are members 3, 4, 5, 6, 7, 0, 1, 2.
class BrokenBinomialBroadcast : public ::testing::Test {
 protected:
  Plan plan = make_plan(rooted_spec(kBinomialBroadcast, 8, 2 * 1024, 3, 1, 1024));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenBinomialBroadcast, ADroppedSendShiftsTheChunksTheChildReceives) {
  // The root's first send goes to relative 4 (member 7), which then gets chunk 1 first.
  const goal::LocalOp victim = testing::nth_op(good, 3, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 3, victim, drop)),
               {"rank 7 op", "expects chunk 0", "carries chunk 1"});
}

TEST_F(BrokenBinomialBroadcast, ACopyTurnedIntoAReduceHasNothingToReduceInto) {
  const goal::LocalOp victim = testing::nth_op(good, 5, goal::OpKind::Recv, 1);
  expect_error(verify(testing::tampered(plan, 5, victim, [](goal::Op&, Payload& p, auto&) {
                 p.action = DataAction::Reduce;
               })),
               {"rank 5 op", "reduces into chunk 1", "does not hold"});
}

TEST_F(BrokenBinomialBroadcast, AForwardToTheWrongPeerStarvesTheChild) {
  // Relative 6 (member 1) sends its first chunk to member 0 instead of its child member 2.
  const goal::LocalOp victim = testing::nth_op(good, 1, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 1, victim, [](goal::Op& op, Payload&, auto&) { op.peer = 0; })),
               {"rank 2 op", "expects chunk 0", "carries chunk 1"});
}

// n = 5, root 2, 3 chunks: the chain is 2 -> 3 -> 4 -> 0 -> 1.
class BrokenChain : public ::testing::Test {
 protected:
  Plan plan = make_plan(rooted_spec(kChainBroadcast, 5, 3 * 1024, 2, 1, 1024));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenChain, ADroppedForwardShiftsTheChunksDownstream) {
  const goal::LocalOp victim = testing::nth_op(good, 3, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 3, victim, drop)), {"rank 4 op", "expects chunk 0", "carries chunk 1"});
}

TEST_F(BrokenChain, AForwardToTheWrongPeerStarvesTheSuccessor) {
  // Member 3 sends its first chunk to 0 instead of 4; 4 then receives chunk 1 in its place.
  const goal::LocalOp victim = testing::nth_op(good, 3, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 3, victim, [](goal::Op& op, Payload&, auto&) { op.peer = 0; })),
               {"rank 4 op", "expects chunk 0", "carries chunk 1"});
}

TEST_F(BrokenChain, TheLastRankExpectingAnotherChunkIsNamed) {
  const goal::LocalOp victim = testing::nth_op(good, 1, goal::OpKind::Recv, 0);
  expect_error(verify(testing::tampered(plan, 1, victim, [](goal::Op&, Payload&, auto& units) {
                 units = {UnitRange{2, 3}};
               })),
               {"rank 1 op", "expects chunk 2", "carries chunk 0"});
}

// n = 5, root 2, 3 chunks: the reduce chain is 3 -> 4 -> 0 -> 1 -> 2.
class BrokenChainReduce : public ::testing::Test {
 protected:
  Plan plan = make_plan(rooted_spec(kChainReduce, 5, 3 * 1024, 2, 1, 1024));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenChainReduce, AReduceTurnedIntoACopyLosesTheUpstreamContributions) {
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Recv, 0);
  expect_error(verify(testing::tampered(plan, 0, victim, [](goal::Op&, Payload& p, auto&) {
                 p.action = DataAction::Copy;
               })),
               {"rank 2 chunk 0", "is missing"});
}

TEST_F(BrokenChainReduce, ASendSkippingARankIsCaught) {
  // Member 4 sends its first partial sum to 1 instead of 0; 0 then receives chunk 1 in its place.
  const goal::LocalOp victim = testing::nth_op(good, 4, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 4, victim, [](goal::Op& op, Payload&, auto&) { op.peer = 1; })),
               {"rank 0 op", "expects chunk 0", "carries chunk 1"});
}

// n = 8, root 5, 2 chunks: relative ranks 0..7 are members 5, 6, 7, 0, 1, 2, 3, 4; the root
// reduces from 6, 7, 1 in that order.
class BrokenBinomialReduce : public ::testing::Test {
 protected:
  Plan plan = make_plan(rooted_spec(kBinomialReduce, 8, 2 * 1024, 5, 1, 1024));
  goal::Schedule good = generate(plan);
};

TEST_F(BrokenBinomialReduce, AReduceTurnedIntoACopyLosesContributions) {
  const goal::LocalOp victim = testing::nth_op(good, 5, goal::OpKind::Recv, 2);
  expect_error(verify(testing::tampered(plan, 5, victim, [](goal::Op&, Payload& p, auto&) {
                 p.action = DataAction::Copy;
               })),
               {"rank 5 chunk 0", "is missing"});
}

TEST_F(BrokenBinomialReduce, ALeafSendingTheWrongChunkIsNamed) {
  const goal::LocalOp victim = testing::nth_op(good, 6, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 6, victim, [](goal::Op&, Payload&, auto& units) {
                 units = {UnitRange{1, 2}};
               })),
               {"rank 5 op", "expects chunk 0", "carries chunk 1"});
}

TEST_F(BrokenBinomialReduce, ASendToTheWrongParentIsCaught) {
  // Relative 3 (member 0) sends its first chunk to the root instead of relative 2 (member 7),
  // which then receives chunk 1 in its place.
  const goal::LocalOp victim = testing::nth_op(good, 0, goal::OpKind::Send, 0);
  expect_error(verify(testing::tampered(plan, 0, victim, [](goal::Op& op, Payload&, auto&) { op.peer = 5; })),
               {"rank 7 op", "expects chunk 0", "carries chunk 1"});
}

}  // namespace
}  // namespace collsim::collectives
