// Links whose speed changes during a run, against closed forms derived by hand.

#include "collsim/net/link_change.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::chain;
using testing::gbps;
using testing::ns;

FlowRun run_with(const topo::Topology& t, const std::vector<LinkChange>& changes, const std::vector<FlowSpec>& flows) {
  auto transport = pdes::make_local_transport();
  FabricOptions o;
  o.link_changes = changes;
  return run_flows(t, FabricParams{}, *transport, o, flows);
}

TEST(LinkChange, AMiddleLinkAtHalfSpeedFromTheStart) {
  // h0 -1us- s0 -2us- s1 -0.5us- h1 at 100 Gb/s (80 ps a byte), the middle link at 50 Gb/s
  // (160 ps a byte). 1,000,000 B: 244 packets of 4160 B on the wire and one of 640 B. The
  // first packet reaches s0 after 4160 x 80 ps + 1 us; s0 then sends the full packets back to
  // back at half speed; the last full one reaches s1 2 us later and h1 4160 x 80 ps + 0.5 us
  // after that. The 640 B packet reaches s1 while it still sends that one (640 B at 50 Gb/s
  // take less than 4160 B at 100 Gb/s) and follows it: 640 x 80 ps more.
  const topo::Topology t = chain({ns(1000), ns(2000), ns(500)}, gbps(100));
  const LinkChange half = parse_link_change("s0:s1@0s=50Gbps", t);
  const auto run = run_with(t, {half}, {{0, 1, 1'000'000, SimTime::zero()}});
  const std::int64_t expected = 3'500'000 + 4160 * 80 + 244 * 4160 * 160 + 4160 * 80 + 640 * 80;
  ASSERT_EQ(expected, 166'623'200);
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), expected);
  // The same as a topology whose middle link is 50 Gb/s.
  topo::Topology slow;
  const auto h0 = slow.add_node("h0", topo::NodeKind::Host);
  const auto h1 = slow.add_node("h1", topo::NodeKind::Host);
  const auto s0 = slow.add_node("s0", topo::NodeKind::Switch);
  const auto s1 = slow.add_node("s1", topo::NodeKind::Switch);
  slow.add_link(h0, s0, gbps(100), ns(1000));
  slow.add_link(s0, s1, gbps(50), ns(2000));
  slow.add_link(s1, h1, gbps(100), ns(500));
  EXPECT_EQ(testing::run(slow, FabricParams{}, {{0, 1, 1'000'000, SimTime::zero()}}).flows[0].delivered, run.flows[0].delivered);
}

TEST(LinkChange, SlowingMidFlowTakesEffectForThePacketsSentAfter) {
  // h0 -1us- h1, 10 packets of 4096 B (4160 B on the wire, 332,800 ps each at 100 Gb/s).
  // Halved once 5 have left (at 1,664,000 ps): the other 5 take 665,600 ps each.
  const topo::Topology t = chain({ns(1000)}, gbps(100));
  const std::int64_t after_five = 5 * 332'800;
  const std::int64_t expected = after_five + 5 * 665'600 + 1'000'000;
  auto at = [&](std::int64_t ps) {
    return run_with(t, {{0, SimTime::ps(ps), gbps(50)}}, {{0, 1, 40960, SimTime::zero()}}).flows[0].delivered.picoseconds();
  };
  EXPECT_EQ(at(after_five), expected);
  // Halfway through the fifth packet: it finishes at the old speed, as on the wire it is.
  EXPECT_EQ(at(after_five - 166'400), expected);
}

TEST(LinkChange, ADegradedLinkRepaired) {
  // As above, halved after 5 packets and back to 100 Gb/s after 2 more (1,331,200 ps later):
  // the last 3 at full speed.
  const topo::Topology t = chain({ns(1000)}, gbps(100));
  const std::int64_t down = 5 * 332'800, up = down + 2 * 665'600;
  const auto run = run_with(t, {{0, SimTime::ps(down), gbps(50)}, {0, SimTime::ps(up), gbps(100)}},
                            {{0, 1, 40960, SimTime::zero()}});
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), up + 3 * 332'800 + 1'000'000);
}

TEST(LinkChange, ParseNamesWhatIsWrong) {
  const topo::Topology t = chain({ns(1000), ns(1000)}, gbps(100));
  EXPECT_EQ(parse_link_change("s0:h1@1ms=10Gbps", t).link, 1u);
  EXPECT_EQ(parse_link_change("h1:s0@1ms=10Gbps", t).at, SimTime::ms(1));
  auto message = [&](const char* text) -> std::string {
    try {
      parse_link_change(text, t);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message("s0-h1@1ms=10Gbps").find("expected NODE_A:NODE_B@TIME=BANDWIDTH"), std::string::npos);
  EXPECT_NE(message("s9:h1@1ms=10Gbps").find("no node 's9'"), std::string::npos);
  EXPECT_NE(message("h0:h1@1ms=10Gbps").find("no link between h0 and h1"), std::string::npos);
  EXPECT_NE(message("s0:h1@soon=10Gbps").find("the time"), std::string::npos);
  EXPECT_NE(message("s0:h1@1ms=fast").find("the bandwidth"), std::string::npos);
  EXPECT_NE(message("s0:h1@1ms=0Gbps").find("bandwidth"), std::string::npos);
}

}  // namespace
}  // namespace collsim::net
