// The allreduce family beyond the ring: double binary tree, recursive doubling, Rabenseifner
// and the hierarchical (2D) allreduce. Every one must verify for any group size, and its
// traffic must match the textbook counts worked out by hand below.

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "collective_test_util.hpp"

namespace collsim::collectives {
namespace {

using testing::drop;
using testing::expect_error;

using testing::generate_and_verify;
using testing::spec_of;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

CollectiveSpec allreduce(const std::string& algorithm, std::uint32_t n, std::uint64_t bytes,
                         std::uint32_t ranks_per_node = 1) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, algorithm, n, bytes);
  spec.protocol = Protocol::Simple;
  spec.ranks_per_node = ranks_per_node;
  // The tree's channels are NCCL's: one pair of them runs both trees.
  if (algorithm == "double_binary_tree") spec.channels = 2;
  return spec;
}

// Every rank count with the given sizes and channel counts, with a chunk small enough that the
// megabyte takes several pipeline steps.
void expect_verifies(const std::string& algorithm, std::uint32_t ranks_per_node,
                     const std::vector<std::uint64_t>& sizes, const std::vector<std::uint32_t>& channel_counts) {
  for (std::uint32_t n : testing::kRankCounts)
    for (std::uint64_t bytes : sizes)
      for (std::uint32_t channels : channel_counts) {
        CollectiveSpec spec = allreduce(algorithm, n, bytes, ranks_per_node);
        spec.channels = channels;
        spec.chunk_bytes = 256 * 1024;
        const VerifyReport report = generate_and_verify(spec);
        EXPECT_TRUE(report.ok) << algorithm << " n=" << n << " p=" << ranks_per_node << " bytes=" << bytes
                               << " channels=" << channels << ": " << report.error;
      }
}
// Sizes 0, 1, odd and a megabyte; one and two channels.
void expect_verifies_everywhere(const std::string& algorithm, std::uint32_t ranks_per_node = 1) {
  expect_verifies(algorithm, ranks_per_node, {0, 1, 1000003, kMiB}, {1, 2});
}

struct Traffic {
  std::vector<std::uint64_t> messages, bytes;
};
Traffic traffic(const CollectiveSpec& spec) {
  const testing::RankTraffic t = testing::traffic_of(generate(spec));
  return {t.messages, t.bytes};
}

std::uint32_t log2_of(std::uint32_t pow2) { return static_cast<std::uint32_t>(std::countr_zero(pow2)); }

// --- every size verifies ---------------------------------------------------------------

TEST(DoubleBinaryTreeAllreduce, VerifiesForEveryRankCountSizeAndChannelCount) {
  // 1 and 3 channels leave the last pair a single tree.
  expect_verifies("double_binary_tree", 1, {0, 1, 1000003, kMiB}, {1, 2, 3, 4});
}

TEST(DoubleBinaryTreeAllreduce, VerifiesWithTreesOverNodes) {
  // 3 and 8 leave a smaller last node for most n; 2 and 4 are checked more briefly.
  for (std::uint32_t p : {3u, 8u}) expect_verifies_everywhere("double_binary_tree", p);
  for (std::uint32_t p : {2u, 4u}) expect_verifies("double_binary_tree", p, {1000003}, {2});
}

TEST(RecursiveDoublingAllreduce, VerifiesForEveryRankCountSizeAndChannelCount) {
  expect_verifies_everywhere("recursive_doubling");
}

TEST(RabenseifnerAllreduce, VerifiesForEveryRankCountSizeAndChannelCount) {
  expect_verifies_everywhere("rabenseifner");
}

TEST(HierarchicalAllreduce, VerifiesForEveryRankCountNodeSizeAndChannelCount) {
  // Nodes of 4 make grids for n = 4, 8, 16, 64, uneven nodes for 5, 7, 33 and one ring below;
  // nodes of 3 make grids for 3 and 33 only.
  for (std::uint32_t p : {3u, 4u}) expect_verifies_everywhere("hierarchical", p);
  // 1 and 64 are single rings.
  for (std::uint32_t p : {1u, 2u, 5u, 8u, 64u}) expect_verifies("hierarchical", p, {1000003}, {2});
}

TEST(AllreduceFamily, PipelinesInMessagesOfAtMostAChunk) {
  for (const std::string algorithm : {"double_binary_tree", "recursive_doubling", "rabenseifner", "hierarchical"})
    for (std::uint32_t p : {1u, 3u, 4u}) {
      CollectiveSpec spec = allreduce(algorithm, 12, kMiB, p);
      spec.channels = 2;
      spec.chunk_bytes = 16 * 1024;
      const AnnotatedSchedule a = generate_annotated(spec);
      const goal::Schedule& s = a.schedule;
      std::uint64_t largest = 0, sends = 0;
      for (goal::RankId r = 0; r < s.num_ranks(); ++r)
        for (goal::LocalOp i = 0; i < s.rank(r).num_ops(); ++i)
          if (s.rank(r).kind(i) == goal::OpKind::Send) {
            largest = std::max<std::uint64_t>(largest, s.rank(r).size(i));
            ++sends;
          }
      // The layout spreads the bytes left over by the division over the first slices, so a
      // message of several slices may carry a few bytes above the chunk.
      EXPECT_LE(largest, spec.chunk_bytes + 16) << algorithm << " p=" << p;
      // Pipelining cuts the megabyte into at least S / chunk messages somewhere.
      EXPECT_GE(sends, kMiB / spec.chunk_bytes) << algorithm << " p=" << p;
      const VerifyReport report = verify(a);
      EXPECT_TRUE(report.ok) << algorithm << " p=" << p << ": " << report.error;
    }
}

// --- textbook traffic ------------------------------------------------------------------

TEST(RecursiveDoublingAllreduce, SendsLog2NMessagesOfSOnPowersOfTwo) {
  for (std::uint32_t n : {2u, 4u, 8u, 16u, 64u}) {
    const std::uint64_t bytes = 3 * 4096;
    const Traffic t = traffic(allreduce("recursive_doubling", n, bytes));
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(t.messages[r], log2_of(n)) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], log2_of(n) * bytes) << "n=" << n << " rank " << r;
    }
  }
}

TEST(RecursiveDoublingAllreduce, FoldsTheExtraRanksIntoTheirOddNeighbours) {
  // n = pow2 + extra: ranks 0, 2, .., 2 extra - 2 send S once; their odd neighbours also
  // send the result back; everyone else runs log2(pow2) rounds.
  for (std::uint32_t n : {3u, 5u, 6u, 7u, 12u, 33u}) {
    const std::uint64_t bytes = 4096;
    const std::uint32_t pow2 = std::bit_floor(n), extra = n - pow2, rounds = log2_of(pow2);
    const Traffic t = traffic(allreduce("recursive_doubling", n, bytes));
    for (goal::RankId r = 0; r < n; ++r) {
      const std::uint64_t expected = r < 2 * extra ? (r % 2 == 0 ? 1 : rounds + 1) : rounds;
      EXPECT_EQ(t.messages[r], expected) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], expected * bytes) << "n=" << n << " rank " << r;
    }
  }
}

TEST(RabenseifnerAllreduce, SendsTwoLog2NMessagesAndTwoSNMinusOneOverNOnPowersOfTwo) {
  for (std::uint32_t n : {2u, 4u, 8u, 16u, 64u}) {
    const std::uint64_t bytes = std::uint64_t{n} * 1024;
    const Traffic t = traffic(allreduce("rabenseifner", n, bytes));
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(t.messages[r], 2u * log2_of(n)) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], 2 * bytes * (n - 1) / n) << "n=" << n << " rank " << r;
    }
  }
}

TEST(RabenseifnerAllreduce, FoldsTheExtraRanksIntoTheirOddNeighbours) {
  for (std::uint32_t n : {3u, 6u, 7u, 12u}) {
    const std::uint32_t pow2 = std::bit_floor(n), extra = n - pow2;
    const std::uint64_t bytes = std::uint64_t{pow2} * 1024;
    const std::uint64_t halving_and_doubling = 2 * bytes * (pow2 - 1) / pow2;
    const Traffic t = traffic(allreduce("rabenseifner", n, bytes));
    for (goal::RankId r = 0; r < n; ++r) {
      std::uint64_t messages = 2 * log2_of(pow2), sent = halving_and_doubling;
      if (r < 2 * extra && r % 2 == 0) {
        messages = 1;
        sent = bytes;
      } else if (r < 2 * extra) {
        messages += 1;
        sent += bytes;
      }
      EXPECT_EQ(t.messages[r], messages) << "n=" << n << " rank " << r;
      EXPECT_EQ(t.bytes[r], sent) << "n=" << n << " rank " << r;
    }
  }
}

TEST(DoubleBinaryTreeAllreduce, EveryEdgeCarriesHalfTheDataUpAndDownInEachTree) {
  // Each tree spans n ranks with n-1 edges; its half of the data crosses every edge once up
  // and once down, so all ranks together send 4(n-1) messages of S/2.
  for (std::uint32_t n : {2u, 3u, 5u, 6u, 7u, 8u, 16u, 33u, 64u})
    for (std::uint32_t p : {1u, 3u, 4u}) {
      const std::uint64_t bytes = 8192;
      const Traffic t = traffic(allreduce("double_binary_tree", n, bytes, p));
      std::uint64_t messages = 0, sent = 0, most = 0;
      for (goal::RankId r = 0; r < n; ++r) {
        messages += t.messages[r];
        sent += t.bytes[r];
        most = std::max(most, t.messages[r]);
      }
      EXPECT_EQ(messages, 4u * (n - 1)) << "n=" << n << " p=" << p;
      EXPECT_EQ(sent, 2u * (n - 1) * bytes) << "n=" << n << " p=" << p;
      // Over ranks: a leaf sends up once; an interior rank up once and down to at most two
      // children; with even n it is interior in one tree only. Chains: up and down once.
      if (p == 1 && n % 2 == 0) {
        EXPECT_LE(most, 4u) << "n=" << n;
      }
    }
}

TEST(DoubleBinaryTreeAllreduce, PerRankMessagesMatchTheTreesDrawnByHand) {
  // n = 8. Tree 1: 0 -> 4, 4 -> {2, 6}, 2 -> {1, 3}, 6 -> {5, 7}. Tree 2 is its mirror:
  // 7 -> 3, 3 -> {5, 1}, 5 -> {6, 4}, 1 -> {2, 0}. Sends: up to the parent, down to each child.
  const std::vector<std::uint64_t> eight = {2, 4, 4, 4, 4, 4, 4, 2};
  // n = 5. Tree 1: 0 -> 4, 4 -> 2, 2 -> {1, 3}. Tree 2 shifts it by one rank:
  // 1 -> 0, 0 -> 3, 3 -> {2, 4}.
  const std::vector<std::uint64_t> five = {3, 2, 4, 4, 3};
  // n = 8 in nodes of 4: leaders 0 and 4 are each other's child, 1-2-3 and 5-6-7 chains.
  const std::vector<std::uint64_t> eight_in_nodes = {4, 4, 4, 2, 4, 4, 4, 2};
  struct Case {
    std::uint32_t n, p;
    const std::vector<std::uint64_t>& messages;
  };
  for (const Case& c : {Case{8, 1, eight}, Case{5, 1, five}, Case{8, 4, eight_in_nodes}}) {
    const std::uint64_t bytes = 4096;
    const Traffic t = traffic(allreduce("double_binary_tree", c.n, bytes, c.p));
    for (goal::RankId r = 0; r < c.n; ++r) {
      EXPECT_EQ(t.messages[r], c.messages[r]) << "n=" << c.n << " p=" << c.p << " rank " << r;
      EXPECT_EQ(t.bytes[r], c.messages[r] * bytes / 2) << "n=" << c.n << " p=" << c.p << " rank " << r;
    }
  }
}

// Which trees rank r is interior in: those in which it reduces data from a child. With one
// channel and one pipeline step, slice t is tree t's half.
std::vector<std::set<std::uint64_t>> interior_trees(std::uint32_t n, std::uint32_t p) {
  const AnnotatedSchedule a = generate_annotated(allreduce("double_binary_tree", n, 4096, p));
  EXPECT_EQ(a.plan.slices, 2u);
  std::vector<std::set<std::uint64_t>> interior(n);
  for (goal::RankId r = 0; r < n; ++r) {
    const goal::RankOps ops = a.schedule.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      const std::uint64_t g = ops.first_global_op() + i;
      if (ops.kind(i) != goal::OpKind::Recv || a.annotations.action[g] != DataAction::Reduce) continue;
      for (const UnitRange& u : a.annotations.units_of(g)) interior[r].insert(u.begin);
    }
  }
  return interior;
}

TEST(DoubleBinaryTreeAllreduce, EveryRankIsInteriorInExactlyOneTreeForEvenN) {
  // In tree 1 the even ranks have children (rank 0 its single one) and the odd ranks are
  // leaves; mirroring an even number of ranks swaps the parities.
  for (std::uint32_t n : {2u, 4u, 6u, 8u, 10u, 16u, 34u, 64u}) {
    const std::vector<std::set<std::uint64_t>> interior = interior_trees(n, 1);
    for (goal::RankId r = 0; r < n; ++r) {
      EXPECT_EQ(interior[r], std::set<std::uint64_t>{r % 2}) << "n=" << n << " rank " << r;
    }
  }
}

TEST(DoubleBinaryTreeAllreduce, OddNShiftsTheSecondTreeSoSomeRanksAreInteriorInBoth) {
  // n = 5 (the trees drawn above): 0, 4 and 2 have children in tree 1; 1, 0 and 3 in tree 2.
  const std::vector<std::set<std::uint64_t>> interior = interior_trees(5, 1);
  const std::vector<std::set<std::uint64_t>> expected = {{0, 1}, {1}, {0}, {1}, {0}};
  EXPECT_EQ(interior, expected);
}

TEST(DoubleBinaryTreeAllreduce, OnlyNodeLeadersTalkAcrossNodes) {
  const std::uint32_t n = 16, p = 4;
  const goal::Schedule s = generate(allreduce("double_binary_tree", n, 4096, p));
  for (goal::RankId r = 0; r < n; ++r)
    for (goal::LocalOp i = 0; i < s.rank(r).num_ops(); ++i) {
      if (s.rank(r).kind(i) == goal::OpKind::Calc) continue;
      const goal::RankId peer = s.rank(r).peer(i);
      if (peer / p != r / p) {
        EXPECT_TRUE(r % p == 0 && peer % p == 0) << "rank " << r << " talks to " << peer;
      }
    }
}

TEST(DoubleBinaryTreeAllreduce, EachChannelPairRotatesTheNodesChain) {
  // One node of 4, 2 channel pairs (4 channels), one pipeline step: every message is
  // 8192 / 4 = 2048 B. Pair 0 chains 0-1-2-3 (0 on top), pair 1 chains 1-2-3-0 (1 on top);
  // both trees of a pair use the node's chain. Per pair and tree the top sends once (down),
  // the bottom once (up), the middle twice: rank 0 is top then bottom, 2 + 2 = 4; rank 1
  // middle then top, 4 + 2 = 6; rank 2 middle twice, 8; rank 3 bottom then middle, 2 + 4 = 6.
  // (With one order for both pairs the ends would send 4 and the middle 8.)
  CollectiveSpec spec = allreduce("double_binary_tree", 4, 8192, 4);
  spec.channels = 4;
  const Traffic t = traffic(spec);
  const std::vector<std::uint64_t> messages = {4, 6, 8, 6};
  for (goal::RankId r = 0; r < 4; ++r) {
    EXPECT_EQ(t.messages[r], messages[r]) << "rank " << r;
    EXPECT_EQ(t.bytes[r], messages[r] * 2048) << "rank " << r;
  }
  // Two nodes of 4: in pair 1 the chains start at members 1 and 5, which lead their nodes, so
  // 1 and 5 (and 0 and 4 for pair 0) are the only ranks that talk across nodes.
  spec = allreduce("double_binary_tree", 8, 8192, 4);
  spec.channels = 4;
  const goal::Schedule s = generate(spec);
  std::set<goal::RankId> across;
  for (goal::RankId r = 0; r < 8; ++r)
    for (goal::LocalOp i = 0; i < s.rank(r).num_ops(); ++i)
      if (s.rank(r).kind(i) != goal::OpKind::Calc && s.rank(r).peer(i) / 4 != r / 4) across.insert(r);
  EXPECT_EQ(across, (std::set<goal::RankId>{0, 1, 4, 5}));
}

TEST(DoubleBinaryTreeAllreduce, GroupedNetworkMessagesVerify) {
  // k steps per message between nodes, k dividing the steps or not (the last group is short),
  // nodes of 1 (every edge crosses), 3 and 4, odd and even channel counts.
  for (std::uint32_t p : {1u, 3u, 4u})
    for (std::uint32_t n : {2u, 5u, 8u, 13u})
      for (std::uint32_t k : {2u, 3u, 8u})
        for (std::uint32_t channels : {1u, 2u, 3u}) {
          CollectiveSpec spec = allreduce("double_binary_tree", n, 1000003, p);
          spec.channels = channels;
          spec.chunk_bytes = 32 * 1024;
          spec.steps_per_network_message = k;
          const VerifyReport report = generate_and_verify(spec);
          EXPECT_TRUE(report.ok) << "n=" << n << " p=" << p << " k=" << k << " channels=" << channels << ": "
                                 << report.error;
        }
}

TEST(DoubleBinaryTreeAllreduce, NetworkMessagesCarryKStepsAndNodeMessagesOne) {
  // 2 nodes of 4, one channel (tree 0), 1 MiB in 64 KiB steps: 16 steps, 4 per message between
  // nodes. Leader 0 is tree 0's root over nodes, leader 4 its child: 4 sends 4 messages of
  // 256 KiB up to 0 and 0 sends 4 down; every NVLink message stays one 64 KiB step, and the
  // chain below each leader (3 hops) carries 16 up and 16 down per hop.
  CollectiveSpec spec = allreduce("double_binary_tree", 8, kMiB, 4);
  spec.channels = 1;
  spec.chunk_bytes = 64 * 1024;
  spec.steps_per_network_message = 4;
  const goal::Schedule s = generate(spec);
  std::uint64_t across = 0, within = 0;
  for (goal::RankId r = 0; r < 8; ++r)
    for (goal::LocalOp i = 0; i < s.rank(r).num_ops(); ++i) {
      if (s.rank(r).kind(i) != goal::OpKind::Send) continue;
      if (s.rank(r).peer(i) / 4 != r / 4) {
        EXPECT_EQ(s.rank(r).size(i), 4 * 64 * 1024) << "rank " << r;
        ++across;
      } else {
        EXPECT_EQ(s.rank(r).size(i), 64 * 1024) << "rank " << r;
        ++within;
      }
    }
  EXPECT_EQ(across, 2u * 4);
  EXPECT_EQ(within, 2u * 3 * 2 * 16);
}

TEST(DoubleBinaryTreeAllreduce, GroupedNetworkMessagesAreForTreesOnly) {
  CollectiveSpec spec = spec_of(Collective::Allreduce, "ring", 8, kMiB);
  spec.steps_per_network_message = 2;
  EXPECT_THROW((void)make_plan(spec), std::invalid_argument);
  spec.algorithm = "double_binary_tree";
  spec.steps_per_network_message = 0;
  EXPECT_THROW((void)make_plan(spec), std::invalid_argument);
}

TEST(HierarchicalAllreduce, GridSendsTwoRingsInTheNodeAndOneAcross) {
  // p | n: 2(p-1) messages of S/p in the node, 2(n/p-1) of S/n across; p = 1 and p = n are
  // the plain ring's 2(n-1) messages of S/n.
  struct Case {
    std::uint32_t n, p;
  };
  for (const Case c : {Case{8, 2}, Case{8, 4}, Case{12, 3}, Case{16, 4}, Case{6, 6}, Case{6, 1}, Case{64, 8}}) {
    const std::uint64_t bytes = std::uint64_t{c.n} * 512;
    const std::uint32_t nodes = c.n / c.p;
    const Traffic t = traffic(allreduce("hierarchical", c.n, bytes, c.p));
    for (goal::RankId r = 0; r < c.n; ++r) {
      EXPECT_EQ(t.messages[r], 2u * (c.p - 1) + 2u * (nodes - 1)) << "n=" << c.n << " p=" << c.p << " rank " << r;
      EXPECT_EQ(t.bytes[r], 2 * (c.p - 1) * (bytes / c.p) + 2 * (nodes - 1) * (bytes / c.n))
          << "n=" << c.n << " p=" << c.p << " rank " << r;
    }
  }
}

TEST(HierarchicalAllreduce, UnevenNodesReduceToLeadersAlongChains) {
  // Leaders run a ring over the N nodes (2(N-1) messages of S/N) and send S once down their
  // chain; other members send S up once and, unless last in the node, S down once.
  struct Case {
    std::uint32_t n, p;
  };
  for (const Case c : {Case{5, 2}, Case{7, 3}, Case{10, 4}, Case{33, 8}}) {
    const std::uint32_t nodes = (c.n + c.p - 1) / c.p;
    const std::uint64_t bytes = std::uint64_t{nodes} * 1024;
    const Traffic t = traffic(allreduce("hierarchical", c.n, bytes, c.p));
    for (goal::RankId r = 0; r < c.n; ++r) {
      const std::uint32_t local = r % c.p, node_size = std::min(c.p, c.n - r / c.p * c.p);
      const std::uint64_t down = local + 1 < node_size ? 1 : 0;
      const std::uint64_t messages = local == 0 ? 2 * (nodes - 1) + down : 1 + down;
      const std::uint64_t sent = local == 0 ? 2 * (nodes - 1) * (bytes / nodes) + down * bytes : (1 + down) * bytes;
      EXPECT_EQ(t.messages[r], messages) << "n=" << c.n << " p=" << c.p << " rank " << r;
      EXPECT_EQ(t.bytes[r], sent) << "n=" << c.n << " p=" << c.p << " rank " << r;
    }
  }
}

// --- deliberately broken schedules -------------------------------------------------------

VerifyReport broken(const CollectiveSpec& spec, goal::RankId rank, goal::OpKind kind, std::uint32_t nth,
                    const testing::TamperingSink::Tamper& tamper) {
  const Plan plan = make_plan(spec);
  const goal::LocalOp victim = testing::nth_op(generate(plan), rank, kind, nth);
  return verify(testing::tampered(plan, rank, victim, tamper));
}

TEST(BrokenDoubleBinaryTree, BroadcastingTheWrongPipelineStepIsNamed) {
  // n = 8, two pipeline steps: tree 1 carries slices 0 and 1, tree 2 slices 2 and 3. Root 0
  // first sends tree 1's step-0 result down to 4; sending step 1's slice instead is caught
  // at 4.
  CollectiveSpec spec = allreduce("double_binary_tree", 8, 4 * 1024);
  spec.chunk_bytes = 1024;
  const VerifyReport r = broken(spec, 0, goal::OpKind::Send, 0, [](goal::Op&, Payload&, auto& units) {
    units = {UnitRange{1, 2}};
  });
  expect_error(r, {"rank 4 op", "from 0", "expects chunk 0 ", "carries chunk 1 "});
}

TEST(BrokenDoubleBinaryTree, ADroppedUpwardStepShiftsTheNextOne) {
  // Rank 1 is a leaf below 2 in tree 1, which runs on its own channel (tag 0). Without its
  // step-0 slice going up, 2's first receive on that connection takes the step-1 slice.
  CollectiveSpec spec = allreduce("double_binary_tree", 8, 4 * 1024);
  spec.chunk_bytes = 1024;
  const VerifyReport r = broken(spec, 1, goal::OpKind::Send, 0, drop);
  expect_error(r, {"rank 2 op", "expects chunk 0", "carries chunk 1"});
}

TEST(BrokenDoubleBinaryTree, ABroadcastThatReducesCountsTwice) {
  // Rank 4's first receive from its parent 0 in tree 1 reduces instead of copying the result.
  const VerifyReport r = broken(allreduce("double_binary_tree", 8, 4096), 4, goal::OpKind::Recv, 2,
                                [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Reduce; });
  expect_error(r, {"rank 4 op", "from 0", "chunk 0 ", "twice"});
}

TEST(BrokenDoubleBinaryTree, AReductionThatCopiesLosesTheSubtree) {
  // Rank 2 copies what leaf 1 sends instead of adding it: its own contribution to tree 1's
  // half (chunk 0) vanishes everywhere.
  const VerifyReport r = broken(allreduce("double_binary_tree", 8, 4096), 2, goal::OpKind::Recv, 0,
                                [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Copy; });
  expect_error(r, {"rank 0 chunk 0 ", "contribution of rank 2 is missing"});
}

TEST(BrokenRecursiveDoubling, AnExchangeThatCopiesLosesTheRankItself) {
  // n = 4: rank 1 overwrites its data with rank 0's in round 0; its own contribution then
  // reaches only 0 (which got it before) and 2, and rank 1 itself ends without it.
  const VerifyReport r = broken(allreduce("recursive_doubling", 4, 4096), 1, goal::OpKind::Recv, 0,
                                [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Copy; });
  expect_error(r, {"rank 1 chunk 0", "contribution of rank 1 is missing"});
}

TEST(BrokenRecursiveDoubling, AFoldedRankThatReducesTheResultCountsItselfTwice) {
  // n = 5: rank 0 sits out and should copy the result rank 1 sends back.
  const VerifyReport r = broken(allreduce("recursive_doubling", 5, 4096), 0, goal::OpKind::Recv, 0,
                                [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Reduce; });
  expect_error(r, {"rank 0 op", "chunk 0", "contribution of rank 0 twice"});
}

TEST(BrokenRecursiveDoubling, AChannelMixUpNamesTheChunks) {
  // Two channels own slices 0 and 1; rank 2 sends channel 0's slice 1 in round 0.
  CollectiveSpec spec = allreduce("recursive_doubling", 4, 4096);
  spec.channels = 2;
  const VerifyReport r = broken(spec, 2, goal::OpKind::Send, 0, [](goal::Op&, Payload&, auto& units) {
    units = {UnitRange{1, 2}};
  });
  expect_error(r, {"rank 3 op", "expects chunk 0 ", "carries chunk 1 "});
}

TEST(BrokenRabenseifner, SendingTheKeptHalfIsCaught) {
  // n = 4 cut into 4 blocks: rank 0 should give blocks 2-3 to rank 2 and keep 0-1.
  const VerifyReport r = broken(allreduce("rabenseifner", 4, 4096), 0, goal::OpKind::Send, 0,
                                [](goal::Op&, Payload&, auto& units) { units = {UnitRange{0, 2}}; });
  expect_error(r, {"rank 2 op", "expects chunk 2 ", "carries chunk 0 "});
}

TEST(BrokenRabenseifner, AnAllgatherStepThatReducesCountsTwice) {
  // Rank 1's first allgather receive (its third receive) reduces block 0 from rank 0.
  const VerifyReport r = broken(allreduce("rabenseifner", 4, 4096), 1, goal::OpKind::Recv, 2,
                                [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Reduce; });
  expect_error(r, {"rank 1 op", "chunk 0 ", "twice"});
}

TEST(BrokenRabenseifner, ADroppedFoldLeavesTheOddRankWaiting) {
  // n = 3: rank 0 never hands its data to rank 1, which waits for it forever.
  const VerifyReport r = broken(allreduce("rabenseifner", 3, 4096), 0, goal::OpKind::Send, 0, drop);
  expect_error(r, {"rank 1", "never matched"});
}

TEST(BrokenHierarchical, AnAcrossNodeReductionThatCopiesLosesTheOwnNode) {
  // n = 4 in nodes of 2: rank 0 owns piece 0 (chunks 0, 1) after the node's reduce-scatter;
  // its first receive across nodes (its second receive) should add node 1's chunk 0 from
  // rank 2, and overwrites node 0's instead.
  const VerifyReport r = broken(allreduce("hierarchical", 4, 4096, 2), 0, goal::OpKind::Recv, 1,
                                [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Copy; });
  expect_error(r, {"rank 0 chunk 0 ", "contribution of rank 0 is missing"});
}

TEST(BrokenHierarchical, AChainBroadcastThatReducesCountsTwice) {
  // n = 5 in nodes of 2 (the last node is rank 4 alone): rank 1 reduces the leader's result
  // instead of copying it.
  const VerifyReport r = broken(allreduce("hierarchical", 5, 4096, 2), 1, goal::OpKind::Recv, 0,
                                [](goal::Op&, Payload& p, auto&) { p.action = DataAction::Reduce; });
  expect_error(r, {"rank 1 op", "chunk 0 ", "contribution of rank 1 twice"});
}

TEST(BrokenHierarchical, AWrongPieceInTheNodeIsNamed) {
  // n = 4 in nodes of 2 (4 chunks, piece j = chunks 2j, 2j+1): rank 0 starts the node's
  // reduce-scatter with piece 1 (chunks 2-3); claiming piece 0 instead is caught at rank 1.
  const VerifyReport r = broken(allreduce("hierarchical", 4, 4096, 2), 0, goal::OpKind::Send, 0,
                                [](goal::Op&, Payload&, auto& units) { units = {UnitRange{0, 2}}; });
  expect_error(r, {"rank 1 op", "expects chunk 2 ", "carries chunk 0 "});
}

}  // namespace
}  // namespace collsim::collectives
