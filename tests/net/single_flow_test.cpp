// One flow on an idle path, against closed forms derived by hand.

#include <gtest/gtest.h>

#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::chain;
using testing::gbps;
using testing::ns;

// 100 Gb/s: 8 bits per 1e11 bit/s = 80 ps per byte.
using testing::kPsPerByte;

TEST(SingleFlow, ArrivesAtClosedFormTime) {
  // Links of 1 us, 2 us, 0.5 us; 1,000,000 B in 244 packets of 4096 B and one of 576 B, each
  // with 64 B of header. The last byte arrives after: the propagation of every hop
  // (3.5 us), store-and-forward of the first (full) packet at both switches (2 x 4160 B), and
  // every packet's serialisation once (244 x 4160 B + 640 B).
  const topo::Topology t = chain({ns(1000), ns(2000), ns(500)}, gbps(100));
  FabricParams p;
  const auto run = testing::run(t, p, {{0, 1, 1'000'000, SimTime::zero()}});
  const std::int64_t expected = 3'500'000 + 2 * 4160 * kPsPerByte + (244 * 4160 + 640) * kPsPerByte;
  ASSERT_EQ(expected, 85'420'000);
  ASSERT_EQ(run.flows.size(), 1u);
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), expected);
  EXPECT_EQ(run.flows[0].fct().picoseconds(), expected);
  EXPECT_EQ(run.totals.bytes_delivered, 1'000'000u);
  EXPECT_EQ(run.totals.drops, 0u);
  EXPECT_EQ(run.totals.retransmits, 0u);
  // 245 data packets crossing two switches, and 16 ACKs crossing them back: by default the
  // receiver acknowledges every 16th packet (15 of them up to packet 240) and the last.
  EXPECT_EQ(run.totals.data_packets, 245u);
  EXPECT_EQ(run.totals.packets_forwarded, 2u * 245u + 2u * 16u);
  // The sender hears of the last byte one ACK later: 64 B over three hops, no queueing.
  EXPECT_EQ(run.flows[0].acked.picoseconds(), expected + 3 * 64 * kPsPerByte + 3'500'000);
}

TEST(SingleFlow, AckEveryOneAcknowledgesEachPacketWithoutChangingDelivery) {
  // The same flow as above with per-packet ACKs: 245 ACKs, each crossing both switches; on an
  // idle path the reverse traffic delays nothing, so the times are those derived above.
  const topo::Topology t = chain({ns(1000), ns(2000), ns(500)}, gbps(100));
  FabricParams p;
  p.ack_every = 1;
  const auto run = testing::run(t, p, {{0, 1, 1'000'000, SimTime::zero()}});
  const std::int64_t expected = 85'420'000;
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), expected);
  EXPECT_EQ(run.totals.packets_forwarded, 2u * 245u * 2u);
  EXPECT_EQ(run.flows[0].acked.picoseconds(), expected + 3 * 64 * kPsPerByte + 3'500'000);
}

TEST(SingleFlow, StartTimeShiftsEverything) {
  const topo::Topology t = chain({ns(1000), ns(1000)}, gbps(100));
  const auto run = testing::run(t, FabricParams{}, {{0, 1, 4096, SimTime::us(7)}});
  // One packet of 4160 B, serialised on both hops, 2 us of propagation.
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), 7'000'000 + 2'000'000 + 2 * 4160 * kPsPerByte);
  EXPECT_EQ(run.flows[0].fct().picoseconds(), 2'000'000 + 2 * 4160 * kPsPerByte);
}

TEST(SingleFlow, SwitchLatencyAddsPerSwitch) {
  topo::Topology t;
  const auto h0 = t.add_node("h0", topo::NodeKind::Host);
  const auto h1 = t.add_node("h1", topo::NodeKind::Host);
  topo::SwitchParams slow;
  slow.latency = ns(300);
  const auto s = t.add_node("s", topo::NodeKind::Switch, slow);
  t.add_link(h0, s, gbps(100), ns(1000));
  t.add_link(s, h1, gbps(100), ns(1000));
  const auto run = testing::run(t, FabricParams{}, {{0, 1, 8192, SimTime::zero()}});
  // Two packets of 4160 B: 2 serialisations at the host, one more at the switch for the last.
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), 2'000'000 + 300'000 + 3 * 4160 * kPsPerByte);
}

TEST(SingleFlow, ZeroByteFlowIsOneHeaderOnlyPacket) {
  const topo::Topology t = chain({ns(1000)}, gbps(100));
  const auto run = testing::run(t, FabricParams{}, {{0, 1, 0, SimTime::zero()}});
  EXPECT_EQ(run.flows[0].delivered.picoseconds(), 1'000'000 + 64 * kPsPerByte);
  EXPECT_EQ(run.totals.flows_delivered, 1u);
}

}  // namespace
}  // namespace collsim::net
