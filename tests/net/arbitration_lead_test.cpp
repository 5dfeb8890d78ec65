// The switch's arbitration lead: a packet that finds the frame on the wire nearly sent is
// committed at once instead of waiting for a "transmitter free" event, which must change no
// time and spare exactly those events.

#include <gtest/gtest.h>

#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::gbps;
using testing::ns;

// 100 Gb/s: 80 ps per byte. A full packet is 4096 + 64 B on the wire.
using testing::kPsPerByte;
constexpr std::int64_t kFull = 4160 * kPsPerByte;  // 332,800 ps
constexpr std::int64_t kTiny = 64 * kPsPerByte;    // a 0-byte flow: one 64 B header, 5,120 ps
constexpr std::int64_t kLatency = 1'000'000;

// h0 streams 1,000,000 B to h2 through one switch; h1 sends one header-only packet to h2 that
// reaches the switch halfway through the switch's sending of h0's packet 10. It leaves right
// after that packet and pushes every later packet of h0 back by its 5.12 ns, so that each
// full one (11 to 243) arrives to find the port busy for 5.12 ns more.
FlowRun shifted_stream(std::uint32_t lead_bytes) {
  const topo::Topology t = testing::star(3, gbps(100), ns(1000));
  FabricParams p;
  p.arbitration_lead_bytes = lead_bytes;
  // Packet k of h0 is at the switch after the latency and k + 1 serialisations, and on the
  // switch's wire from then for one more. h1's packet must arrive at 11.5 of them + latency.
  const std::int64_t tiny_start = 11 * kFull + kFull / 2 - kTiny;
  return testing::run(t, p, {{0, 2, 1'000'000, SimTime::zero()}, {1, 2, 0, SimTime::ps(tiny_start)}});
}

TEST(ArbitrationLead, ChangesNoTimeAndSparesTheTransmitterEventOfEachShiftedPacket) {
  const FlowRun eager = shifted_stream(0);
  const FlowRun lead = shifted_stream(128);
  // h0's flow: both latencies, store-and-forward of its first packet at the switch, every
  // packet serialised once (244 full and one of 576 + 64 B), and h1's 64 B ahead of it.
  const std::int64_t stream_done = 2 * kLatency + kFull + 244 * kFull + 640 * kPsPerByte + kTiny;
  // h1's packet: on the switch's wire as soon as h0's packet 10 is out (11 + 1 serialisations
  // after the latency), then one more latency.
  const std::int64_t tiny_done = kLatency + 12 * kFull + kTiny + kLatency;
  for (const FlowRun* run : {&eager, &lead}) {
    ASSERT_EQ(run->flows.size(), 2u);
    EXPECT_EQ(run->flows[0].delivered.picoseconds(), stream_done);
    EXPECT_EQ(run->flows[1].delivered.picoseconds(), tiny_done);
    EXPECT_EQ(run->totals.drops, 0u);
  }
  EXPECT_EQ(lead.flows[0].acked, eager.flows[0].acked);
  // Packets 11 to 243 of h0 each needed a wakeup of the switch port without the lead, and
  // within 128 B (10.24 ns) of a free wire none with it. The last packet (640 B) is at the
  // switch after its own short serialisation, while most of packet 243 is still to go out:
  // it waits for a wakeup either way.
  EXPECT_EQ(eager.stats.events - lead.stats.events, 243u - 11u + 1u);
}

TEST(ArbitrationLead, IsAFabricParameter) {
  FabricParams p;
  EXPECT_EQ(p.arbitration_lead_bytes, 128u);
  set_fabric_param(p, "arbitration_lead_bytes", "0");
  EXPECT_EQ(p.arbitration_lead_bytes, 0u);
}

}  // namespace
}  // namespace collsim::net
