// One size as NCCL runs it, lowered within a budget of ops: the algorithm's chunk path, the
// smaller ring that stands in for one too large to build, and the wire's lower bound.

#include <gtest/gtest.h>

#include <stdexcept>

#include "collsim/collectives/algorithm.hpp"
#include "collsim/validation/size_lowering.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {
namespace {

ValidationSetup h100_nodes(std::uint32_t nodes) {
  ValidationSetup s;
  s.preset = *find_system_preset("dgx-h100");
  s.collective = collectives::Collective::Allreduce;
  s.gpus_per_node = 8;
  s.nodes = nodes;
  s.ranks = 8 * nodes;
  s.nics = node_nics(s.preset, 8);
  s.channels = 8;
  s.channels_source = "--channels";
  return s;
}

TEST(SizeLowering, TheChoiceCarriesTheAlgorithmsChunkPath) {
  ValidationRequest r;
  r.algorithm = "ring";
  EXPECT_EQ(choose(h100_nodes(2), r, 1u << 20).path, collectives::ChunkPath::Ring);
  r.algorithm = "double_binary_tree";
  const Choice tree = choose(h100_nodes(2), r, 1u << 20);
  EXPECT_EQ(tree.path, collectives::ChunkPath::Tree);
  // NCCL's tuning derates a tree at medium sizes; the choice keeps that share of the links.
  EXPECT_LT(tree.tree_share, 1.0);
  EXPECT_NE(tree.key(), choose(h100_nodes(2), r, 1u << 30).key());
}

TEST(SizeLowering, PipelineDepthOfTreesAndChains) {
  collectives::CollectiveSpec spec;
  spec.collective = collectives::Collective::Allreduce;
  spec.algorithm = "double_binary_tree";
  spec.bytes = 1u << 20;
  spec.ranks_per_node = 8;
  const collectives::Algorithm* tree = collectives::find_algorithm(collectives::Collective::Allreduce, "double_binary_tree");
  ASSERT_NE(tree, nullptr);
  ASSERT_NE(tree->pipeline_depth, nullptr);
  // Up 7 NVLink hops and ceil(log2(nodes)) tree levels, then back down.
  for (const auto& [ranks, depth] : {std::pair{8u, 14u}, {16u, 16u}, {40u, 20u}}) {
    spec.num_ranks = ranks;
    EXPECT_EQ(tree->pipeline_depth(collectives::make_plan(spec)), depth) << ranks;
  }
  const collectives::Algorithm* chain = collectives::find_algorithm(collectives::Collective::Broadcast, "pipelined_chain");
  spec.collective = collectives::Collective::Broadcast;
  spec.algorithm = "pipelined_chain";
  spec.num_ranks = 16;
  EXPECT_EQ(chain->path, collectives::ChunkPath::Chain);
  EXPECT_EQ(chain->pipeline_depth(collectives::make_plan(spec)), 15u);
  EXPECT_EQ(collectives::find_algorithm(collectives::Collective::Allreduce, "ring")->pipeline_depth, nullptr);
}

TEST(SizeLowering, ASmallerRingOfWholeNodesStandsInForOneTooLargeToBuild) {
  // 64 ranks over 8 channels: a ring allreduce needs 2 * 2(n-1) * n * 8 ops at least, 129,024
  // for n = 64. Within 10,000 ops the largest ring of whole nodes is 2 nodes (7,680 ops; 3
  // nodes need 17,664): its 30 rounds stand for the large ring's 126, on 16/64 of the bytes.
  const ValidationSetup s = h100_nodes(8);
  ValidationRequest r;
  r.algorithm = "ring";
  r.protocol = "Simple";
  r.max_ops = 10'000;
  const Lowered l = lower(s, r, 64u << 20, choose(s, r, 64u << 20));
  ASSERT_TRUE(l.sub_ring.has_value());
  EXPECT_EQ(l.sub_ring->ranks, 16u);
  EXPECT_EQ(l.sub_ring->nodes, 2u);
  EXPECT_EQ(l.sub_ring->rounds, 126u);
  EXPECT_EQ(l.sub_ring->sub_rounds, 30u);
  EXPECT_EQ(l.plan.num_ranks, 16u);
  EXPECT_EQ(l.plan.bytes, (64u << 20) / 4);
  // Within 1,000 ops not even 2 nodes fit: the error says what would.
  r.max_ops = 1'000;
  EXPECT_THROW(lower(s, r, 64u << 20, choose(s, r, 64u << 20)), std::runtime_error);
}

TEST(SizeLowering, ChunksGrowToKeepTheScheduleWithinItsOps) {
  const ValidationSetup s = h100_nodes(1);
  ValidationRequest r;
  r.algorithm = "ring";
  r.protocol = "Simple";
  const Lowered l = lower(s, r, 1u << 30, choose(s, r, 1u << 30));
  // ~8 chunks per block and channel: an allreduce's block is the whole buffer, so 1 GiB / 8
  // channels / 8 = 16 MiB chunks, in packets of 1/64 of a chunk capped at 32 KiB.
  EXPECT_EQ(l.plan.block_bytes(), 1u << 30);
  EXPECT_EQ(l.plan.chunk_bytes, 16u << 20);
  EXPECT_EQ(l.mtu, 32768u);
  EXPECT_LE(l.schedule.num_ops(), r.max_ops);
}

TEST(SizeLowering, TheWireFloorIsTheBusiestGpuLinksBytes) {
  const ValidationSetup s = h100_nodes(1);
  ValidationRequest r;
  r.algorithm = "ring";
  r.protocol = "Simple";
  const std::uint64_t bytes = 64u << 20;
  const Lowered l = lower(s, r, bytes, choose(s, r, bytes));
  const topo::Topology t = make_system_topology(s.preset, 1, 8);
  // Every rank of a ring allreduce sends 2(n-1)/n of the size, each packet with its header.
  const double sent = 2.0 * 7 / 8 * static_cast<double>(bytes) * (1.0 + 1.0 / 64);
  const double link_bps = static_cast<double>(t.link(t.ports(t.host(0)).front().link).bandwidth.bps());
  EXPECT_NEAR(wire_floor(l.schedule, t, l.mtu).microseconds(), sent * 8 / link_bps * 1e6, 1e-6);
  EXPECT_NEAR(link_bps, s.preset.gpu_link_gbytes * 8e9, 1e-6 * link_bps);
}

}  // namespace
}  // namespace collsim::validation
