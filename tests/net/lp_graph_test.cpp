// The partition's view of a fabric (lp_graph_of): each device's expected load. A job on part
// of a cluster must be split over the ranks, not balanced against the idle rest.

#include <gtest/gtest.h>

#include "collsim/net/fabric.hpp"
#include "collsim/pdes/partition.hpp"
#include "collsim/topo/loader.hpp"
#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

// star(4): hosts are nodes 0..3 (one port each), the switch node 4 (four ports).
topo::Topology four_hosts() { return testing::star(4, Bandwidth::gbps(100), SimTime::ns(1000)); }

TEST(LpGraph, EveryHostBusyWeighsDevicesByTheirPorts) {
  const topo::Topology t = four_hosts();
  const pdes::LpGraph g = lp_graph_of(t);
  ASSERT_EQ(g.num_lps, 5u);
  EXPECT_EQ(g.weight, (std::vector<std::uint32_t>{1, 1, 1, 1, 4}));
  EXPECT_EQ(lp_graph_of(t, {true, true, true, true}).weight, g.weight);
  EXPECT_EQ(g.edges.size(), 4u);
}

TEST(LpGraph, IdleHostsAndThePortsFacingThemWeighAlmostNothing) {
  // Hosts 0 and 1 busy: 1024 × their one port; 2 and 3 idle: 1; the switch: 1024 × the two
  // ports that face busy hosts.
  const pdes::LpGraph g = lp_graph_of(four_hosts(), {true, true, false, false});
  EXPECT_EQ(g.weight, (std::vector<std::uint32_t>{1024, 1024, 1, 1, 2048}));
}

TEST(LpGraph, TwoRanksSplitAJobOnAnEighthOfADgxCluster) {
  // 128 of dgx_a100_1024's GPUs (its first 16 servers) run a job. Balanced by ports, all of
  // them sat on one rank (the other simulated nothing); weighed by what is busy, each rank
  // gets some servers (32 and 96 GPUs here, with the rail switches that serve them: a
  // pipelined job's events then split 49/51 %).
  const topo::Topology t = topo::load_topology(COLLSIM_TOPOLOGIES "/dgx_a100_1024.yaml");
  std::vector<bool> busy(t.num_hosts(), false);
  for (std::uint32_t h = 0; h < 128; ++h) busy[h] = true;
  std::uint32_t busy_on[2] = {0, 0};
  const pdes::Partition p = pdes::make_partition(lp_graph_of(t, busy), 2, pdes::PartitionMethod::Metis);
  for (std::uint32_t h = 0; h < 128; ++h) ++busy_on[p.owner[t.host(h)]];
  EXPECT_GE(busy_on[0], 16u);
  EXPECT_GE(busy_on[1], 16u);
}

TEST(LpGraph, TwoRanksSplitTwoBusyServersOfAPodOneEach) {
  // gpt3_1.3b's 16 GPUs are dgx_a100_pod's first two servers. Its hundreds of idle switches
  // must not weigh like servers: each rank gets one server whole, with its NVSwitch (whose
  // NVLinks, 100 ns, would otherwise set the lookahead), so only InfiniBand links are cut.
  const topo::Topology t = topo::load_topology(COLLSIM_TOPOLOGIES "/dgx_a100_pod.yaml");
  std::vector<bool> busy(t.num_hosts(), false);
  for (std::uint32_t h = 0; h < 16; ++h) busy[h] = true;
  const pdes::Partition p = pdes::make_partition(lp_graph_of(t, busy), 2, pdes::PartitionMethod::Metis);
  for (std::uint32_t h = 1; h < 8; ++h) EXPECT_EQ(p.owner[t.host(h)], p.owner[t.host(0)]) << "GPU " << h;
  for (std::uint32_t h = 9; h < 16; ++h) EXPECT_EQ(p.owner[t.host(h)], p.owner[t.host(8)]) << "GPU " << h;
  EXPECT_NE(p.owner[t.host(0)], p.owner[t.host(8)]);
  EXPECT_EQ(pdes::lookahead_of(lp_graph_of(t, busy), p), SimTime::ns(500));
}

}  // namespace
}  // namespace collsim::net
