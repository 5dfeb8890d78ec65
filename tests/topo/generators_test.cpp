// The generators: sizes derived by hand, names, host order, port numbering, parameter checks.

#include "collsim/topo/generators.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "collsim/topo/loader.hpp"
#include "collsim/topo/metrics.hpp"
#include "topo_test_util.hpp"

namespace collsim::topo {
namespace {

using testing::fat_tree;
using testing::id;
using testing::leaf_spine;
using testing::torus;

const LinkSpec k100{Bandwidth::gbps(100), SimTime::us(1)};


// The node on port `port` of `name`.
std::string peer(const Topology& t, const std::string& name, PortIndex port) {
  return t.node(t.ports(id(t, name)).at(port).peer).name;
}

// Every link appears on the ports of both its ends, at the indices it records.
void expect_consistent_ports(const Topology& t) {
  for (LinkId l = 0; l < t.links().size(); ++l) {
    const Link& link = t.link(l);
    ASSERT_LT(link.port_a, t.ports(link.a).size());
    ASSERT_LT(link.port_b, t.ports(link.b).size());
    EXPECT_EQ(t.ports(link.a)[link.port_a].link, l);
    EXPECT_EQ(t.ports(link.a)[link.port_a].peer, link.b);
    EXPECT_EQ(t.ports(link.a)[link.port_a].peer_port, link.port_b);
    EXPECT_EQ(t.ports(link.b)[link.port_b].link, l);
    EXPECT_EQ(t.ports(link.b)[link.port_b].peer, link.a);
  }
  EXPECT_FALSE(check_topology(t).has_value());
}

// Hosts come first, in rank order: host rank h is node h, named h<rank> unless said otherwise.
void expect_hosts_first(const Topology& t) {
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h) {
    EXPECT_EQ(t.host(h), h);
    EXPECT_EQ(t.node(h).kind, NodeKind::Host);
    EXPECT_EQ(t.node(h).index, h);
  }
}

TEST(FatTree, CountsK4) {
  // k=4: 4 pods x (2 edge x 2 hosts) = 16 hosts; 4 pods x (2 edge + 2 agg) + (4/2)^2 core =
  // 20 switches; 16 host links + 4 pods x 2 edge x 2 agg + 4 pods x 2 agg x 2 core = 48 links.
  const Topology t = make_fat_tree(fat_tree(4, 1, k100));
  EXPECT_EQ(t.num_hosts(), 16u);
  EXPECT_EQ(t.num_switches(), 20u);
  EXPECT_EQ(t.links().size(), 48u);
  EXPECT_EQ(t.hosts_per_server(), 1u);  // every host is a server of its own
  EXPECT_EQ(t.kind(), "fat_tree");
  expect_consistent_ports(t);
  expect_hosts_first(t);
}

TEST(FatTree, CountsK8AndK16) {
  // k=8: k^3/4 = 128 hosts, 5k^2/4 = 80 switches, 3k^3/4 = 384 links.
  const Topology t8 = make_fat_tree(fat_tree(8, 1, k100));
  EXPECT_EQ(t8.num_hosts(), 128u);
  EXPECT_EQ(t8.num_switches(), 80u);
  EXPECT_EQ(t8.links().size(), 384u);
  // k=16: 1024 hosts, 320 switches (16 pods x 16 + 64 core), 3072 links.
  const Topology t16 = make_fat_tree(fat_tree(16, 1, k100));
  EXPECT_EQ(t16.num_hosts(), 1024u);
  EXPECT_EQ(t16.num_switches(), 320u);
  EXPECT_EQ(t16.links().size(), 3072u);
  expect_consistent_ports(t16);
}

TEST(FatTree, Oversubscription) {
  // k=4, 2:1: each edge switch has 2*2 = 4 hosts and 2 uplinks: 4 pods x 2 edges x 4 = 32
  // hosts, still 20 switches, 32 + 16 + 16 = 64 links.
  const Topology t = make_fat_tree(fat_tree(4, 2, k100));
  EXPECT_EQ(t.num_hosts(), 32u);
  EXPECT_EQ(t.num_switches(), 20u);
  EXPECT_EQ(t.links().size(), 64u);
  EXPECT_EQ(t.ports(id(t, "pod0_edge0")).size(), 6u);
  EXPECT_EQ(peer(t, "pod0_edge1", 3), "h7");
  EXPECT_EQ(peer(t, "pod0_edge1", 4), "pod0_agg0");
}

TEST(FatTree, HostOrderNamesAndPorts) {
  const LinkSpec host_link{Bandwidth::gbps(25), SimTime::ns(200)};
  const Topology t = make_fat_tree(fat_tree(4, 1, k100, host_link));
  // Hosts pod by pod, edge by edge: h4, h5 under pod1_edge0.
  EXPECT_EQ(peer(t, "h5", 0), "pod1_edge0");
  EXPECT_EQ(t.ports(id(t, "h5"))[0].peer_port, 1u);
  EXPECT_EQ(t.node(id(t, "h5")).server, 5u);
  // Edge switch: hosts, then the aggregation switches of its pod.
  EXPECT_EQ(peer(t, "pod1_edge0", 0), "h4");
  EXPECT_EQ(peer(t, "pod1_edge0", 1), "h5");
  EXPECT_EQ(peer(t, "pod1_edge0", 2), "pod1_agg0");
  EXPECT_EQ(peer(t, "pod1_edge0", 3), "pod1_agg1");
  // Aggregation switch a: edges of its pod, then cores a*k/2 ...
  EXPECT_EQ(peer(t, "pod1_agg1", 0), "pod1_edge0");
  EXPECT_EQ(peer(t, "pod1_agg1", 1), "pod1_edge1");
  EXPECT_EQ(peer(t, "pod1_agg1", 2), "core2");
  EXPECT_EQ(peer(t, "pod1_agg1", 3), "core3");
  // Core c: port p = pod p.
  for (int p = 0; p < 4; ++p) EXPECT_EQ(peer(t, "core3", static_cast<PortIndex>(p)), "pod" + std::to_string(p) + "_agg1");
  // Switch indices: edges, aggregation, cores.
  EXPECT_EQ(t.node(id(t, "pod0_edge0")).index, 0u);
  EXPECT_EQ(t.node(id(t, "pod0_agg0")).index, 8u);
  EXPECT_EQ(t.node(id(t, "core0")).index, 16u);
  // Host links use host_link, the others link.
  EXPECT_EQ(t.link(t.ports(id(t, "h5"))[0].link).bandwidth, Bandwidth::gbps(25));
  EXPECT_EQ(t.link(t.ports(id(t, "h5"))[0].link).latency, SimTime::ns(200));
  EXPECT_EQ(t.link(t.ports(id(t, "core0"))[0].link).bandwidth, Bandwidth::gbps(100));
}

TEST(FatTree, ParameterChecks) {
  for (std::uint32_t k : {0u, 1u, 3u, 7u}) {
    try {
      make_fat_tree(fat_tree(k));
      ADD_FAILURE() << k;
    } catch (const ParameterError& e) {
      EXPECT_EQ(e.parameter(), "k");
      EXPECT_NE(std::string(e.what()).find("even and at least 2"), std::string::npos) << e.what();
    }
  }
  try {
    make_fat_tree(fat_tree(4, 0));
    ADD_FAILURE();
  } catch (const ParameterError& e) {
    EXPECT_EQ(e.parameter(), "oversubscription");
  }
  // 1000^3/4 hosts: refused before anything is allocated.
  try {
    make_fat_tree(fat_tree(1000));
    ADD_FAILURE();
  } catch (const ParameterError& e) {
    EXPECT_EQ(e.parameter(), "k");
    EXPECT_NE(std::string(e.what()).find("at most 16777216 nodes"), std::string::npos) << e.what();
  }
  // k=2: 2 pods of 1 edge + 1 agg, 1 core, 2 hosts.
  const Topology t = make_fat_tree(fat_tree(2));
  EXPECT_EQ(t.num_hosts(), 2u);
  EXPECT_EQ(t.num_switches(), 5u);
  EXPECT_EQ(t.links().size(), 6u);
}

TEST(LeafSpine, Counts) {
  // 8 leaves x 16 hosts = 128 hosts; 8 + 16 = 24 switches; 128 host links + 8 x 16 = 128
  // leaf-spine links.
  const Topology t = make_leaf_spine(leaf_spine(8, 16, 16, 1, k100));
  EXPECT_EQ(t.num_hosts(), 128u);
  EXPECT_EQ(t.num_switches(), 24u);
  EXPECT_EQ(t.links().size(), 128u + 128u);
  expect_consistent_ports(t);
  expect_hosts_first(t);
  // 4 x 16 hosts, 4 spines, 2 parallel links: 64 hosts, 8 switches, 64 + 4*4*2 = 96 links.
  const Topology u = make_leaf_spine(leaf_spine(4, 4, 16, 2));
  EXPECT_EQ(u.num_hosts(), 64u);
  EXPECT_EQ(u.num_switches(), 8u);
  EXPECT_EQ(u.links().size(), 96u);
}

TEST(LeafSpine, Ports) {
  const Topology t = make_leaf_spine(leaf_spine(3, 2, 4, 2));
  // Leaf: hosts 0..3, then spine s link m at 4 + 2s + m.
  EXPECT_EQ(peer(t, "leaf1", 0), "h4");
  EXPECT_EQ(peer(t, "leaf1", 3), "h7");
  EXPECT_EQ(peer(t, "leaf1", 4), "spine0");
  EXPECT_EQ(peer(t, "leaf1", 5), "spine0");
  EXPECT_EQ(peer(t, "leaf1", 6), "spine1");
  // Spine: leaf l link m at 2l + m.
  EXPECT_EQ(peer(t, "spine1", 2), "leaf1");
  EXPECT_EQ(peer(t, "spine1", 3), "leaf1");
  EXPECT_EQ(peer(t, "spine1", 5), "leaf2");
  EXPECT_EQ(t.ports(id(t, "spine1"))[3].peer_port, 7u);
}

TEST(LeafSpine, ParameterChecks) {
  EXPECT_THROW(make_leaf_spine(leaf_spine(2, 0)), ParameterError);
  EXPECT_THROW(make_leaf_spine(leaf_spine(0)), ParameterError);
  EXPECT_THROW(make_leaf_spine(leaf_spine(1, 0, 1)), ParameterError);  // 1 host
  EXPECT_THROW(make_leaf_spine(leaf_spine(2, 2, 70000)), ParameterError);  // ports
  // One leaf, no spine: a star.
  const Topology star = make_leaf_spine(leaf_spine(1, 0, 5));
  EXPECT_EQ(star.num_switches(), 1u);
  EXPECT_EQ(star.links().size(), 5u);
}

TEST(Rail, CountsAndPorts) {
  // 32 servers x 8 GPUs, 16 servers per leaf: 2 leaves per rail, 16 leaves; 8 spines, 2 links
  // each: 256 GPUs; 32 NVSwitches + 16 leaves + 8 spines = 56 switches; 256 NVLinks + 256 NIC
  // links + 16 leaves x 8 spines x 2 = 768 links.
  RailParams p;
  p.servers = 32;
  p.gpus_per_server = 8;
  p.servers_per_leaf = 16;
  p.spines = 8;
  p.uplinks_per_spine = 2;
  const Topology t = make_rail(p);
  EXPECT_EQ(t.num_hosts(), 256u);
  EXPECT_EQ(t.num_switches(), 56u);
  EXPECT_EQ(t.links().size(), 768u);
  EXPECT_EQ(t.hosts_per_server(), 8u);
  expect_consistent_ports(t);
  EXPECT_EQ(t.kind(), "rail");
  // GPU 5 of server 3 is rank 29, server 3; port 0 its NVSwitch (port 5 there), port 1 the
  // leaf of rail 5 that serves servers 0..15 (port 3 there).
  const NodeId g = t.host(3 * 8 + 5);
  EXPECT_EQ(t.node(g).name, "s3g5");
  EXPECT_EQ(t.node(g).server, 3u);
  EXPECT_EQ(peer(t, "s3g5", 0), "nvs3");
  EXPECT_EQ(t.node(id(t, "nvs3")).kind, NodeKind::NvSwitch);
  EXPECT_EQ(t.ports(g)[0].peer_port, 5u);
  EXPECT_EQ(t.link(t.ports(g)[0].link).medium, LinkMedium::NvLink);
  EXPECT_EQ(t.link(t.ports(g)[0].link).bandwidth, Bandwidth::gbps(2400));
  EXPECT_EQ(peer(t, "s3g5", 1), "rail5leaf0");
  EXPECT_EQ(t.ports(g)[1].peer_port, 3u);
  EXPECT_EQ(t.link(t.ports(g)[1].link).medium, LinkMedium::Network);
  EXPECT_EQ(peer(t, "s20g5", 1), "rail5leaf1");
  EXPECT_EQ(t.ports(id(t, "s20g5"))[1].peer_port, 4u);
  // Leaf: 16 servers, then spine j link m at 16 + 2j + m. Spine: (g*2 + l)*2 + m.
  EXPECT_EQ(peer(t, "rail5leaf1", 16), "spine0");
  EXPECT_EQ(peer(t, "rail5leaf1", 19), "spine1");
  EXPECT_EQ(peer(t, "spine7", (5 * 2 + 1) * 2 + 1), "rail5leaf1");
  // Switch order: NVSwitches, leaves rail by rail, spines.
  EXPECT_EQ(t.node(id(t, "nvs0")).index, 0u);
  EXPECT_EQ(t.node(id(t, "rail0leaf0")).index, 32u);
  EXPECT_EQ(t.node(id(t, "rail1leaf0")).index, 34u);
  EXPECT_EQ(t.node(id(t, "spine0")).index, 48u);
}

TEST(Rail, UnevenLeaves) {
  // 5 servers x 2 GPUs, 2 servers per leaf: ceil(5/2) = 3 leaves per rail, 2 spines: 10 GPUs;
  // 5 + 6 + 2 = 13 switches; 10 + 10 + 6 x 2 = 32 links. The last leaf serves server 4 only.
  RailParams p;
  p.servers = 5;
  p.gpus_per_server = 2;
  p.servers_per_leaf = 2;
  p.spines = 2;
  const Topology t = make_rail(p);
  EXPECT_EQ(t.num_hosts(), 10u);
  EXPECT_EQ(t.num_switches(), 13u);
  EXPECT_EQ(t.links().size(), 32u);
  EXPECT_EQ(t.ports(id(t, "rail1leaf2")).size(), 1u + 2u);
  expect_consistent_ports(t);
}

TEST(Rail, SpinesNeeded) {
  RailParams p;
  p.servers = 2;
  p.gpus_per_server = 2;
  p.spines = 0;
  try {
    make_rail(p);
    ADD_FAILURE();
  } catch (const ParameterError& e) {
    EXPECT_EQ(e.parameter(), "spines");
  }
  // One server: its GPUs meet at the NVSwitch, no spine needed.
  p.servers = 1;
  p.gpus_per_server = 8;
  const Topology t = make_rail(p);
  EXPECT_EQ(t.num_switches(), 1u + 8u);
  // One rail with one leaf: no spine needed either.
  p.servers = 4;
  p.gpus_per_server = 1;
  EXPECT_EQ(make_rail(p).num_switches(), 4u + 1u);
}

TEST(Dragonfly, CountsAndGlobalArrangement) {
  // 9 groups x 4 routers x 2 hosts = 72 hosts; 36 routers; links: 72 host + 9 x C(4,2) = 54
  // local + 9 x 4 x 2 / 2 = 36 global = 162.
  DragonflyParams p;
  p.groups = 9;
  p.routers_per_group = 4;
  p.hosts_per_router = 2;
  p.global_links_per_router = 2;
  p.link = k100;
  p.global_link = LinkSpec{Bandwidth::gbps(100), SimTime::us(2)};
  const Topology t = make_dragonfly(p);
  EXPECT_EQ(t.num_hosts(), 72u);
  EXPECT_EQ(t.num_switches(), 36u);
  EXPECT_EQ(t.links().size(), 162u);
  expect_consistent_ports(t);
  expect_hosts_first(t);
  ASSERT_TRUE(t.dragonfly().has_value());
  EXPECT_EQ(t.dragonfly()->groups, 9u);
  EXPECT_EQ(t.dragonfly()->routers_per_group, 4u);
  EXPECT_EQ(t.dragonfly()->hosts_per_router, 2u);
  // Routers are the first switches, in group order.
  EXPECT_EQ(t.node(id(t, "g0r0")).index, 0u);
  EXPECT_EQ(t.node(id(t, "g2r3")).index, 11u);
  // g = a*h + 1: every pair of groups has exactly one global link; every router has 2.
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> pairs;
  std::map<NodeId, int> globals;
  for (const Link& l : t.links()) {
    if (t.node(l.a).kind == NodeKind::Host) continue;
    const std::uint32_t ga = t.node(l.a).index / 4, gb = t.node(l.b).index / 4;
    if (ga == gb) continue;
    EXPECT_EQ(l.latency, SimTime::us(2));
    ++pairs[{std::min(ga, gb), std::max(ga, gb)}];
    ++globals[l.a];
    ++globals[l.b];
  }
  EXPECT_EQ(pairs.size(), 36u);
  for (const auto& [pair, n] : pairs) EXPECT_EQ(n, 1) << pair.first << "-" << pair.second;
  EXPECT_EQ(globals.size(), 36u);
  for (const auto& [router, n] : globals) EXPECT_EQ(n, 2) << t.node(router).name;
  // Router ports: hosts, then local links by peer, then globals.
  EXPECT_EQ(peer(t, "g1r2", 0), "h12");
  EXPECT_EQ(peer(t, "g1r2", 1), "h13");
  EXPECT_EQ(peer(t, "g1r2", 2), "g1r0");
  EXPECT_EQ(peer(t, "g1r2", 3), "g1r1");
  EXPECT_EQ(peer(t, "g1r2", 4), "g1r3");
  EXPECT_EQ(t.ports(id(t, "g1r2")).size(), 2u + 3u + 2u);
}

TEST(Dragonfly, SeveralLinksPerPairAndUnusedPorts) {
  // 4 groups, 2 routers with 3 global links: 6 ports per group, 3 other groups, 2 links per
  // pair: 4 x 6 / 2 = 12 global links; 8 hosts, 4 local links: 24 links.
  DragonflyParams p;
  p.groups = 4;
  p.routers_per_group = 2;
  p.hosts_per_router = 1;
  p.global_links_per_router = 3;
  const Topology t = make_dragonfly(p);
  EXPECT_EQ(t.links().size(), 24u);
  // 2 global links per router: 4 ports per group, the 4th of each has no partner (6 links).
  p.global_links_per_router = 2;
  const Topology u = make_dragonfly(p);
  EXPECT_EQ(u.links().size(), 8u + 4u + 6u);
  expect_consistent_ports(u);
}

TEST(Dragonfly, ParameterChecks) {
  DragonflyParams p;
  p.groups = 10;
  p.routers_per_group = 4;
  p.hosts_per_router = 2;
  p.global_links_per_router = 2;
  try {
    make_dragonfly(p);
    ADD_FAILURE();
  } catch (const ParameterError& e) {
    EXPECT_EQ(e.parameter(), "groups");
    EXPECT_NE(std::string(e.what()).find("at most 9 groups"), std::string::npos) << e.what();
  }
  p.groups = 3;
  p.global_links_per_router = 0;
  EXPECT_THROW(make_dragonfly(p), ParameterError);
  // A single group needs no global links.
  p.groups = 1;
  EXPECT_EQ(make_dragonfly(p).links().size(), 8u + 6u);
}

TEST(Torus, Counts) {
  // 4x4x4: 64 switches, 64 hosts; 64 host links + 3 x 64 ring links = 256.
  const Topology t = make_torus(torus({4, 4, 4}, 1, k100));
  EXPECT_EQ(t.num_hosts(), 64u);
  EXPECT_EQ(t.num_switches(), 64u);
  EXPECT_EQ(t.links().size(), 256u);
  expect_consistent_ports(t);
  expect_hosts_first(t);
  ASSERT_TRUE(t.torus().has_value());
  EXPECT_EQ(t.torus()->dims, (std::vector<std::uint32_t>{4, 4, 4}));
  // 2x3 with 2 hosts per switch: 6 switches, 12 hosts; size-2 dimension: one link per pair,
  // 3; size-3 rings: 6; 12 + 3 + 6 = 21 links.
  const Topology u = make_torus(torus({2, 3}, 2));
  EXPECT_EQ(u.num_hosts(), 12u);
  EXPECT_EQ(u.num_switches(), 6u);
  EXPECT_EQ(u.links().size(), 21u);
  expect_consistent_ports(u);
}

TEST(Torus, CoordinatesAndNeighbours) {
  const Topology t = make_torus(torus({4, 4, 4}));
  // Switch i = x0 + 4*(x1 + 4*x2): (1,2,3) is switch 57, node 64 + 57.
  const NodeId s = id(t, "sw1_2_3");
  EXPECT_EQ(t.node(s).index, 57u);
  EXPECT_EQ(s, 64u + 57u);
  EXPECT_EQ(peer(t, "sw1_2_3", 0), "h57");
  std::set<std::string> peers;
  for (std::size_t p = 1; p < t.ports(s).size(); ++p) peers.insert(t.node(t.ports(s)[p].peer).name);
  EXPECT_EQ(peers, (std::set<std::string>{"sw0_2_3", "sw2_2_3", "sw1_1_3", "sw1_3_3", "sw1_2_2", "sw1_2_0"}));
  EXPECT_EQ(t.ports(id(t, "sw0_0_0")).size(), 7u);
}

TEST(Torus, ParameterChecks) {
  EXPECT_THROW(make_torus(torus({4})), ParameterError);
  EXPECT_THROW(make_torus(torus({4, 4, 4, 4})), ParameterError);
  EXPECT_THROW(make_torus(torus({4, 1})), ParameterError);
  EXPECT_THROW(make_torus(torus({4, 4}, 0)), ParameterError);
}

TEST(Generators, ClosedFormBisectionRecorded) {
  const Topology t = make_fat_tree(fat_tree(4));
  ASSERT_TRUE(t.closed_form_bisection().has_value());
  EXPECT_TRUE(t.closed_form_bisection()->exact);
  EXPECT_FALSE(t.closed_form_bisection()->formula.empty());
}

}  // namespace
}  // namespace collsim::topo
