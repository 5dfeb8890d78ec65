// Links and switches that fail during a run: the schedule of routes, what is lost and resent,
// and hosts cut off, against numbers derived by hand.

#include "collsim/net/link_fault.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::gbps;
using testing::ns;

FlowRun run_with(const topo::Topology& t, std::vector<LinkFault> faults, SimTime reconvergence,
                 const std::vector<FlowSpec>& flows, FabricParams params = {}) {
  auto transport = pdes::make_local_transport();
  FabricOptions o;
  o.link_faults = std::move(faults);
  o.reconvergence = reconvergence;
  return run_flows(t, params, *transport, o, flows);
}

// h0 - s0 - s1 - h1, with a detour s0 - s2 - s3 - s1 one link longer; every link 100 Gb/s, 1 us.
topo::Topology ring_with_detour() {
  topo::Topology t;
  const auto h0 = t.add_node("h0", topo::NodeKind::Host);
  const auto h1 = t.add_node("h1", topo::NodeKind::Host);
  const auto s0 = t.add_node("s0", topo::NodeKind::Switch);
  const auto s1 = t.add_node("s1", topo::NodeKind::Switch);
  const auto s2 = t.add_node("s2", topo::NodeKind::Switch);
  const auto s3 = t.add_node("s3", topo::NodeKind::Switch);
  for (auto [a, b] : {std::pair{h0, s0}, {s0, s1}, {s1, h1}, {s0, s2}, {s2, s3}, {s3, s1}})
    t.add_link(a, b, gbps(100), ns(1000));
  return t;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(LinkFault, ParseNamesWhatIsWrong) {
  const topo::Topology t = ring_with_detour();
  const LinkFault f = parse_link_fault("s1:s0@10us..20us", t);
  EXPECT_EQ(f.links, std::vector<topo::LinkId>{1});
  EXPECT_EQ(f.down, SimTime::us(10));
  EXPECT_EQ(f.up, SimTime::us(20));
  EXPECT_EQ(f.what, "link s1:s0");
  EXPECT_TRUE(parse_link_fault("s0:s1@1ms", t).up.is_infinite());
  const LinkFault sw = parse_switch_fault("s0@0", t);
  EXPECT_EQ(sw.links, (std::vector<topo::LinkId>{0, 1, 3}));
  EXPECT_NE(error_of([&] { parse_link_fault("s0-s1@1ms", t); }).find("expected NODE_A:NODE_B@TIME"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_link_fault("s0:s9@1ms", t); }).find("no node 's9'"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_link_fault("h0:s1@1ms", t); }).find("no link between h0 and s1"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_link_fault("s0:s1@soon", t); }).find("the time it goes down"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_link_fault("s0:s1@2ms..1ms", t); }).find("must come back after"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_switch_fault("h0@1ms", t); }).find("is a host"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_switch_fault("s0", t); }).find("expected SWITCH@TIME"), std::string::npos);
}

TEST(LinkFault, RoutesFollowEachChangeAfterTheReconvergenceDelay) {
  // Link 1 down 10..50 us, switch s0 (links 0, 1, 3) down 30 us for good, reconvergence 5 us.
  const topo::Topology t = ring_with_detour();
  const FaultSchedule s({parse_link_fault("s0:s1@10us..50us", t), parse_switch_fault("s0@30us", t)}, SimTime::us(5),
                        t.links().size());
  // At 50 us link 1 stays down: its switch still is.
  ASSERT_EQ(s.changes().size(), 3u);
  EXPECT_EQ(s.changes()[0].at, SimTime::us(10));
  EXPECT_EQ(s.changes()[1].link, 0u);
  EXPECT_EQ(s.changes()[2].link, 3u);
  ASSERT_EQ(s.epochs().size(), 3u);
  EXPECT_EQ(s.epochs()[1].from, SimTime::us(15));
  EXPECT_EQ(s.epochs()[1].link_down, (std::vector<bool>{false, true, false, false, false, false}));
  EXPECT_EQ(s.epochs()[2].from, SimTime::us(35));
  EXPECT_EQ(s.epochs()[2].link_down, (std::vector<bool>{true, true, false, true, false, false}));
  EXPECT_TRUE(s.down_at(1, SimTime::us(60)));
  EXPECT_FALSE(s.down_at(1, SimTime::us(9)));
  // A failure at 0 with no delay is the routing from the start.
  const FaultSchedule at_once({parse_link_fault("s0:s1@0", t)}, SimTime::zero(), t.links().size());
  ASSERT_EQ(at_once.epochs().size(), 1u);
  EXPECT_TRUE(at_once.epochs()[0].link_down[1]);
}

TEST(LinkFault, ReachabilityAndRoutesLeaveDeadLinksOut) {
  const topo::Topology t = ring_with_detour();
  std::vector<bool> down(t.links().size(), false);
  down[1] = true;  // s0:s1
  const std::vector<bool> owned(t.nodes().size(), true);
  const RoutingTable table(t, owned, &down);
  const topo::NodeId s0 = *t.find("s0");
  // s0's shortest way to h1 is now its port 2 (to s2), 4 links.
  ASSERT_EQ(table.next_ports(s0, 1).size(), 1u);
  EXPECT_EQ(table.next_ports(s0, 1)[0], 2);
  EXPECT_EQ(table.distance(s0, 1), 4u);
  EXPECT_TRUE(Reachability(t, down).reaches(0, 1));
  down[5] = true;  // s3:s1 as well: h0 and h1 are cut apart
  EXPECT_FALSE(Reachability(t, down).reaches(0, 1));
  EXPECT_TRUE(RoutingTable(t, owned, &down).next_ports(s0, 1).empty());
}

TEST(LinkFault, PacketsLostUntilRoutesReconvergeAreResentOverTheDetour) {
  // 10 packets of 4096 B (4160 B on the wire: 332.8 ns at 100 Gb/s). s0:s1 is down from 0
  // and routes move to the detour at 50 us. Until then s0 has no other shortest-path port
  // and drops all 10; nothing is acknowledged, so the timeout (rto_lossless 100 us after the start)
  // resends all 10, which take the detour's 5 links: the first packet 5 x (332.8 ns + 1 us),
  // the 9 others 332.8 ns each behind it.
  const topo::Topology t = ring_with_detour();
  FabricParams params;
  params.rto_lossless = SimTime::us(100);
  const auto run =
      run_with(t, {parse_link_fault("s0:s1@0", t)}, SimTime::us(50), {{0, 1, 40960, SimTime::zero()}}, params);
  const std::int64_t expected = 100'000'000 + 5 * (332'800 + 1'000'000) + 9 * 332'800;
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), expected);
  EXPECT_EQ(run.totals.packets_lost, 10u);
  EXPECT_EQ(run.totals.retransmits, 10u);
  EXPECT_EQ(run.totals.flows_resent, 1u);
  EXPECT_EQ(run.totals.timeouts, 1u);
  EXPECT_EQ(run.link_bytes[2 * 1], 0u);  // nothing crossed s0 -> s1
}

TEST(LinkFault, ASpineLinkDownFromTheStartLeavesOneUplinkForAll) {
  // Two leaves, two spines, four hosts per leaf; leaf0:spine0 is down from the start and
  // routes know it (reconvergence 0). Four flows of 1,000,000 B (244 packets of 4160 B and
  // one of 640 B on the wire each) from leaf0's hosts to leaf1's share leaf0's one live
  // uplink, busy from the first packet's arrival (332.8 ns + 1 us) to the last byte of all
  // four; the last packet then crosses two more switches to its host (1 us and its own
  // serialisation per hop, the last link's 1 us). Which flow's packet is last, a full or the
  // short one, decides up to 2 x (4160 - 640) x 80 ps. The ACKs go back over spine1 the
  // other way, on links no data uses.
  const topo::Topology t = testing::leaf_spine(2, 4, 2, gbps(100), ns(1000));
  std::vector<FlowSpec> flows;
  for (std::uint32_t i = 0; i < 4; ++i) flows.push_back({i, 4 + i, 1'000'000, SimTime::zero()});
  const auto run = run_with(t, {parse_link_fault("leaf0:spine0@0", t)}, SimTime::zero(), flows);
  const std::int64_t uplink = 4 * (244 * 4160 + 640) * 80;
  const std::int64_t earliest = 332'800 + 1'000'000 + uplink + 3 * 1'000'000 + 2 * 640 * 80;
  const std::int64_t latest = 332'800 + 1'000'000 + uplink + 3 * 1'000'000 + 2 * 4160 * 80;
  SimTime last = SimTime::zero();
  for (const FlowOutcome& f : run.flows) last = std::max(last, f.delivered);
  EXPECT_GE(last.picoseconds(), earliest);
  EXPECT_LE(last.picoseconds(), latest);
  EXPECT_EQ(run.totals.packets_lost, 0u);
  const topo::LinkId dead = parse_link_fault("leaf0:spine0@0", t).links[0];
  EXPECT_EQ(run.link_bytes[2 * dead] + run.link_bytes[2 * dead + 1], 0u);
}

TEST(LinkFault, AFailedSpineLinkMidRunReroutesExactlyTheFlowsOnIt) {
  // A permutation of 8 flows from leaf0 to leaf1 over two spines; leaf0:spine0 fails at 20 us,
  // while every flow still sends (1 MB take 80 us at line rate alone). The flows ECMP put on
  // spine0 lose packets and resend them (leaf0 moves them to spine1 at once); the others lose
  // nothing. Which flows those are is read from the bytes spine0 carries to leaf1 in a run
  // without the failure: each of its flows carries all of its bytes there.
  const topo::Topology t = testing::leaf_spine(2, 4, 2, gbps(100), ns(1000));
  std::vector<FlowSpec> flows;
  for (std::uint32_t i = 0; i < 4; ++i) flows.push_back({i, 4 + (i + 1) % 4, 1'000'000, SimTime::zero()});
  const topo::NodeId spine0 = *t.find("spine0");
  const topo::NodeId leaf1 = *t.find("leaf1");
  topo::LinkId down_link = 0;
  for (const topo::Port& p : t.ports(spine0))
    if (p.peer == leaf1) down_link = p.link;
  auto transport = pdes::make_local_transport();
  const FlowRun intact = run_flows(t, FabricParams{}, *transport, FabricOptions{}, flows);
  const std::uint64_t flow_wire = 244 * 4160 + 640;
  const std::uint64_t via_spine0 = intact.link_bytes[2 * down_link + (t.link(down_link).a == spine0 ? 0 : 1)];
  ASSERT_EQ(via_spine0 % flow_wire, 0u);
  const std::uint64_t on_spine0 = via_spine0 / flow_wire;
  ASSERT_GT(on_spine0, 0u);
  ASSERT_LT(on_spine0, 4u);
  const auto run = run_with(t, {parse_link_fault("leaf0:spine0@20us", t)}, SimTime::us(10), flows);
  EXPECT_EQ(run.totals.flows_resent, on_spine0) << "timeouts " << run.totals.timeouts << " nacks " << run.totals.nacks << " drops " << run.totals.drops << " lost " << run.totals.packets_lost << " retx " << run.totals.retransmits;
  EXPECT_GT(run.totals.packets_lost, 0u);
  for (const FlowOutcome& f : run.flows) EXPECT_FALSE(f.delivered.is_infinite());
  SimTime with = SimTime::zero(), without = SimTime::zero();
  for (const FlowOutcome& f : run.flows) with = std::max(with, f.delivered);
  for (const FlowOutcome& f : intact.flows) without = std::max(without, f.delivered);
  EXPECT_GT(with, without);
}

TEST(LinkFault, AHostCutOffForGoodIsGivenUpNotWaitedFor) {
  // h0's only link fails at 5 us for good. h1's flow to h0 is given up at its first timeout
  // after routes settle; h1's flow to h2 is untouched; the run ends.
  const topo::Topology t = testing::star(3, gbps(100), ns(1000));
  const auto run = run_with(t, {parse_link_fault("h0:s@5us", t)}, SimTime::us(1),
                            {{1, 0, 1'000'000, SimTime::zero()}, {2, 1, 40960, SimTime::zero()}});
  EXPECT_TRUE(run.flows[0].delivered.is_infinite());
  EXPECT_FALSE(run.flows[1].delivered.is_infinite());
  EXPECT_EQ(run.totals.flows_given_up, 1u);
  EXPECT_GT(run.totals.packets_lost, 0u);
}

TEST(LinkFault, ALinkBackUpCarriesTheResentPackets) {
  // s0:s1 of a chain (no other path) is down from 5 us to 40 us: the timeout resends what was
  // lost once it is back, and the flow completes.
  const topo::Topology t = testing::chain({ns(1000), ns(1000), ns(1000)}, gbps(100));
  const auto run = run_with(t, {parse_link_fault("s0:s1@5us..40us", t)}, SimTime::us(1), {{0, 1, 100'000, SimTime::zero()}});
  EXPECT_FALSE(run.flows[0].delivered.is_infinite());
  EXPECT_GT(run.flows[0].delivered, SimTime::us(100));
  EXPECT_GT(run.totals.retransmits, 0u);
  EXPECT_EQ(run.totals.flows_given_up, 0u);
}

TEST(LinkFault, AFlappingLinkLosesWhatCrossesItWhileDownEachTime) {
  // s0:s1 of the detour ring goes down 10..20 us and again 30..40 us, with routes following
  // 1 us after each change. A flow of 1 MB from h0 to h1 (80 us at line rate) is sending in
  // both windows: packets are lost, the flow arrives, routes went round the detour meanwhile,
  // and the schedule has four route changes after the first.
  const topo::Topology t = ring_with_detour();
  const std::vector<LinkFault> faults{parse_link_fault("s0:s1@10us..20us", t), parse_link_fault("s0:s1@30us..40us", t)};
  const FaultSchedule schedule(faults, SimTime::us(1), t.links().size());
  EXPECT_EQ(schedule.changes().size(), 4u);
  EXPECT_EQ(schedule.epochs().size(), 5u);
  EXPECT_EQ(schedule.epochs()[4].from, SimTime::us(41));
  FabricParams params;
  params.rto_lossless = SimTime::us(100);
  const auto run = run_with(t, faults, SimTime::us(1), {{0, 1, 1'000'000, SimTime::zero()}}, params);
  EXPECT_FALSE(run.flows[0].delivered.is_infinite());
  EXPECT_GT(run.totals.packets_lost, 0u);
  EXPECT_EQ(run.totals.flows_given_up, 0u);
  // Routes went round the detour while the link was down: the detour carried data.
  const topo::LinkId detour = parse_link_fault("s2:s3@0", t).links[0];
  EXPECT_GT(run.link_bytes[2 * detour], 0u);
}

TEST(LinkFault, AHostWithTwoNicsFailsOverToTheLiveOne) {
  // h0 hangs off s0 and s1, both linked to s2, which has h1. h0's flow to h1 starts on NIC 0
  // (via s0); h0:s0 fails at 5 us for good. Its first timeout after that (rto_lossless 100 us
  // after the last acknowledgement) finds NIC 0 dead and NIC 1 routed to h1: it resends from
  // there and arrives; nothing is given up.
  topo::Topology t;
  const auto h0 = t.add_node("h0", topo::NodeKind::Host), h1 = t.add_node("h1", topo::NodeKind::Host);
  const auto s0 = t.add_node("s0", topo::NodeKind::Switch), s1 = t.add_node("s1", topo::NodeKind::Switch);
  const auto s2 = t.add_node("s2", topo::NodeKind::Switch);
  for (auto [a, b] : {std::pair{h0, s0}, {h0, s1}, {s0, s2}, {s1, s2}, {s2, h1}}) t.add_link(a, b, gbps(100), ns(1000));
  FabricParams params;
  params.rto_lossless = SimTime::us(100);
  const auto run = run_with(t, {parse_link_fault("h0:s0@5us", t)}, SimTime::us(1), {{0, 1, 1'000'000, SimTime::zero(), 0}},
                            params);
  EXPECT_FALSE(run.flows[0].delivered.is_infinite());
  EXPECT_GT(run.flows[0].delivered, SimTime::us(100));
  EXPECT_EQ(run.totals.flows_given_up, 0u);
  EXPECT_EQ(run.totals.flows_resent, 1u);
  EXPECT_GT(run.link_bytes[2 * 1], 0u);  // h0 -> s1 carried the resent data
}

TEST(LinkFault, FaultsOnFlowLinksAreRefused) {
  const topo::Topology t = testing::chain({ns(1000)}, gbps(100));
  auto transport = pdes::make_local_transport();
  FabricOptions o;
  o.fidelity = uniform_fidelity(LinkModel::Flow);
  o.link_faults = {parse_link_fault("h0:h1@1us", t)};
  EXPECT_THROW(run_flows(t, FabricParams{}, *transport, o, {{0, 1, 1000, SimTime::zero()}}), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::net
