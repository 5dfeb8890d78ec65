// A cyclic buffer dependency under PFC: a ring of switches where every flow crosses two
// ring links. Each switch's ingress from its predecessor fills with packets for its
// successor; with small PFC thresholds every ring port ends up paused by the next, and
// nothing moves again. The run must end (no events left), leave the flows unfinished, and
// name the cycle of paused ports.

#include <gtest/gtest.h>

#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::gbps;
using testing::ns;

topo::Topology ring(std::uint32_t n) {
  topo::Topology t;
  for (std::uint32_t i = 0; i < n; ++i) t.add_node("h" + std::to_string(i), topo::NodeKind::Host);
  std::vector<topo::NodeId> s;
  for (std::uint32_t i = 0; i < n; ++i) s.push_back(t.add_node("s" + std::to_string(i), topo::NodeKind::Switch));
  for (std::uint32_t i = 0; i < n; ++i) t.add_link(t.host(i), s[i], gbps(100), ns(500));
  for (std::uint32_t i = 0; i < n; ++i) t.add_link(s[i], s[(i + 1) % n], gbps(100), ns(500));
  return t;
}

TEST(PfcDeadlock, RingOfTwoHopFlowsDeadlocksAndIsNamed) {
  // 5 switches: host i sends to host i+2, two hops clockwise (the shortest way round).
  const topo::Topology t = ring(5);
  std::vector<FlowSpec> flows;
  for (HostIndex i = 0; i < 5; ++i) flows.push_back({i, (i + 2) % 5, 8 << 20, SimTime::zero()});
  FabricParams p;
  p.pfc_xoff_bytes = 3 * 4160;
  p.pfc_xon_bytes = 2 * 4160;
  p.ecn = false;
  const auto run = testing::run(t, p, flows);
  std::size_t unfinished = 0;
  for (const auto& f : run.flows) unfinished += f.delivered.is_infinite();
  EXPECT_GT(unfinished, 0u);
  EXPECT_EQ(run.totals.drops, 0u);
  // The cycle runs through ring ports only: "sX port P -> sY port Q -> ...", back to the start.
  ASSERT_FALSE(run.pfc_deadlock.empty());
  EXPECT_EQ(run.pfc_deadlock.find('h'), std::string::npos) << run.pfc_deadlock;
  const auto first = run.pfc_deadlock.substr(0, run.pfc_deadlock.find(" -> "));
  EXPECT_EQ(run.pfc_deadlock.substr(run.pfc_deadlock.rfind(" -> ") + 4), first) << run.pfc_deadlock;
}

TEST(PfcDeadlock, NoneWhenEverythingCompletes) {
  const auto run = testing::run(testing::star(4, gbps(100), ns(500)), FabricParams{},
                                make_flow_pattern(FlowPattern::Incast, 4, 1 << 20, 1, 3));
  EXPECT_TRUE(run.pfc_deadlock.empty());
  EXPECT_EQ(run.totals.flows_delivered, 3u);
}

}  // namespace
}  // namespace collsim::net
