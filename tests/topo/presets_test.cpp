// Every preset in topologies/ loads, validates and has the size its header promises.

#include <gtest/gtest.h>

#include <string>

#include "collsim/topo/metrics.hpp"
#include "topo_test_util.hpp"

namespace collsim::topo {
namespace {

using testing::preset;

struct Expected {
  const char* file;
  const char* kind;
  std::uint32_t hosts, switches;
  std::uint64_t links;
  std::uint32_t diameter;
  std::int64_t bisection_gbps;
  bool exact;
};

// Counts by hand:
//  fat_tree_k8: k^3/4 = 128 hosts, 5k^2/4 = 80 switches, 3k^3/4 = 384 links; bisection 64 x 100G.
//  fat_tree_k16: 1024 hosts, 320 switches, 3072 links; 512 x 100G.
//  leaf_spine_64: 4 x 16 hosts, 4 + 4 switches, 64 + 16 links; 2 leaves x 4 uplinks x 100G.
//  leaf_spine_128_200g: 128 hosts, 8 + 16 switches, 128 + 128 links; 4 leaves x 16 x 200G.
//  dgx_a100_pod: 256 GPUs; 32 NVSwitches + 8 rails x 2 leaves + 8 spines = 56; 256 NVLinks +
//    256 NICs + 16 leaves x 8 spines x 2 = 768 links; 128 GPUs x 200G.
//  dgx_h100_superpod: 256 GPUs; 32 + 8 + 4 = 44 switches; 256 + 256 + 8 x 4 x 8 = 768 links;
//    128 GPUs x 400G.
//  dragonfly_small: 9 x 4 x 2 = 72 hosts, 36 routers; 72 + 9 x 6 local + 36 global = 162
//    links; estimated (checked separately below).
//  torus_4x4x4: 64 hosts, 64 switches, 64 + 192 links; 32 x 100G.
const Expected kExpected[] = {
    {"fat_tree_k8.yaml", "fat_tree", 128, 80, 384, 6, 6400, true},
    {"fat_tree_k16.yaml", "fat_tree", 1024, 320, 3072, 6, 51200, true},
    {"leaf_spine_64.yaml", "leaf_spine", 64, 8, 80, 4, 800, true},
    {"leaf_spine_128_200g.yaml", "leaf_spine", 128, 24, 256, 4, 12800, true},
    {"dgx_a100_pod.yaml", "rail", 256, 56, 768, 4, 25600, true},
    {"dgx_h100_superpod.yaml", "rail", 256, 44, 768, 4, 51200, true},
    {"dragonfly_small.yaml", "dragonfly", 72, 36, 162, 5, -1, false},
    {"torus_4x4x4.yaml", "torus", 64, 64, 256, 8, 3200, true},
};

TEST(Presets, AllLoadWithTheirDocumentedSize) {
  ASSERT_EQ(std::size(kExpected), std::size(testing::kPresets));
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.file);
    const Topology t = load_topology(preset(e.file));
    EXPECT_EQ(t.name() + ".yaml", e.file);
    EXPECT_EQ(t.kind(), e.kind);
    const TopologyMetrics m = compute_metrics(t);
    EXPECT_EQ(m.hosts, e.hosts);
    EXPECT_EQ(m.switches, e.switches);
    EXPECT_EQ(m.links, e.links);
    EXPECT_TRUE(m.connected);
    EXPECT_EQ(m.diameter_hops, e.diameter);
    EXPECT_EQ(m.bisection_exact, e.exact);
    if (e.bisection_gbps >= 0) {
      EXPECT_EQ(m.bisection_bandwidth_bps, e.bisection_gbps * 1'000'000'000);
    }
  }
}

TEST(Presets, FatTreeK16IsTheBenchmarkTopology) {
  const Topology t = load_topology(preset("fat_tree_k16.yaml"));
  for (const Link& l : t.links()) {
    EXPECT_EQ(l.bandwidth, Bandwidth::gbps(100));
    EXPECT_EQ(l.latency, SimTime::us(1));
  }
}

TEST(Presets, DgxServersAndNvlink) {
  const Topology a100 = load_topology(preset("dgx_a100_pod.yaml"));
  EXPECT_EQ(compute_metrics(a100).nvswitches, 32u);
  EXPECT_EQ(a100.node(a100.host(8 * 31 + 7)).name, "s31g7");
  EXPECT_EQ(a100.node(a100.host(8 * 31 + 7)).server, 31u);
  EXPECT_EQ(a100.link(a100.ports(a100.host(0))[0].link).bandwidth, Bandwidth::gbps(2400));
  const Topology h100 = load_topology(preset("dgx_h100_superpod.yaml"));
  EXPECT_EQ(h100.link(h100.ports(h100.host(0))[0].link).bandwidth, Bandwidth::gbps(3600));
  EXPECT_EQ(h100.link(h100.ports(h100.host(0))[1].link).bandwidth, Bandwidth::gbps(400));
  // 1:1: a leaf has as much up (4 spines x 8) as down (32 GPUs).
  const auto& leaf_ports = h100.ports(*h100.find("rail0leaf0"));
  EXPECT_EQ(leaf_ports.size(), 64u);
}

TEST(Presets, DragonflyEstimateIsBetweenTheBounds) {
  const Topology t = load_topology(preset("dragonfly_small.yaml"));
  const TopologyMetrics m = compute_metrics(t);
  // A balanced cut of 20 links exists: split one group M 2|2 (4 local links); routers 0 and 1
  // of M have the global links to groups M+1..M+4, routers 2 and 3 to M+5..M+8, so with
  // M+1..M+4 on the side of routers 0 and 1 no global link of M is cut, and the 4 x 4 pairs of
  // whole groups on opposite sides add one global link each: 16 + 4 = 20 x 100G, 36 hosts a
  // side. The estimate must find a cut at least that good (it is an upper bound, not exact).
  EXPECT_LE(m.bisection_bandwidth_bps, 2'000'000'000'000);
  EXPECT_GT(m.bisection_bandwidth_bps, 0);
  EXPECT_FALSE(m.bisection_exact);
  std::vector<std::uint8_t> side;
  const std::int64_t metis = estimate_bisection_metis(t, &side);
  std::uint32_t on_one = 0;
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h) on_one += side[t.host(h)];
  EXPECT_EQ(on_one, 36u);
  EXPECT_EQ(cut_bandwidth(t, side), metis);
  EXPECT_GE(metis, m.bisection_bandwidth_bps);
}

}  // namespace
}  // namespace collsim::topo
