// Routing modes on the topologies they are made for: dimension-order on a torus, minimal,
// Valiant and UGAL on a dragonfly, rail on a leaf-spine whose spines stand for rails.

#include <gtest/gtest.h>

#include <set>

#include "collsim/topo/generators.hpp"
#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::gbps;
using testing::ns;

constexpr std::int64_t kPsPerByte = 80;  // 100 Gb/s

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

// Bytes leaf 0 sent up each of its uplinks (testing::leaf_spine links have the leaf as `a`).
std::vector<std::uint64_t> leaf0_uplink_bytes(const topo::Topology& t, const std::vector<std::uint64_t>& bytes) {
  std::vector<std::uint64_t> out;
  for (std::size_t l = 0; l < t.links().size(); ++l) {
    const topo::Link& link = t.link(static_cast<topo::LinkId>(l));
    if (t.node(link.a).kind == topo::NodeKind::Switch && t.node(link.b).kind == topo::NodeKind::Switch &&
        t.node(link.a).index == 0)
      out.push_back(bytes[2 * l]);
  }
  return out;
}

TEST(Routing, RailKeepsEachFlowOnItsNicsSpine) {
  // 2 leaves x 4 hosts, 4 spines; host i of leaf 0 sends 1 MiB to host i of leaf 1. Told NIC
  // i, flow i takes spine i % 4: one flow per uplink, all at once. Told NIC 5 each, all four
  // take spine 1 and share its 100 Gb/s: at least 4 MiB at 80 ps per byte.
  const topo::Topology t = testing::leaf_spine(2, 4, 4, gbps(100), ns(500));
  FabricParams rail;
  rail.routing = RoutingMode::Rail;
  std::vector<FlowSpec> spread, bound;
  for (HostIndex i = 0; i < 4; ++i) {
    spread.push_back({i, 4 + i, 1 << 20, {}, i});
    bound.push_back({i, 4 + i, 1 << 20, {}, 5});
  }
  const auto a = testing::run(t, rail, spread), b = testing::run(t, rail, bound);
  EXPECT_EQ(a.totals.bytes_delivered, 4u << 20);
  EXPECT_EQ(b.totals.bytes_delivered, 4u << 20);
  for (std::uint64_t bytes : leaf0_uplink_bytes(t, a.link_bytes)) EXPECT_GE(bytes, 1u << 20);
  const std::vector<std::uint64_t> up = leaf0_uplink_bytes(t, b.link_bytes);
  ASSERT_EQ(up.size(), 4u);
  for (std::size_t s = 0; s < up.size(); ++s) {
    if (s == 1) EXPECT_GE(up[s], 4u << 20);
    else EXPECT_EQ(up[s], 0u) << "spine " << s;
  }
  EXPECT_GE(makespan(b).picoseconds(), 4 * (1 << 20) * kPsPerByte);
  EXPECT_LT(makespan(a).picoseconds(), 2 * (1 << 20) * kPsPerByte);
}

}  // namespace
}  // namespace collsim::net
