// The flow model (FlowDomain) against hand-derived times and against packets: a message alone
// to the picosecond, two messages through one bottleneck, a parking lot, an incast; and the
// fidelity's domains and refusals.

#include <gtest/gtest.h>

#include "collsim/net/fidelity.hpp"
#include "collsim/topo/loader.hpp"
#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::gbps;
using testing::ns;

FlowRun run_as(const topo::Topology& t, LinkModel model, const std::vector<FlowSpec>& flows, FabricParams p = {}) {
  auto transport = pdes::make_local_transport();
  FabricOptions options;
  options.fidelity = uniform_fidelity(model);
  return run_flows(t, p, *transport, options, flows);
}

// Ps for a train of `bytes` in 4096-byte packets with 64 bytes of header each, at `bps`,
// each packet's serialisation rounded up to a whole ps.
std::int64_t train(std::uint64_t bytes, std::int64_t bps) {
  const std::uint64_t full = (bytes - 1) / 4096;
  const std::uint64_t last = bytes - full * 4096 + 64;
  const auto ser = [&](std::uint64_t b) {
    return static_cast<std::int64_t>((b * 8'000'000'000'000ull + static_cast<std::uint64_t>(bps) - 1) / static_cast<std::uint64_t>(bps));
  };
  return static_cast<std::int64_t>(full) * ser(4160) + ser(last);
}

TEST(FlowModel, AMessageAloneArrivesWhenItsPacketsWouldToThePicosecond) {
  // 1 MB between two hosts of a 100 Gb/s star with 1 us links: 244 full packets (4160 wire
  // bytes, 332.8 ns each) and one of 576 + 64 bytes (51.2 ns). The train crosses the first
  // link in 81.2544 us, the last packet the second link after the one before it, then 1 us:
  // 83.5872 us. The ACK (64 bytes, 5.12 ns a link) is back 2.01024 us later.
  const topo::Topology t = testing::star(2, gbps(100), ns(1000));
  const auto flows = run_as(t, LinkModel::Flow, {{0, 1, 1'000'000, {}}});
  EXPECT_EQ(flows.flows[0].delivered.picoseconds(), 83'587'200);
  EXPECT_EQ(flows.flows[0].acked.picoseconds(), 85'597'440);
  EXPECT_EQ(flows.totals.flow_messages, 1u);
  EXPECT_EQ(flows.totals.packets_forwarded, 0u);
  // And as packets, for sizes around packet boundaries and paths of unequal links.
  topo::Topology chain;
  const topo::NodeId h0 = chain.add_node("h0", topo::NodeKind::Host);
  const topo::NodeId h1 = chain.add_node("h1", topo::NodeKind::Host);
  const topo::NodeId s0 = chain.add_node("s0", topo::NodeKind::Switch);
  const topo::NodeId s1 = chain.add_node("s1", topo::NodeKind::Switch, topo::SwitchParams{ns(250), 32 << 20, true});
  chain.add_link(h0, s0, gbps(100), ns(700));
  chain.add_link(s0, s1, gbps(40), ns(300));
  chain.add_link(s1, h1, gbps(400), ns(50));
  for (const topo::Topology* topology : std::vector<const topo::Topology*>{&t, &chain})
    for (std::uint64_t bytes : {1ull, 4096ull, 4097ull, 65535ull, 1'000'000ull, 3'333'333ull}) {
      const auto fluid = run_as(*topology, LinkModel::Flow, {{0, 1, bytes, {}}});
      const auto packets = run_as(*topology, LinkModel::Packet, {{0, 1, bytes, {}}});
      EXPECT_EQ(fluid.flows[0].delivered, packets.flows[0].delivered) << topology->name() << " " << bytes;
      EXPECT_EQ(fluid.flows[0].acked, packets.flows[0].acked) << topology->name() << " " << bytes;
    }
}

TEST(FlowModel, TwoMessagesThroughOneBottleneckGetHalfItEach) {
  // h1 -> h0 and h2 -> h0: the switch's port to h0 carries both at 50 Gb/s each. Alone, each
  // would arrive 83.5872 us after its start (above); shared, its train takes T(50 Gb/s)
  // instead of T(100 Gb/s), and nothing else changes.
  const topo::Topology t = testing::star(3, gbps(100), ns(1000));
  const std::uint64_t bytes = 1'000'000;
  const auto fluid = run_as(t, LinkModel::Flow, {{1, 0, bytes, {}}, {2, 0, bytes, {}}});
  const std::int64_t expected = 83'587'200 + train(bytes, 50'000'000'000) - train(bytes, 100'000'000'000);
  EXPECT_EQ(expected, 164'841'600);
  for (const auto& f : fluid.flows) EXPECT_EQ(f.delivered.picoseconds(), expected);
  const auto packets = run_as(t, LinkModel::Packet, {{1, 0, bytes, {}}, {2, 0, bytes, {}}});
  for (const auto& f : packets.flows)
    EXPECT_NEAR(static_cast<double>(f.delivered.picoseconds()), static_cast<double>(expected), 0.01 * static_cast<double>(expected));
}

TEST(FlowModel, ParkingLot) {
  // Switches s0 - s1 - s2 - s3 joined by links of 10, 4 and 10 Gb/s; hosts on 100 Gb/s
  // links of 100 ns. The long message crosses all three; one short message crosses each.
  // Link s1-s2 is the tightest: its two messages get 2 Gb/s each, and the short ones on the
  // outer links get the 8 Gb/s left there. Each arrives later than alone by its train at its
  // share less its train at its narrowest link (the short outer ones end first; the others
  // keep their 2 Gb/s, held by s1-s2, to the end).
  topo::Topology t;
  std::vector<topo::NodeId> h, s;
  for (int i = 0; i < 8; ++i) h.push_back(t.add_node("h" + std::to_string(i), topo::NodeKind::Host));
  for (int i = 0; i < 4; ++i) s.push_back(t.add_node("s" + std::to_string(i), topo::NodeKind::Switch));
  const std::uint32_t at[8] = {0, 0, 1, 1, 2, 2, 3, 3};  // host i hangs off switch at[i]
  for (int i = 0; i < 8; ++i) t.add_link(h[i], s[at[i]], gbps(100), ns(100));
  t.add_link(s[0], s[1], gbps(10), ns(100));
  t.add_link(s[1], s[2], gbps(4), ns(100));
  t.add_link(s[2], s[3], gbps(10), ns(100));
  const std::uint64_t bytes = 1'000'000;
  const std::vector<FlowSpec> lot = {{0, 7, bytes, {}}, {1, 2, bytes, {}}, {3, 4, bytes, {}}, {5, 6, bytes, {}}};
  const auto shared = run_as(t, LinkModel::Flow, lot);
  const std::int64_t narrowest[4] = {4'000'000'000, 10'000'000'000, 4'000'000'000, 10'000'000'000};
  const std::int64_t share[4] = {2'000'000'000, 8'000'000'000, 2'000'000'000, 8'000'000'000};
  for (std::size_t i = 0; i < lot.size(); ++i) {
    const auto alone = run_as(t, LinkModel::Flow, {lot[i]});
    EXPECT_EQ(shared.flows[i].delivered - alone.flows[0].delivered,
              SimTime::ps(train(bytes, share[i]) - train(bytes, narrowest[i])))
        << "message " << i;
  }
  EXPECT_EQ(train(bytes, 2'000'000'000) - train(bytes, 4'000'000'000), 2'031'360'000);
  // (Packets do not share this way here: without congestion control the long message fills
  // s1's queue, PFC pauses s0's port toward s1, and the short message behind it on that port
  // waits with it, about 3x longer than its fair share gives. That is the flow model's known
  // blind spot, and why the network stays packets by default.)
}

TEST(FlowModel, IncastSharesTheReceiversLink) {
  // 8 senders into host 0 of a 100 Gb/s star: 12.5 Gb/s each, all ending together.
  const std::uint32_t n = 8;
  const std::uint64_t bytes = 1'000'000;
  const topo::Topology t = testing::star(n + 1, gbps(100), ns(1000));
  const auto flows = make_flow_pattern(FlowPattern::Incast, n + 1, bytes, 1, n);
  const auto fluid = run_as(t, LinkModel::Flow, flows);
  const std::int64_t expected = 83'587'200 + train(bytes, 12'500'000'000) - train(bytes, 100'000'000'000);
  EXPECT_EQ(expected, 652'368'000);
  for (const auto& f : fluid.flows) EXPECT_EQ(f.delivered.picoseconds(), expected);
  // As packets under PFC the receiver's link is as busy; the last one ends within 1 %.
  const auto packets = run_as(t, LinkModel::Packet, flows);
  SimTime last;
  for (const auto& f : packets.flows) last = std::max(last, f.delivered);
  EXPECT_NEAR(static_cast<double>(last.picoseconds()), static_cast<double>(expected), 0.01 * static_cast<double>(expected));
  EXPECT_EQ(fluid.totals.bytes_delivered, n * bytes);
  // The receiver's link carried every wire byte.
  const std::uint64_t wire = (bytes / 4096) * 4160 + (bytes % 4096) + 64;
  const topo::LinkId to_receiver = t.ports(t.host(0))[0].link;
  EXPECT_EQ(fluid.link_bytes[2 * to_receiver + 1], n * wire);  // switch -> host 0
}

TEST(FlowModel, ResultsDoNotDependOnStartOrderWithinOneInstant) {
  // The same flows listed in two orders: the domain orders same-time starts by sender.
  const topo::Topology t = testing::star(4, gbps(100), ns(500));
  const std::vector<FlowSpec> a = {{1, 0, 300'000, {}}, {2, 0, 700'000, {}}, {3, 0, 100'000, {}}};
  const std::vector<FlowSpec> b = {a[2], a[0], a[1]};
  const auto ra = run_as(t, LinkModel::Flow, a);
  const auto rb = run_as(t, LinkModel::Flow, b);
  EXPECT_EQ(ra.flows[0].delivered, rb.flows[1].delivered);
  EXPECT_EQ(ra.flows[1].delivered, rb.flows[2].delivered);
  EXPECT_EQ(ra.flows[2].delivered, rb.flows[0].delivered);
  // The smallest leaves first, then the middle one; the largest ends at the sum of all trains.
  EXPECT_LT(ra.flows[2].delivered, ra.flows[0].delivered);
  EXPECT_LT(ra.flows[0].delivered, ra.flows[1].delivered);
}

TEST(FlowModel, ManyMessagesComingAndGoingNoneEndsSoonerThanAlone) {
  // 2000 messages of assorted sizes and start times on a 16-host star: their shares change
  // thousands of times and the domain reuses the records of messages that ended. None may end
  // before it would alone, all must end, and the receivers' links carry every byte.
  const std::uint32_t hosts = 16;
  const topo::Topology t = testing::star(hosts, gbps(100), ns(300));
  std::vector<FlowSpec> flows;
  std::uint64_t x = 12345;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull, x >> 33; };
  for (int i = 0; i < 2000; ++i) {
    const auto src = static_cast<HostIndex>(next() % hosts);
    const auto dst = static_cast<HostIndex>((src + 1 + next() % (hosts - 1)) % hosts);
    // Mostly small messages, which end soon and leave their records to others, among large
    // ones whose shares keep changing.
    const std::uint64_t bytes = i % 8 == 0 ? 1 + next() % 3'000'000 : 1 + next() % 20'000;
    flows.push_back({src, dst, bytes, SimTime::ns(static_cast<std::int64_t>(next() % 50'000))});
  }
  const auto shared = run_as(t, LinkModel::Flow, flows);
  EXPECT_GT(shared.totals.flow_rate_changes, 2u * flows.size());
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    ASSERT_FALSE(shared.flows[i].delivered.is_infinite()) << i;
    bytes += flows[i].bytes;
    const auto alone = run_as(t, LinkModel::Flow, {flows[i]});
    EXPECT_GE(shared.flows[i].delivered, alone.flows[0].delivered) << i;
    EXPECT_GE(shared.flows[i].acked, alone.flows[0].acked) << i;
  }
  EXPECT_EQ(shared.totals.bytes_delivered, bytes);
}

// --- the fidelity ------------------------------------------------------------------------

TEST(Fidelity, ParsesKindsOfLinkOverABase) {
  const Fidelity f = parse_fidelity("nvlink=flow");
  EXPECT_EQ(f.nvlink, LinkModel::Flow);
  EXPECT_EQ(f.network, LinkModel::Packet);
  EXPECT_EQ(f.pcie, LinkModel::Packet);
  EXPECT_EQ(parse_fidelity("scale-up=flow"), (Fidelity{LinkModel::Packet, LinkModel::Flow, LinkModel::Flow}));
  EXPECT_EQ(parse_fidelity("all=flow,scale-out=packet"), (Fidelity{LinkModel::Packet, LinkModel::Flow, LinkModel::Flow}));
  EXPECT_EQ(parse_fidelity("network=packet", uniform_fidelity(LinkModel::Flow)),
            (Fidelity{LinkModel::Packet, LinkModel::Flow, LinkModel::Flow}));
  EXPECT_EQ(to_string(parse_fidelity("nvlink=flow")), "network=packet nvlink=flow pcie=packet");
  for (const char* bad : {"", "nvlink", "nvlink=", "=flow", "nvlink=fluid", "ethernet=flow", "nvlink=flow,"})
    EXPECT_THROW(parse_fidelity(bad), std::invalid_argument) << bad;
}

TEST(Fidelity, EachServersNvlinkIslandIsADomainRunByItsNvswitch) {
  const topo::Topology t = topo::load_topology(std::string(COLLSIM_TOPOLOGIES) + "/dgx_h100_superpod.yaml");
  const FlowDomains d = flow_domains(t, parse_fidelity("nvlink=flow"));
  ASSERT_EQ(d.size(), 32u);  // one per server
  for (std::size_t k = 0; k < d.size(); ++k) {
    EXPECT_EQ(t.node(d.home[k]).kind, topo::NodeKind::NvSwitch);
    EXPECT_EQ(d.links_in[k], 8u);
  }
  for (topo::LinkId l = 0; l < t.links().size(); ++l)
    EXPECT_EQ(d.domain_of_link[l] != kNoDomain, t.link(l).medium == topo::LinkMedium::NvLink);
  // Everything as flows: the servers' islands stay apart (hosts do not forward), and the
  // InfiniBand fabric is one more.
  EXPECT_EQ(flow_domains(t, uniform_fidelity(LinkModel::Flow)).size(), 33u);
  EXPECT_TRUE(flow_domains(t, Fidelity{}).empty());
}

TEST(Fidelity, RefusesWhatCannotBeJoined) {
  // A switch with an NVLink and a network link would carry a message across both models.
  topo::Topology mixed;
  const topo::NodeId a = mixed.add_node("a", topo::NodeKind::Host);
  const topo::NodeId b = mixed.add_node("b", topo::NodeKind::Host);
  const topo::NodeId s = mixed.add_node("s", topo::NodeKind::Switch);
  mixed.add_link(a, s, gbps(100), ns(10), topo::LinkMedium::NvLink);
  mixed.add_link(b, s, gbps(100), ns(10));
  try {
    (void)flow_domains(mixed, parse_fidelity("nvlink=flow"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("switch 's' has links of both models (nvlink=flow, network=packet)"),
              std::string::npos)
        << e.what();
  }
  // Flow links need a switch to run them.
  topo::Topology direct;
  direct.add_link(direct.add_node("a", topo::NodeKind::Host), direct.add_node("b", topo::NodeKind::Host), gbps(100), ns(10));
  EXPECT_THROW((void)flow_domains(direct, uniform_fidelity(LinkModel::Flow)), std::invalid_argument);
  // Naming a kind of link the topology does not have.
  const topo::Topology star = testing::star(2, gbps(100), ns(10));
  EXPECT_THROW(check_media_named("nvlink=flow", star), std::invalid_argument);
  EXPECT_NO_THROW(check_media_named("network=flow", star));
  EXPECT_NO_THROW(check_media_named("all=flow", star));
  // Spraying and adaptive routing choose per packet: not on flow network links.
  FabricParams spray;
  spray.routing = RoutingMode::Spray;
  EXPECT_THROW(run_as(star, LinkModel::Flow, {{0, 1, 100, {}}}, spray), std::invalid_argument);
  EXPECT_NO_THROW(run_as(star, LinkModel::Packet, {{0, 1, 100, {}}}, spray));
}

}  // namespace
}  // namespace collsim::net
