// Routing modes on the topologies they are made for: dimension-order on a torus, minimal,
// Valiant and UGAL on a dragonfly, rail on a leaf-spine whose spines stand for rails.

#include <gtest/gtest.h>

#include <map>

#include <set>

#include "collsim/topo/generators.hpp"
#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::gbps;
using testing::ns;

using testing::kPsPerByte;

topo::Topology torus4x4() {
  topo::TorusParams p;
  p.dims = {4, 4};
  p.link = {gbps(100), SimTime::us(1)};
  return topo::make_torus(p);
}

// Switch-to-switch links that carried bytes, as pairs of switch indices.
std::set<std::pair<std::uint32_t, std::uint32_t>> busy_switch_links(const topo::Topology& t,
                                                                    const std::vector<std::uint64_t>& bytes) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> out;
  for (std::size_t l = 0; l < t.links().size(); ++l) {
    const topo::Link& link = t.link(static_cast<topo::LinkId>(l));
    if (t.node(link.a).kind == topo::NodeKind::Host || t.node(link.b).kind == topo::NodeKind::Host) continue;
    if (bytes[2 * l] + bytes[2 * l + 1] == 0) continue;
    const std::uint32_t x = t.node(link.a).index, y = t.node(link.b).index;
    out.insert({std::min(x, y), std::max(x, y)});
  }
  return out;
}

TEST(Routing, DimensionOrderCorrectsXThenY) {
  // Host i hangs off switch i, at (i % 4, i / 4). Data from (0,0) to host 9 at (1,2): X first
  // to (1,0) [switch 1], then Y to (1,1) [5] and (1,2) [9]. The ACK goes back X first to
  // (0,2) [8], then Y from 2 to 0: two steps either way, a tie, which goes up: (0,3) [12],
  // (0,0) [0].
  const topo::Topology t = torus4x4();
  FabricParams p;
  p.routing = RoutingMode::DimensionOrder;
  const auto run = testing::run(t, p, {{0, 9, 4096, {}}});
  const std::set<std::pair<std::uint32_t, std::uint32_t>> expected{{0, 1}, {1, 5}, {5, 9}, {8, 9}, {8, 12}, {0, 12}};
  EXPECT_EQ(busy_switch_links(t, run.link_bytes), expected);
  // One 4160 B packet over 5 links of 1 us, store-and-forward at each.
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), 5 * (1'000'000 + 4160 * kPsPerByte));
}

TEST(Routing, DimensionOrderTakesTheShortWayRound) {
  // (0,0) to (3,0): three hops up, or one down across the wrap-around link (the ACK too).
  const topo::Topology t = torus4x4();
  FabricParams p;
  p.routing = RoutingMode::DimensionOrder;
  const auto run = testing::run(t, p, {{0, 3, 4096, {}}});
  const std::set<std::pair<std::uint32_t, std::uint32_t>> expected{{0, 3}};
  EXPECT_EQ(busy_switch_links(t, run.link_bytes), expected);
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), 3 * (1'000'000 + 4160 * kPsPerByte));
}

TEST(Routing, DimensionOrderNeedsATorus) {
  FabricParams p;
  p.routing = RoutingMode::DimensionOrder;
  EXPECT_THROW(testing::run(testing::star(2, gbps(100), ns(100)), p, {{0, 1, 1, {}}}), std::invalid_argument);
}

// 5 groups of 2 routers with two hosts each and 2 global links per router: every pair of
// groups has exactly one global link. The generator joins g0r0 (hosts 0, 1) and g1r1
// (hosts 6, 7) directly.
topo::Topology dragonfly() {
  topo::DragonflyParams p;
  p.groups = 5;
  p.routers_per_group = 2;
  p.hosts_per_router = 2;
  p.global_links_per_router = 2;
  p.link = {gbps(100), ns(500)};
  return topo::make_dragonfly(p);
}

SimTime makespan(const FlowRun& r) {
  SimTime m;
  for (const auto& f : r.flows) m = std::max(m, f.delivered);
  return m;
}

TEST(Routing, DragonflyValiantDetoursAndUgalOnlyWhenItPays) {
  // Hosts 0 and 1 (on g0r0) send to hosts 6 and 7 (on g1r1). The only shortest path is the
  // one global link g0r0 - g1r1 (3 links; any other way is longer), so minimal routing puts
  // both flows on it: 2 x 2 MiB at 100 Gb/s. Valiant sends each packet via a random router
  // of groups 2-4, spreading the load; UGAL detours once the global link's queue grows.
  const topo::Topology t = dragonfly();
  ASSERT_EQ(t.node(t.ports(t.host(0)).front().peer).name, "g0r0");
  ASSERT_EQ(t.node(t.ports(t.host(6)).front().peer).name, "g1r1");
  const std::uint64_t bytes = 2 << 20;
  const std::vector<FlowSpec> flows{{0, 6, bytes, {}}, {1, 7, bytes, {}}};
  FabricParams minimal;
  minimal.routing = RoutingMode::Minimal;
  FabricParams valiant;
  valiant.routing = RoutingMode::Valiant;
  FabricParams ugal;
  ugal.routing = RoutingMode::Ugal;
  const auto m = testing::run(t, minimal, flows);
  const auto v = testing::run(t, valiant, flows);
  const auto u = testing::run(t, ugal, flows);
  for (const auto* r : {&m, &v, &u}) EXPECT_EQ(r->totals.bytes_delivered, 2 * bytes);
  EXPECT_GE(makespan(m).picoseconds(), 2 * static_cast<std::int64_t>(bytes) * kPsPerByte);
  // Valiant picks group 2, 3 or 4 per packet. The detours via groups 3 and 4 both leave g0r0
  // over its local link to g0r1 (g0r1 holds those global links), so that link carries 2/3 of
  // the 4 MiB: with headers (4160 wire bytes per 4096) at least 227 us. Allow 10 % for the
  // random split and the pipeline.
  const double valiant_floor = 2.0 / 3.0 * 2 * static_cast<double>(bytes) * 4160 / 4096 * kPsPerByte;
  EXPECT_GE(static_cast<double>(makespan(v).picoseconds()), valiant_floor);
  EXPECT_LT(static_cast<double>(makespan(v).picoseconds()), 1.10 * valiant_floor);
  EXPECT_LT(makespan(v), makespan(m));
  EXPECT_LT(makespan(u), makespan(m));
  // Detours cost hops: more switch hops per data packet than minimal.
  EXPECT_GT(v.totals.packets_forwarded, m.totals.packets_forwarded);
}

TEST(Routing, UgalStaysMinimalWithoutCongestion) {
  // A single small flow sees empty queues, so the longer Valiant path never pays.
  const topo::Topology t = dragonfly();
  FabricParams minimal;
  minimal.routing = RoutingMode::Minimal;
  FabricParams ugal;
  ugal.routing = RoutingMode::Ugal;
  const std::vector<FlowSpec> flows{{0, 19, 4096, {}}};
  const auto m = testing::run(t, minimal, flows);
  const auto u = testing::run(t, ugal, flows);
  EXPECT_EQ(u.flows[0].delivered, m.flows[0].delivered);
  EXPECT_EQ(u.totals.packets_forwarded, m.totals.packets_forwarded);
}

TEST(Routing, ValiantNeedsADragonfly) {
  FabricParams p;
  p.routing = RoutingMode::Valiant;
  EXPECT_THROW(testing::run(torus4x4(), p, {{0, 1, 1, {}}}), std::invalid_argument);
}

TEST(Routing, AdaptiveAvoidsTheBusyUplink) {
  // Leaf-spine with 2 spines; per-flow hashing may put two flows on one uplink, adaptive
  // picks the emptier one packet by packet: never slower than ECMP here.
  const topo::Topology t = testing::leaf_spine(2, 4, 2, gbps(100), ns(500));
  std::vector<FlowSpec> flows;
  for (HostIndex i = 0; i < 4; ++i) flows.push_back({i, 4 + i, 1 << 20, {}});
  FabricParams ecmp;
  FabricParams adaptive;
  adaptive.routing = RoutingMode::Adaptive;
  const auto e = testing::run(t, ecmp, flows);
  const auto a = testing::run(t, adaptive, flows);
  EXPECT_EQ(a.totals.bytes_delivered, 4u << 20);
  // 4 flows over 2 uplinks: at best 2 MiB per uplink.
  EXPECT_GE(makespan(a).picoseconds(), 2 * (1 << 20) * kPsPerByte);
  EXPECT_LE(makespan(a), makespan(e));
}

// Four servers as hosts with two NICs each, NIC k on rail k; each rail has two leaves (servers
// 0 and 1 on leaf 0, servers 2 and 3 on leaf 1), and every leaf has an uplink to each of four
// spines. 100 Gb/s, 500 ns.
topo::Topology two_rails() {
  topo::Topology t;
  for (int s = 0; s < 4; ++s) t.add_node("server" + std::to_string(s), topo::NodeKind::Host);
  topo::NodeId leaf[2][2], spine[4];
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 2; ++l)
      leaf[r][l] = t.add_node("rail" + std::to_string(r) + "leaf" + std::to_string(l), topo::NodeKind::Switch);
  for (int j = 0; j < 4; ++j) spine[j] = t.add_node("spine" + std::to_string(j), topo::NodeKind::Switch);
  for (int s = 0; s < 4; ++s)
    for (int r = 0; r < 2; ++r) t.add_link(t.host(static_cast<std::uint32_t>(s)), leaf[r][s / 2], gbps(100), ns(500));
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 2; ++l)
      for (int j = 0; j < 4; ++j) t.add_link(leaf[r][l], spine[j], gbps(100), ns(500));
  return t;
}

// Bytes `from` sent to each of its neighbours, by the neighbour's name.
std::map<std::string, std::uint64_t> bytes_out(const topo::Topology& t, const std::vector<std::uint64_t>& bytes,
                                              const std::string& from) {
  std::map<std::string, std::uint64_t> out;
  const topo::NodeId node = *t.find(from);
  for (const topo::Port& p : t.ports(node))
    out[t.node(p.peer).name] += bytes[2 * p.link + (t.link(p.link).a == node ? 0 : 1)];
  return out;
}

TEST(Routing, RailKeepsEachFlowOnItsRailAndSpreadsItOverTheSpines) {
  // Servers 0 and 1 send 1 MiB to servers 2 and 3 (four flows), all told NIC 0: everything
  // leaves on rail 0 and arrives on rail 0 (the spines pick the destination's rail-0 leaf), and
  // rail 0's leaf 0 hashes the four connections over its four spines, so that more than one
  // carries them (the NIC index alone would put all four on spine 0). Told NIC 1, they keep
  // to rail 1.
  const topo::Topology t = two_rails();
  FabricParams rail;
  rail.routing = RoutingMode::Rail;
  for (const std::uint32_t nic : {0u, 1u}) {
    std::vector<FlowSpec> flows;
    for (HostIndex src : {0u, 1u})
      for (HostIndex dst : {2u, 3u}) flows.push_back({src, dst, 1 << 20, {}, nic});
    const auto run = testing::run(t, rail, flows);
    EXPECT_EQ(run.totals.bytes_delivered, 4u << 20);
    const std::string on = "rail" + std::to_string(nic), off = "rail" + std::to_string(1 - nic);
    for (const char* server : {"server0", "server1"}) {
      EXPECT_GE(bytes_out(t, run.link_bytes, server)[on + "leaf0"], 2u << 20) << server;
      EXPECT_EQ(bytes_out(t, run.link_bytes, server)[off + "leaf0"], 0u) << server;
    }
    // (Their ACKs, sent without a NIC, may come back over either rail.)
    for (const auto& [peer, bytes] : bytes_out(t, run.link_bytes, off + "leaf0"))
      if (peer.starts_with("spine")) {
        EXPECT_EQ(bytes, 0u) << peer;
      }
    std::size_t spines_used = 0;
    for (const auto& [peer, bytes] : bytes_out(t, run.link_bytes, on + "leaf0"))
      if (peer.starts_with("spine")) spines_used += bytes >= (1u << 20) ? 1 : 0;
    EXPECT_GE(spines_used, 2u);
    // The data came down to servers 2 and 3 over the same rail.
    for (const char* server : {"server2", "server3"}) {
      EXPECT_GE(bytes_out(t, run.link_bytes, on + "leaf1")[server], 2u << 20) << server;
      EXPECT_EQ(bytes_out(t, run.link_bytes, off + "leaf1")[server], 0u) << server;
    }
  }
}

TEST(Routing, RailSpreadsConnectionsOverParallelLinks) {
  // Two leaves of four hosts, joined through one spine by two parallel links each; 100 Gb/s.
  // Hosts 0..3 send 1 MiB to hosts 4..7, all told NIC 0: the connections are hashed over both
  // of leaf0's uplinks and both of the spine's links down to leaf1 (the NIC index alone would
  // put all four on the first of each pair).
  topo::Topology t;
  for (int h = 0; h < 8; ++h) t.add_node("h" + std::to_string(h), topo::NodeKind::Host);
  const auto leaf0 = t.add_node("leaf0", topo::NodeKind::Switch), leaf1 = t.add_node("leaf1", topo::NodeKind::Switch);
  const auto spine = t.add_node("spine", topo::NodeKind::Switch);
  for (std::uint32_t h = 0; h < 8; ++h) t.add_link(t.host(h), h < 4 ? leaf0 : leaf1, gbps(100), ns(500));
  for (const auto leaf : {leaf0, leaf1})
    for (int k = 0; k < 2; ++k) t.add_link(leaf, spine, gbps(100), ns(500));
  FabricParams rail;
  rail.routing = RoutingMode::Rail;
  std::vector<FlowSpec> flows;
  for (HostIndex h = 0; h < 4; ++h) flows.push_back({h, h + 4, 1 << 20, {}, 0});
  const auto run = testing::run(t, rail, flows);
  EXPECT_EQ(run.totals.bytes_delivered, 4u << 20);
  for (topo::LinkId l = 8; l < 12; ++l) {
    const bool up = t.link(l).a == leaf0;  // leaf0's uplinks carry data up, leaf1's down
    EXPECT_GE(run.link_bytes[2 * l + (up ? 0 : 1)], 1u << 20) << "link " << l;
  }
}

}  // namespace
}  // namespace collsim::net
