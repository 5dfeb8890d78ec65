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
  // gets a share of them (48 and 80 here, with the rail switches that serve them), in whole
  // servers: NVLink (100 ns) is never cut while servers can be balanced, so the lookahead is
  // the NICs' 500 ns and each server's NVLink stays inside a rank, where its traffic can be
  // promised not to leave.
  const topo::Topology t = topo::load_topology(COLLSIM_TOPOLOGIES "/dgx_a100_1024.yaml");
  std::vector<bool> busy(t.num_hosts(), false);
  for (std::uint32_t h = 0; h < 128; ++h) busy[h] = true;
  std::uint32_t busy_on[2] = {0, 0};
  const pdes::LpGraph graph = lp_graph_of(t, busy);
  const pdes::Partition p = pdes::make_partition(graph, 2, pdes::PartitionMethod::Metis);
  for (std::uint32_t h = 0; h < 128; ++h) ++busy_on[p.owner[t.host(h)]];
  EXPECT_GE(busy_on[0], 32u);
  EXPECT_GE(busy_on[1], 32u);
  for (std::uint32_t h = 0; h < 128; ++h) EXPECT_EQ(p.owner[t.host(h)], p.owner[t.host(h - h % 8)]) << "GPU " << h;
  EXPECT_EQ(pdes::lookahead_of(graph, p), SimTime::ns(500));
}

}  // namespace
}  // namespace collsim::net
