// Metrics: hop distances, diameter, bisection (closed forms against exhaustive search on small
// instances, METIS on explicit topologies).

#include "collsim/topo/metrics.hpp"

#include <gtest/gtest.h>

#include <string>

#include "collsim/topo/generators.hpp"
#include "topo_test_util.hpp"

namespace collsim::topo {
namespace {

using testing::fat_tree;
using testing::leaf_spine;
using testing::torus;

using testing::brute_force_bisection;
using testing::parse;

LinkSpec spec(std::int64_t gbps) { return {Bandwidth::gbps(gbps), SimTime::ns(500)}; }

TEST(Distances, FatTree) {
  const Topology t = make_fat_tree(fat_tree(4));
  const auto hops = host_hops_from(t, 0);
  EXPECT_EQ(hops[0], 0u);
  EXPECT_EQ(hops[1], 2u);   // same edge switch: host - edge - host
  EXPECT_EQ(hops[2], 4u);   // same pod: up to an aggregation switch
  EXPECT_EQ(hops[4], 6u);   // another pod: through a core switch
  EXPECT_EQ(hops[15], 6u);
  const TopologyMetrics m = compute_metrics(t);
  EXPECT_EQ(m.diameter_hops, 6u);
  EXPECT_TRUE(m.connected);
  // From h0: 1 host at 2, 2 at 4, 12 at 6; every host sees the same: mean (2 + 8 + 72) / 15.
  EXPECT_NEAR(m.mean_hops, 82.0 / 15.0, 1e-9);
}

TEST(Distances, LeafSpine) {
  const Topology t = make_leaf_spine(leaf_spine(4, 2, 3));
  const auto hops = host_hops_from(t, 0);
  EXPECT_EQ(hops[2], 2u);
  EXPECT_EQ(hops[3], 4u);
  EXPECT_EQ(compute_metrics(t).diameter_hops, 4u);
  // A single leaf: every pair is 2 hops apart.
  EXPECT_EQ(compute_metrics(make_leaf_spine(leaf_spine(1, 0, 4))).diameter_hops, 2u);
}

TEST(Distances, Torus) {
  // 4x4x4, one host per switch: host - switch (1) + 2+2+2 ring hops + switch - host (1) = 8.
  const Topology t = make_torus(torus({4, 4, 4}));
  const TopologyMetrics m = compute_metrics(t);
  EXPECT_EQ(m.diameter_hops, 8u);
  const auto hops = host_hops_from(t, 0);
  EXPECT_EQ(hops[1 + 4 * (1 + 4 * 1)], 2u + 3u);  // switch (1,1,1)
  EXPECT_EQ(hops[2 + 4 * (2 + 4 * 2)], 8u);       // switch (2,2,2)
  EXPECT_EQ(hops[3], 3u);                          // (3,0,0) is one wrap-around hop away
}

TEST(Distances, RailAndDragonfly) {
  RailParams p;
  p.servers = 4;
  p.gpus_per_server = 4;
  p.servers_per_leaf = 2;
  p.spines = 2;
  const Topology rail = make_rail(p);
  const auto hops = host_hops_from(rail, 0);
  EXPECT_EQ(hops[1], 2u);   // same server: through the NVSwitch
  EXPECT_EQ(hops[4], 2u);   // same rail, same leaf
  EXPECT_EQ(hops[8], 4u);   // same rail, other leaf: through a spine
  EXPECT_EQ(hops[5], 4u);   // other rail, other server: leaf - spine - leaf (never through a GPU)
  EXPECT_EQ(compute_metrics(rail).diameter_hops, 4u);

  DragonflyParams d;
  d.groups = 9;
  d.routers_per_group = 4;
  d.hosts_per_router = 2;
  d.global_links_per_router = 2;
  // Host - router - (local) - router - (global) - router - (local) - router - host = 5 links
  // between routers at most: 1 + 3 + 1.
  EXPECT_EQ(compute_metrics(make_dragonfly(d)).diameter_hops, 5u);
}

TEST(Distances, HostToHostLinksAndDisconnected) {
  Topology t;
  const NodeId a = t.add_node("a", NodeKind::Host);
  const NodeId b = t.add_node("b", NodeKind::Host);
  const NodeId c = t.add_node("c", NodeKind::Host);
  const NodeId s = t.add_node("s", NodeKind::Switch);
  t.add_link(a, b, Bandwidth::gbps(1), SimTime::zero());
  t.add_link(b, s, Bandwidth::gbps(1), SimTime::zero());
  t.add_link(c, s, Bandwidth::gbps(1), SimTime::zero());
  TopologyMetrics m = compute_metrics(t);
  EXPECT_FALSE(m.connected);  // a reaches c only through host b
  EXPECT_EQ(m.diameter_hops, 2u);
  t.add_link(a, s, Bandwidth::gbps(1), SimTime::zero());
  m = compute_metrics(t);
  EXPECT_TRUE(m.connected);
  EXPECT_EQ(m.diameter_hops, 2u);
  EXPECT_NEAR(m.mean_hops, (1.0 + 2.0 + 2.0) / 3.0, 1e-9);
  EXPECT_EQ(host_hops_from(t, 0)[1], 1u);
}

TEST(Counts, LinkClassesAndRadix) {
  RailParams p;
  p.servers = 2;
  p.gpus_per_server = 8;
  p.spines = 1;
  const TopologyMetrics m = compute_metrics(make_rail(p));
  EXPECT_EQ(m.hosts, 16u);
  EXPECT_EQ(m.switches, 2u + 8u + 1u);
  EXPECT_EQ(m.nvswitches, 2u);
  EXPECT_EQ(m.links, 16u + 16u + 8u);
  ASSERT_EQ(m.link_classes.size(), 2u);  // NIC and fabric links are the same class
  EXPECT_EQ(m.link_classes[0].medium, LinkMedium::Network);
  EXPECT_EQ(m.link_classes[0].count, 24u);
  EXPECT_EQ(m.link_classes[1].medium, LinkMedium::NvLink);
  EXPECT_EQ(m.link_classes[1].count, 16u);
  EXPECT_EQ(m.min_link_bandwidth, Bandwidth::gbps(200));
  EXPECT_EQ(m.max_link_bandwidth, Bandwidth::gbps(2400));
  EXPECT_EQ(m.max_switch_ports, 8u);  // NVSwitch and the spine
  EXPECT_EQ(m.max_host_ports, 2u);
}

// --- Bisection: closed forms -------------------------------------------------------------

TEST(Bisection, FatTreeClosedForm) {
  // Full bisection: H/2 host links. k=4: 8 x 100G; k=16: 512 x 100G.
  TopologyMetrics m = compute_metrics(make_fat_tree(fat_tree(4, 1, spec(100))));
  EXPECT_EQ(m.bisection_bandwidth_bps, 800'000'000'000);
  EXPECT_TRUE(m.bisection_exact);
  m = compute_metrics(make_fat_tree(fat_tree(16, 1, spec(100))));
  EXPECT_EQ(m.bisection_bandwidth_bps, 51'200'000'000'000);
  // 2:1 oversubscribed: 32 hosts, but only k^3/8 = 8 core links cross the pod halves.
  m = compute_metrics(make_fat_tree(fat_tree(4, 2, spec(100))));
  EXPECT_EQ(m.bisection_bandwidth_bps, 800'000'000'000);
  // Slow host links: isolating 8 of the 16 hosts is cheaper.
  m = compute_metrics(make_fat_tree(fat_tree(4, 1, spec(100), spec(10))));
  EXPECT_EQ(m.bisection_bandwidth_bps, 80'000'000'000);
}

TEST(Bisection, LeafSpineClosedForm) {
  // 8 leaves x 16 hosts, 16 spines, 200G: 4 leaves x 16 uplinks = 64 x 200G.
  TopologyMetrics m =
      compute_metrics(make_leaf_spine(leaf_spine(8, 16, 16, 1, spec(200))));
  EXPECT_EQ(m.bisection_bandwidth_bps, 12'800'000'000'000);
  EXPECT_TRUE(m.bisection_exact);
  // 4 x 16, 4 spines: 2 leaves x 4 uplinks = 8 x 100G (4:1 oversubscribed).
  m = compute_metrics(make_leaf_spine(leaf_spine(4, 4, 16, 1, spec(100))));
  EXPECT_EQ(m.bisection_bandwidth_bps, 800'000'000'000);
}

TEST(Bisection, TorusClosedForm) {
  // 4x4x4: the cut across a dimension cuts 2 x 16 = 32 links; isolating 32 hosts is as much.
  const TopologyMetrics m = compute_metrics(make_torus(torus({4, 4, 4}, 1, spec(100))));
  EXPECT_EQ(m.bisection_bandwidth_bps, 3'200'000'000'000);
  EXPECT_TRUE(m.bisection_exact);
}

// The closed forms against exhaustive search: exact ones equal it, the others bound it.
void expect_matches_brute_force(const Topology& t, const std::string& what) {
  const std::int64_t exact = brute_force_bisection(t);
  const auto& closed = t.closed_form_bisection();
  ASSERT_TRUE(closed.has_value()) << what;
  if (closed->exact) {
    EXPECT_EQ(closed->bps, exact) << what;
  } else {
    EXPECT_GE(closed->bps, exact) << what;
  }
  const TopologyMetrics m = compute_metrics(t);
  EXPECT_GE(m.bisection_bandwidth_bps, exact) << what;
  if (m.bisection_exact) {
    EXPECT_EQ(m.bisection_bandwidth_bps, exact) << what;
  }
}

TEST(Bisection, FatTreeAgainstExhaustiveSearch) {
  for (std::uint32_t o : {1u, 2u, 3u})
    for (std::int64_t host_gbps : {10, 100, 250}) {
      expect_matches_brute_force(make_fat_tree(fat_tree(2, o, spec(100), spec(host_gbps))),
                                 "k=2 o=" + std::to_string(o) + " host " + std::to_string(host_gbps));
    }
  // k=4 (20 switches, 2^19 assignments): once, with host links slower than the fabric's share.
  expect_matches_brute_force(make_fat_tree(fat_tree(4, 1, spec(100), spec(40))), "k=4 host 40G");
}

TEST(Bisection, LeafSpineAgainstExhaustiveSearch) {
  for (std::uint32_t leaves : {2u, 3u, 5u})
    for (std::uint32_t n : {1u, 2u, 3u})
      for (std::uint32_t spines : {1u, 2u, 3u})
        for (std::int64_t host_gbps : {10, 100, 400}) {
          const LeafSpineParams p = leaf_spine(leaves, spines, n, 1, spec(100), spec(host_gbps));
          if (leaves * n < 2) continue;
          expect_matches_brute_force(make_leaf_spine(p), "leaf-spine " + std::to_string(leaves) + "x" +
                                                             std::to_string(n) + " s" + std::to_string(spines) +
                                                             " host " + std::to_string(host_gbps));
        }
}

TEST(Bisection, TorusAgainstExhaustiveSearch) {
  const std::vector<std::vector<std::uint32_t>> shapes = {{2, 2}, {2, 4}, {4, 4}, {3, 3}, {3, 4}, {2, 2, 2}, {2, 2, 3},
                                                          {2, 3}, {3, 5}};
  for (const auto& dims : shapes)
    for (std::uint32_t hp : {1u, 2u})
      for (std::int64_t host_gbps : {30, 100, 300}) {
        std::string what = "torus";
        for (auto d : dims) what += " " + std::to_string(d);
        what += " hosts " + std::to_string(hp) + " host " + std::to_string(host_gbps);
        expect_matches_brute_force(make_torus(torus(dims, hp, spec(100), spec(host_gbps))),
                                   what);
      }
}

TEST(Bisection, RailAgainstExhaustiveSearch) {
  struct Case {
    std::uint32_t servers, gpus, per_leaf, spines;
    std::int64_t nvlink, nic, fabric;
  };
  const Case cases[] = {
      {2, 2, 0, 1, 2400, 200, 200}, {4, 2, 2, 1, 2400, 200, 200}, {4, 2, 2, 2, 2400, 200, 50},
      {4, 2, 1, 1, 2400, 200, 200}, {2, 4, 1, 2, 2400, 200, 200}, {4, 2, 2, 1, 100, 200, 200},
      {2, 2, 1, 1, 50, 200, 200},   {3, 2, 1, 1, 2400, 200, 200}, {6, 1, 2, 2, 2400, 200, 100},
  };
  for (const Case& c : cases) {
    RailParams p;
    p.servers = c.servers;
    p.gpus_per_server = c.gpus;
    p.servers_per_leaf = c.per_leaf;
    p.spines = c.spines;
    p.nvlink = spec(c.nvlink);
    p.nic = spec(c.nic);
    p.fabric_link = spec(c.fabric);
    const Topology t = make_rail(p);
    const std::string what = "rail " + std::to_string(c.servers) + "x" + std::to_string(c.gpus) + " P" +
                             std::to_string(c.per_leaf) + " S" + std::to_string(c.spines) + " nv" +
                             std::to_string(c.nvlink) + " fabric" + std::to_string(c.fabric);
    const std::int64_t exact = brute_force_bisection(t);
    const TopologyMetrics m = compute_metrics(t);
    EXPECT_GE(m.bisection_bandwidth_bps, exact) << what;
    if (m.bisection_exact) {
      EXPECT_EQ(m.bisection_bandwidth_bps, exact) << what;
    }
    if (t.closed_form_bisection()) {
      if (t.closed_form_bisection()->exact) {
        EXPECT_EQ(t.closed_form_bisection()->bps, exact) << what;
      }
      EXPECT_GE(t.closed_form_bisection()->bps, exact) << what;
    }
  }
  // The usual case is exact: 2 servers x 2 GPUs on one leaf per rail, NVLink faster than the
  // NIC: the NIC links of one server's GPUs, 2 x 200G.
  RailParams p;
  p.servers = 2;
  p.gpus_per_server = 2;
  p.spines = 1;
  const TopologyMetrics m = compute_metrics(make_rail(p));
  EXPECT_TRUE(m.bisection_exact);
  EXPECT_EQ(m.bisection_bandwidth_bps, 400'000'000'000);
}

TEST(Bisection, DragonflyIsAnEstimateAndAnUpperBound) {
  struct Case {
    std::uint32_t groups, routers, hosts, globals;
  };
  for (const Case& c : {Case{3, 2, 1, 1}, Case{4, 2, 1, 2}, Case{5, 2, 2, 2}, Case{4, 3, 1, 1}, Case{2, 4, 1, 1}}) {
    DragonflyParams p;
    p.groups = c.groups;
    p.routers_per_group = c.routers;
    p.hosts_per_router = c.hosts;
    p.global_links_per_router = c.globals;
    const Topology t = make_dragonfly(p);
    const TopologyMetrics m = compute_metrics(t);
    EXPECT_FALSE(m.bisection_exact);
    EXPECT_GE(m.bisection_bandwidth_bps, brute_force_bisection(t)) << c.groups << "x" << c.routers;
    EXPECT_NE(m.bisection_method.find("METIS"), std::string::npos);
  }
  // 3 groups x 2 routers x 1 host, one global link per router: a 6-cycle of routers
  // (local, global, local, ...) with a host each; halves of 3 consecutive routers cut 2 links.
  DragonflyParams p;
  p.groups = 3;
  p.routers_per_group = 2;
  p.hosts_per_router = 1;
  p.global_links_per_router = 1;
  EXPECT_EQ(compute_metrics(make_dragonfly(p)).bisection_bandwidth_bps, 200'000'000'000);
}

// --- Bisection: METIS on explicit topologies ---------------------------------------------

TEST(Bisection, MetisFindsTheDumbbellCut) {
  // Two switches with 4 hosts each (100G), joined by two 10G links: the smallest balanced cut
  // is the two 10G links, 20G.
  std::string yaml = "kind: explicit\nlink: {bandwidth: 100Gbps, latency: 1us}\nnodes:\n";
  std::string links = "links:\n  - {a: s0, b: s1, bandwidth: 10Gbps}\n  - {a: s1, b: s0, bandwidth: 10Gbps}\n";
  for (int h = 0; h < 8; ++h) {
    yaml += "  - {name: h" + std::to_string(h) + ", kind: host}\n";
    links += "  - {a: h" + std::to_string(h) + ", b: s" + std::to_string(h / 4) + "}\n";
  }
  yaml += "  - {name: s0, kind: switch}\n  - {name: s1, kind: switch}\n" + links;
  const Topology t = parse(yaml);
  EXPECT_EQ(brute_force_bisection(t), 20'000'000'000);
  std::vector<std::uint8_t> side;
  EXPECT_EQ(estimate_bisection_metis(t, &side), 20'000'000'000);
  EXPECT_NE(side[*t.find("s0")], side[*t.find("s1")]);
  const TopologyMetrics m = compute_metrics(t);
  EXPECT_EQ(m.bisection_bandwidth_bps, 20'000'000'000);
  EXPECT_FALSE(m.bisection_exact);
  EXPECT_EQ(m.bisection_method.rfind("estimate", 0), 0u);
}

TEST(Bisection, MetisOnAnExplicitLeafSpine) {
  // The 4 x 4 leaf-spine with 2 spines written out by hand: exact value 2 leaves x 2 uplinks
  // x 100G = 400G.
  std::string yaml = "kind: explicit\nlink: {bandwidth: 100Gbps, latency: 1us}\nnodes:\n";
  std::string links = "links:\n";
  for (int h = 0; h < 16; ++h) {
    yaml += "  - {name: h" + std::to_string(h) + ", kind: host}\n";
    links += "  - {a: h" + std::to_string(h) + ", b: leaf" + std::to_string(h / 4) + "}\n";
  }
  for (int l = 0; l < 4; ++l) {
    yaml += "  - {name: leaf" + std::to_string(l) + ", kind: switch}\n";
    for (int s = 0; s < 2; ++s) links += "  - {a: leaf" + std::to_string(l) + ", b: spine" + std::to_string(s) + "}\n";
  }
  yaml += "  - {name: spine0, kind: switch}\n  - {name: spine1, kind: switch}\n" + links;
  const Topology t = parse(yaml);
  EXPECT_EQ(brute_force_bisection(t), 400'000'000'000);
  EXPECT_EQ(compute_metrics(t).bisection_bandwidth_bps, 400'000'000'000);
}

TEST(Bisection, CutBandwidthAndOddHostCounts) {
  // 3 hosts on a switch: halves of 1 and 2 hosts; the best cut isolates one host.
  const Topology t = parse(R"(kind: explicit
nodes: [{name: a, kind: host}, {name: b, kind: host}, {name: c, kind: host}, {name: s, kind: switch}]
links: [{a: a, b: s, bandwidth: 10Gbps, latency: 1us}, {a: b, b: s, bandwidth: 20Gbps, latency: 1us},
        {a: c, b: s, bandwidth: 30Gbps, latency: 1us}]
)");
  EXPECT_EQ(compute_metrics(t).bisection_bandwidth_bps, 10'000'000'000);
  std::vector<std::uint8_t> side = {1, 0, 0, 0};
  EXPECT_EQ(cut_bandwidth(t, side), 10'000'000'000);
  side = {1, 1, 0, 0};
  EXPECT_EQ(cut_bandwidth(t, side), 30'000'000'000);
}

}  // namespace
}  // namespace collsim::topo
