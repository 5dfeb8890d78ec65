// The routing table against a breadth-first search from each destination host, on every kind
// of generated topology, with links down and with part of the nodes owned: every (node, host)
// pair's shortest-path ports and distance.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collsim/net/routing_table.hpp"
#include "collsim/topo/generators.hpp"

namespace collsim::net {
namespace {

constexpr std::uint32_t kFar = 0xFFFF;

// Links from every node to host `dst`, a path passing through switches only.
std::vector<std::uint32_t> links_to(const topo::Topology& t, HostIndex dst, const std::vector<bool>& down) {
  std::vector<std::uint32_t> dist(t.nodes().size(), kFar);
  std::vector<topo::NodeId> frontier{t.host(dst)}, next;
  dist[t.host(dst)] = 0;
  for (std::uint32_t d = 0; !frontier.empty(); ++d) {
    next.clear();
    for (const topo::NodeId v : frontier)
      for (const topo::Port& p : t.ports(v))
        if (!down[p.link] && dist[p.peer] == kFar) {
          dist[p.peer] = d + 1;
          if (t.node(p.peer).kind != topo::NodeKind::Host) next.push_back(p.peer);
        }
    frontier.swap(next);
  }
  return dist;
}

// Every owned node against every host it is not.
void expect_shortest_paths(const RoutingTable& table, const topo::Topology& t, const std::vector<bool>& owned,
                           const std::vector<bool>& down, const std::string& what) {
  for (HostIndex h = 0; h < t.num_hosts(); ++h) {
    const std::vector<std::uint32_t> dist = links_to(t, h, down);
    for (topo::NodeId v = 0; v < t.nodes().size(); ++v) {
      if (!owned[v] || v == t.host(h)) continue;
      const auto& ports = t.ports(v);
      std::vector<topo::PortIndex> expected;
      for (std::size_t i = 0; i < ports.size(); ++i) {
        if (down[ports[i].link] || dist[v] == kFar) continue;
        const bool to_dst = ports[i].peer == t.host(h);
        const bool closer_switch = t.node(ports[i].peer).kind != topo::NodeKind::Host && dist[ports[i].peer] + 1 == dist[v];
        if (dist[v] == 1 ? to_dst : closer_switch) expected.push_back(static_cast<topo::PortIndex>(i));
      }
      const auto got = table.next_ports(v, h);
      EXPECT_EQ(std::vector<topo::PortIndex>(got.begin(), got.end()), expected)
          << what << ": from " << t.node(v).name << " to host " << h;
      EXPECT_EQ(table.distance(v, h), dist[v]) << what << ": from " << t.node(v).name << " to host " << h;
    }
  }
}

// Checks every owned node against every host it is not, in a table filled at once and in one
// filled on demand (in the order of the checks).
void expect_shortest_paths(const topo::Topology& t, const std::vector<bool>& owned, const std::vector<bool>& down,
                           const std::string& what) {
  for (const std::uint64_t whole : {RoutingTable::kWholeTable, std::uint64_t{0}})
    expect_shortest_paths(RoutingTable(t, owned, &down, whole), t, owned, down, what + (whole == 0 ? ", on demand" : ""));
}

// All links up, then every third down; all nodes owned, then every other one.
void expect_shortest_paths(const topo::Topology& t, const std::string& what) {
  const std::vector<bool> all(t.nodes().size(), true);
  std::vector<bool> some(t.nodes().size());
  for (std::size_t v = 0; v < some.size(); v += 2) some[v] = true;
  const std::vector<bool> none_down(t.links().size(), false);
  std::vector<bool> third_down(t.links().size());
  for (std::size_t l = 1; l < third_down.size(); l += 3) third_down[l] = true;
  expect_shortest_paths(t, all, none_down, what);
  expect_shortest_paths(t, some, none_down, what + ", half the nodes owned");
  expect_shortest_paths(t, all, third_down, what + ", a third of the links down");
}

TEST(RoutingTable, FatTree) {
  topo::FatTreeParams p;
  p.k = 4;
  expect_shortest_paths(topo::make_fat_tree(p), "fat tree k=4");
}

TEST(RoutingTable, LeafSpineWithParallelUplinks) {
  topo::LeafSpineParams p;
  p.leaves = 3;
  p.spines = 2;
  p.hosts_per_leaf = 3;
  p.uplinks_per_spine = 2;
  expect_shortest_paths(topo::make_leaf_spine(p), "leaf-spine");
}

TEST(RoutingTable, RailOptimisedClusterWhereEveryGpuIsItsOwnGroup) {
  topo::RailParams p;
  p.servers = 6;
  p.gpus_per_server = 4;
  p.servers_per_leaf = 2;
  p.spines = 2;
  expect_shortest_paths(topo::make_rail(p), "rail");
}

TEST(RoutingTable, Dragonfly) {
  topo::DragonflyParams p;
  p.groups = 4;
  p.routers_per_group = 3;
  p.hosts_per_router = 2;
  expect_shortest_paths(topo::make_dragonfly(p), "dragonfly");
}

TEST(RoutingTable, Torus) {
  topo::TorusParams p;
  p.dims = {3, 4};
  p.hosts_per_switch = 2;
  expect_shortest_paths(topo::make_torus(p), "torus");
}

TEST(RoutingTable, HostsJoinedDirectly) {
  // h0 - h1 directly, and both on a switch with h2: h0 reaches h1 over their own link only.
  topo::Topology t;
  const topo::NodeId h0 = t.add_node("h0", topo::NodeKind::Host);
  const topo::NodeId h1 = t.add_node("h1", topo::NodeKind::Host);
  const topo::NodeId h2 = t.add_node("h2", topo::NodeKind::Host);
  const topo::NodeId s = t.add_node("s", topo::NodeKind::Switch);
  t.add_link(h0, h1, Bandwidth::gbps(100), SimTime::us(1));
  for (const topo::NodeId h : {h0, h1, h2}) t.add_link(h, s, Bandwidth::gbps(100), SimTime::us(1));
  expect_shortest_paths(t, "hosts joined directly");
  const RoutingTable table(t, std::vector<bool>(4, true));
  ASSERT_EQ(table.next_ports(h0, 1).size(), 1u);
  EXPECT_EQ(table.next_ports(h0, 1)[0], 0);  // its link to h1, not the switch
  EXPECT_EQ(table.distance(h0, 2), 2u);
}

}  // namespace
}  // namespace collsim::net
