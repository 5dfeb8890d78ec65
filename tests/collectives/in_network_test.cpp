// Reductions inside the network (NVLS, NVLSTree): the switch as a helper rank that holds no
// data of its own, verified symbolically, with its traffic counted by hand.

#include <gtest/gtest.h>

#include <stdexcept>

#include "collective_test_util.hpp"
#include "collsim/collectives/generate.hpp"
#include "collsim/collectives/verifier.hpp"

namespace collsim::collectives {
namespace {

CollectiveSpec nvls_spec(const std::string& algorithm, std::uint32_t ranks, std::uint32_t per_node,
                         std::uint64_t bytes, std::uint32_t channels) {
  CollectiveSpec spec = testing::spec_of(Collective::Allreduce, algorithm, ranks, bytes);
  spec.ranks_per_node = per_node;
  spec.channels = channels;
  spec.chunk_bytes = 64 * 1024;
  return spec;
}

TEST(Nvls, VerifiesForEveryNodeSizeSizeAndChannelCount) {
  for (std::uint32_t n : {2u, 3u, 4u, 8u, 72u})
    for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000003}, std::uint64_t{1} << 20})
      for (std::uint32_t channels : {1u, 3u}) {
        const VerifyReport r = testing::generate_and_verify(nvls_spec("nvls", n, n, bytes, channels));
        EXPECT_TRUE(r.ok) << "n=" << n << " bytes=" << bytes << " channels=" << channels << ": " << r.error;
      }
}

TEST(NvlsTree, VerifiesOnTwoNodesOfEverySize) {
  for (std::uint32_t per_node : {1u, 2u, 4u, 8u})
    for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1000003}})
      for (std::uint32_t channels : {1u, 2u}) {
        const VerifyReport r =
            testing::generate_and_verify(nvls_spec("nvls_tree", 2 * per_node, per_node, bytes, channels));
        EXPECT_TRUE(r.ok) << "2 x " << per_node << " bytes=" << bytes << " channels=" << channels << ": " << r.error;
      }
}

TEST(NvlsTree, VerifiesOverTreesOfThreeOrMoreNodes) {
  for (std::uint32_t nodes : {3u, 4u, 5u, 7u, 16u})
    for (std::uint32_t per_node : {1u, 4u})
      for (std::uint32_t channels : {1u, 2u, 3u}) {
        const VerifyReport r =
            testing::generate_and_verify(nvls_spec("nvls_tree", nodes * per_node, per_node, 1000003, channels));
        EXPECT_TRUE(r.ok) << nodes << " x " << per_node << " channels=" << channels << ": " << r.error;
      }
}

TEST(NvlsTree, OverFourNodesEachTreeEdgeCarriesTheSumUpAndTheTotalDown) {
  // 4 nodes of 2 GPUs, 1 MiB over 2 channels in 16 chunks of 64 KiB (8 per channel). Channel
  // 0 runs NCCL's tree 0 over the nodes (0 -> 2 -> {1, 3}), channel 1 its mirror (3 -> 1 ->
  // {2, 0}): each of a tree's 3 edges carries every chunk of its channel once up and once
  // down, so the switches send 2 x 3 x 8 chunks to each other in all, and each switch sends
  // its 2 GPUs all 16 totals.
  const goal::Schedule s = generate(make_plan(nvls_spec("nvls_tree", 8, 2, 1 << 20, 2)));
  ASSERT_EQ(s.num_ranks(), 12u);
  std::uint64_t between_switches = 0;
  for (goal::RankId sw = 8; sw < 12; ++sw) {
    std::uint64_t to_gpus = 0;
    for (goal::RankId peer : testing::peers_of(s, sw, goal::OpKind::Send)) {
      if (peer >= 8) ++between_switches;
      else ++to_gpus;
    }
    EXPECT_EQ(to_gpus, 2u * 16) << sw;
  }
  EXPECT_EQ(between_switches, 2u * 3 * 8 * 2);
  // Channel 0's root (node 0) sends nothing up: its switch sends only to its child, node 2.
  const goal::RankOps root = s.rank(8);
  for (goal::LocalOp i = 0; i < root.num_ops(); ++i)
    if (root.kind(i) == goal::OpKind::Send && root.peer(i) >= 8 && root.tag(i) == 0) {
      EXPECT_EQ(root.peer(i), 10u);
    }
}

TEST(Nvls, EveryGpuSendsTheSizeOnceAndTheSwitchEverySum) {
  // 8 GPUs, 1 MiB in chunks of 64 KiB over 2 channels: each GPU sends 16 chunks of 64 KiB
  // up and receives 16 sums; the switch (rank 8) receives 8 x 16 and sends as many.
  const Plan plan = make_plan(nvls_spec("nvls", 8, 8, 1 << 20, 2));
  ASSERT_EQ(plan.num_ranks, 9u);
  EXPECT_EQ(plan.helpers, std::vector<goal::RankId>{8});
  const goal::Schedule s = generate(plan);
  const testing::RankTraffic sent = testing::traffic_of(s);
  for (goal::RankId r = 0; r < 8; ++r) {
    EXPECT_EQ(sent.messages[r], 16u);
    EXPECT_EQ(sent.bytes[r], 1u << 20);  // Simple: the wire carries the data
    for (goal::RankId peer : testing::peers_of(s, r, goal::OpKind::Send)) EXPECT_EQ(peer, 8u);
  }
  EXPECT_EQ(sent.messages[8], 8u * 16);
  EXPECT_EQ(sent.bytes[8], 8u << 20);
  // A switch launches no kernel: its ops are messages only.
  const goal::RankOps sw = s.rank(8);
  for (goal::LocalOp i = 0; i < sw.num_ops(); ++i) EXPECT_NE(sw.kind(i), goal::OpKind::Calc);
}

TEST(NvlsTree, EachSwitchSendsItsNodesSumToTheOther) {
  // 2 nodes of 4, 1 MiB in 16 chunks: switch 8 (node 0) and 9 (node 1) each receive 4 x 16
  // chunks from their GPUs and 16 from the other switch, and send 16 to it and 4 x 16 down.
  const goal::Schedule s = generate(make_plan(nvls_spec("nvls_tree", 8, 4, 1 << 20, 2)));
  ASSERT_EQ(s.num_ranks(), 10u);
  const testing::RankTraffic sent = testing::traffic_of(s), received = testing::traffic_of(s, goal::OpKind::Recv);
  for (goal::RankId sw : {8u, 9u}) {
    EXPECT_EQ(sent.messages[sw], 5u * 16);
    EXPECT_EQ(received.messages[sw], 5u * 16);
    const std::vector<goal::RankId> peers = testing::peers_of(s, sw, goal::OpKind::Send);
    EXPECT_EQ(std::count(peers.begin(), peers.end(), sw == 8 ? 9u : 8u), 16);
  }
  for (goal::RankId r = 0; r < 8; ++r)
    for (goal::RankId peer : testing::peers_of(s, r, goal::OpKind::Send)) EXPECT_EQ(peer, r < 4 ? 8u : 9u);
}

TEST(Nvls, HelpersRunWhereTheSpecPutsThem) {
  CollectiveSpec spec = nvls_spec("nvls_tree", 8, 4, 1 << 20, 1);
  spec.num_ranks = 0;
  spec.group = {0, 1, 2, 3, 5, 6, 7, 8};
  spec.helper_ranks = {4, 9};  // each node's switch after its GPUs
  const Plan plan = make_plan(spec);
  EXPECT_EQ(plan.num_ranks, 10u);
  const VerifyReport r = verify(generate_annotated(plan));
  EXPECT_TRUE(r.ok) << r.error;
  spec.helper_ranks = {4, 5};  // 5 is a GPU
  EXPECT_THROW(make_plan(spec), std::invalid_argument);
  spec.helper_ranks = {4};
  EXPECT_THROW(make_plan(spec), std::invalid_argument);
}

TEST(Nvls, RefusesGroupsOutsideItsNvlinkDomains) {
  EXPECT_THROW(make_plan(nvls_spec("nvls", 16, 8, 1 << 20, 1)), std::invalid_argument);       // 2 nodes
  EXPECT_THROW(make_plan(nvls_spec("nvls_tree", 8, 8, 1 << 20, 1)), std::invalid_argument);   // 1 node
  EXPECT_THROW(make_plan(nvls_spec("nvls_tree", 12, 8, 1 << 20, 1)), std::invalid_argument);  // 8 + 4
  CollectiveSpec ring = nvls_spec("ring", 8, 8, 1 << 20, 1);
  ring.helper_ranks = {8};
  EXPECT_THROW(make_plan(ring), std::invalid_argument);  // a ring has no helpers
}

CollectiveSpec collnet_spec(const std::string& algorithm, std::uint32_t ranks, std::uint32_t per_node,
                            std::uint32_t rails, std::uint32_t channels, std::uint64_t bytes) {
  CollectiveSpec spec = nvls_spec(algorithm, ranks, per_node, bytes, channels);
  spec.nics = rails;
  return spec;
}

TEST(CollNet, ChainAndDirectVerifyForEveryNodeSizeRailsAndChannels) {
  for (const char* algorithm : {"collnet_chain", "collnet_direct"})
    for (const auto& [ranks, per_node] : {std::pair{2u, 1u}, {6u, 3u}, {16u, 8u}, {12u, 4u}, {5u, 1u}})
      for (std::uint32_t rails : {1u, 2u, 8u})
        for (std::uint32_t channels : {1u, 3u})
          for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1000003}}) {
            const VerifyReport r =
                testing::generate_and_verify(collnet_spec(algorithm, ranks, per_node, rails, channels, bytes));
            EXPECT_TRUE(r.ok) << algorithm << " " << ranks << "/" << per_node << " rails=" << rails
                              << " channels=" << channels << " bytes=" << bytes << ": " << r.error;
          }
}

TEST(CollNet, ChainSendsEachChunkUpAndDownOnce) {
  // 2 nodes of 4, 2 rails, 2 channels, 1 MiB in 16 chunks of 64 KiB (8 per channel). Channel
  // c's chain starts at local GPU c: channel 0 runs 0 -> 1 -> 2 -> 3 (3 the tail), channel 1
  // runs 1 -> 2 -> 3 -> 0. A GPU sends each chunk of a channel up, and down unless it is that
  // channel's tail: local GPU 3 is channel 0's tail, GPU 0 channel 1's.
  const goal::Schedule s = generate(make_plan(collnet_spec("collnet_chain", 8, 4, 2, 2, 1 << 20)));
  ASSERT_EQ(s.num_ranks(), 10u);  // rails 0 and 1 aggregate at ranks 8 and 9
  const testing::RankTraffic sent = testing::traffic_of(s);
  for (goal::RankId r = 0; r < 8; ++r) {
    const std::uint32_t local = r % 4;
    EXPECT_EQ(sent.messages[r], local == 0 || local == 3 ? 24u : 32u) << r;
  }
  // Each rail aggregates one channel: 8 chunks from each of 2 heads, returned to both.
  EXPECT_EQ(sent.messages[8], 16u);
  EXPECT_EQ(sent.messages[9], 16u);
  EXPECT_EQ(sent.bytes[8], 1u << 20);
  EXPECT_EQ(testing::peers_of(s, 8, goal::OpKind::Send), std::vector<goal::RankId>({0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4,
                                                                                    0, 4, 0, 4}));
}

TEST(CollNet, DirectMovesSevenQuartersOfTheSizeOverEachGpusLink) {
  // 2 nodes of 4 with a rail per GPU, 1 channel, 1 MiB: each GPU sends 3 shares of every chunk
  // to its node's other GPUs, its reduced share to its rail and the total share to the 3
  // others: (3 + 1 + 3) / 4 of 1 MiB. Rail j aggregates share j of both nodes.
  const goal::Schedule s = generate(make_plan(collnet_spec("collnet_direct", 8, 4, 4, 1, 1 << 20)));
  ASSERT_EQ(s.num_ranks(), 12u);
  const testing::RankTraffic sent = testing::traffic_of(s);
  for (goal::RankId r = 0; r < 8; ++r) EXPECT_EQ(sent.bytes[r], 7u * (1u << 20) / 4) << r;
  for (goal::RankId rail = 8; rail < 12; ++rail) {
    EXPECT_EQ(sent.bytes[rail], 2u * (1u << 20) / 4);
    for (goal::RankId peer : testing::peers_of(s, rail, goal::OpKind::Send)) EXPECT_EQ(peer % 4, rail - 8);
  }
}

TEST(CollNet, NeedsTwoOrMoreEqualNodes) {
  EXPECT_THROW(make_plan(collnet_spec("collnet_chain", 8, 8, 1, 1, 1 << 20)), std::invalid_argument);
  EXPECT_THROW(make_plan(collnet_spec("collnet_direct", 12, 8, 1, 1, 1 << 20)), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::collectives
