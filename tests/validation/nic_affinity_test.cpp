// NIC affinity: which NICs a job's GPUs send through, and the network that leaves the node.

#include <gtest/gtest.h>

#include "collsim/validation/nic_affinity.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {
namespace {

using Lists = std::vector<std::vector<std::uint32_t>>;

TEST(NicAffinity, DefaultDealsNicsToGpusOrSharesThem) {
  EXPECT_EQ(default_nic_gpus(8, 8), (Lists{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
  EXPECT_EQ(default_nic_gpus(8, 4), (Lists{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(default_nic_gpus(4, 8), (Lists{{0}, {0}, {1}, {1}, {2}, {2}, {3}, {3}}));
  EXPECT_EQ(default_nic_gpus(8, 1), (Lists{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(default_nic_gpus(1, 1), (Lists{{0}}));
}

// A DGX H100 (one 400G NIC per GPU): a job on its first g GPUs sends through g NICs.
TEST(NicAffinity, OneTwoFourAndEightGpusOfADgxNode) {
  const SystemPreset dgx = *find_system_preset("dgx-h100");
  for (std::uint32_t g : {1u, 2u, 4u, 8u}) {
    const NodeNics n = node_nics(dgx, g);
    EXPECT_EQ(n.count, g);
    ASSERT_EQ(n.of_gpu.size(), g);
    for (std::uint32_t k = 0; k < g; ++k) {
      EXPECT_EQ(n.physical[k], k);
      EXPECT_EQ(n.of_gpu[k], std::vector<std::uint32_t>{k});
    }
  }
}

// p4d/p4de: 8 GPUs, 4 NICs, two GPUs per NIC. 1 or 2 GPUs share one NIC.
TEST(NicAffinity, GpusShareANicWhenTheNodeHasFewer) {
  const SystemPreset efa = *find_system_preset("a100-efa");
  EXPECT_EQ(node_nics(efa, 1).count, 1u);
  EXPECT_EQ(node_nics(efa, 2).count, 1u);
  EXPECT_EQ(node_nics(efa, 2).of_gpu, (Lists{{0}, {0}}));
  EXPECT_EQ(node_nics(efa, 3).count, 2u);
  EXPECT_EQ(node_nics(efa, 8).count, 4u);
  EXPECT_EQ(node_nics(efa, 8).of_gpu, (Lists{{0}, {0}, {1}, {1}, {2}, {2}, {3}, {3}}));
}

TEST(NicAffinity, FourGpuFourNicNode) {
  const SystemPreset snellius = *find_system_preset("h100-4gpu-ib");
  for (std::uint32_t g = 1; g <= 4; ++g) EXPECT_EQ(node_nics(snellius, g).count, g);
  EXPECT_THROW(node_nics(snellius, 5), std::invalid_argument);
}

// A node whose NIC 0 serves GPUs 0-2 and NIC 1 GPUs 3-7 (not dealt evenly): a job on GPUs 0-3
// uses both, GPU 3 through the second.
TEST(NicAffinity, GivenAffinityIsKept) {
  SystemPreset p = *find_system_preset("dgx-h100");
  p.nics_per_node = 2;
  p.nic_gpus = {{0, 1, 2}, {3, 4, 5, 6, 7}};
  EXPECT_EQ(node_nics(p, 3).count, 1u);
  const NodeNics four = node_nics(p, 4);
  EXPECT_EQ(four.count, 2u);
  EXPECT_EQ(four.of_gpu, (Lists{{0}, {0}, {0}, {1}}));
  // Only the second NIC's GPUs: it becomes the job's NIC 0.
  p.nic_gpus = {{4, 5, 6, 7}, {0, 1, 2, 3}};
  EXPECT_EQ(node_nics(p, 2).physical, std::vector<std::uint32_t>{1});
  EXPECT_EQ(node_nics(p, 2).of_gpu, (Lists{{0}, {0}}));
}

TEST(NicAffinity, Problems) {
  EXPECT_EQ(affinity_problem({{0}, {1}}, 2), "");
  EXPECT_EQ(affinity_problem({{0}, {0}}, 2), "no NIC serves GPU 1");
  EXPECT_EQ(affinity_problem({{0}, {2}}, 2), "NIC 1 serves GPU 2, but a node has 2 GPUs (0 to 1)");
  EXPECT_EQ(affinity_problem({{0, 1}, {}}, 2), "NIC 1 serves no GPU");
}

// The network leaves a node through the job's NICs only: 2 nodes of 1 DGX GPU have one rail.
TEST(NicAffinity, TopologyAndTuningSeeTheJobsNics) {
  const SystemPreset dgx = *find_system_preset("dgx-h100");
  for (std::uint32_t g : {1u, 2u, 4u, 8u}) {
    const topo::Topology t = make_system_topology(dgx, 2, g);
    EXPECT_EQ(t.num_switches(), 2u + g) << g;         // 2 NVSwitches and g rails
    EXPECT_EQ(t.links().size(), 2u * g + 2u * g) << g;  // the GPUs' NVLinks, and a link per NIC and node
    // 16 channels share g x 50 GB/s across nodes: g x 50 / 16 each (NVLink's 450/16 above that).
    EXPECT_DOUBLE_EQ(tuning_system(dgx, 2, 16, g).inter_gbytes_per_s, g * 50.0 / 16) << g;
  }
}

}  // namespace
}  // namespace collsim::validation
