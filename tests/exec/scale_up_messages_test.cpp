// --scale-up message (ScaleUpMessages): rendezvous data between hosts of one server as a delay
// per port instead of packets. Exact times by hand for one message, and against the packet
// model on collectives inside one server: the same completion within a few per cent, for a
// small fraction of the events.

#include <gtest/gtest.h>

#include "collsim/collectives/generate.hpp"
#include "collsim/exec/fabric_executor.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/pdes/transport.hpp"
#include "exec/one_node_plan.hpp"
#include "exec/schedule_pieces.hpp"
#include "net/fabric_test_util.hpp"

namespace collsim::exec {
namespace {

// Every host on one switch (the "server"), 100 Gb/s (80 ps per byte) links of 1 us; the
// fabric's default packets: 4096 bytes of payload and 64 of header.
using net::testing::kPsPerByte;

ScaleUpMessages whole_star_is_one_server(std::uint32_t hosts) {
  ScaleUpMessages s;
  s.hosts_per_server = hosts;
  s.bits_per_s = 100'000'000'000;
  s.latency = SimTime::us(2);  // two links
  s.mtu_bytes = 4096;
  s.header_bytes = 64;
  return s;
}

SimulationRun run(const goal::Schedule& s, bool messages) {
  auto transport = pdes::make_local_transport();
  const topo::Topology t = net::testing::star(s.num_ranks(), Bandwidth::gbps(100), SimTime::ns(1000));
  PacketHostParams host;
  if (messages) host.scale_up = whole_star_is_one_server(s.num_ranks());
  FabricRunOptions options;
  options.record_op_times = true;
  return run_on_fabric(t, net::FabricParams{}, *transport, net::FabricOptions{}, s,
                       make_placement(PlacementMethod::Linear, s.num_ranks(), s.num_ranks()), host, options);
}

TEST(ScaleUpMessages, WireTimeCountsAHeaderPerPacket) {
  const ScaleUpMessages s = whole_star_is_one_server(2);
  // 1 MiB: 256 packets, 1,048,576 + 256 × 64 = 1,064,960 bytes at 80 ps each.
  EXPECT_EQ(s.wire_time(1 << 20), SimTime::ps(85'196'800));
  // 4097 bytes: two packets, (4097 + 128) × 80 = 338,000 ps; 0 bytes: one header.
  EXPECT_EQ(s.wire_time(4097), SimTime::ps(338'000));
  EXPECT_EQ(s.wire_time(0), SimTime::ps(64 * kPsPerByte));
}

TEST(ScaleUpMessages, OneRendezvousMessageTakesWhatTheDelaysAddUpTo) {
  // Rank 0 sends 1 MiB to rank 1, whose receive is posted at 0. By hand, with a 64-byte
  // control packet taking one_way = 2 us + 2 × (64 + 64) × 80 ps = 2,020,480 ps and a reply
  // queued behind the 64-byte ACK of what it answers (64 × 80 = 5,120 ps):
  //   request arrives                   2,020,480
  //   clear-to-send arrives             2,020,480 + 5,120 + 2,020,480 = 4,046,080
  //   notice arrives                    4,046,080 + 5,120 + 2,020,480 = 6,071,680
  //   receive ends (data taken in)      6,071,680 + 85,196,800       = 91,268,480
  //   send ends (data acknowledged)     4,046,080 + 85,196,800 + 2 × 2,000,000 = 93,242,880
  const goal::Schedule s = testing::one_message(1 << 20);
  const SimulationRun m = run(s, true);
  ASSERT_TRUE(m.result.complete);
  ASSERT_EQ(m.result.op_times.size(), 2u);
  EXPECT_EQ(m.result.op_times[0].end, SimTime::ps(93'242'880));
  EXPECT_EQ(m.result.op_times[1].end, SimTime::ps(91'268'480));
  // As packets the data's last byte arrives one packet's store-and-forward later:
  // 4,046,080 + 5,120 + 2 us + (4,160 + 1,064,960) × 80 = 91,580,800 (0.3 % later).
  const SimulationRun p = run(s, false);
  ASSERT_TRUE(p.result.complete);
  EXPECT_EQ(p.result.op_times[1].end, SimTime::ps(91'580'800));
}

using testing::one_node_plan;

// The packet model's makespan, the message model's, and the events of each.
void expect_close(const goal::Schedule& s, double tolerance, const char* what) {
  const SimulationRun p = run(s, false), m = run(s, true);
  ASSERT_TRUE(p.result.complete) << what;
  ASSERT_TRUE(m.result.complete) << what;
  const double ratio = static_cast<double>(m.result.makespan.picoseconds()) /
                       static_cast<double>(p.result.makespan.picoseconds());
  EXPECT_NEAR(ratio, 1.0, tolerance) << what << ": packets " << p.result.makespan.picoseconds() << " ps, messages "
                                     << m.result.makespan.picoseconds() << " ps";
  // Each 1 MiB chunk is ~256 packets (each a few events) as packets, three control packets
  // as messages.
  EXPECT_LT(m.stats.events * 20, p.stats.events) << what << ": " << m.stats.events << " vs " << p.stats.events;
}

TEST(ScaleUpMessages, RingAllreduceInsideAServerMatchesThePacketModel) {
  // 8 GPUs, 32 MiB, 2 channels of 1 MiB chunks. The message model finishes 2.5 % early
  // (4.794 against 4.916 ms): the two channels' messages to one peer go one after the other
  // instead of interleaving packets, so each channel's next step can start sooner.
  expect_close(collectives::generate(one_node_plan(collectives::Collective::Allreduce, "ring", 8, 32 << 20)), 0.03, "ring allreduce");
}

TEST(ScaleUpMessages, AllToAllInsideAServerMatchesThePacketModel) {
  // 8 GPUs each sending 2 MiB to each other: seven senders share every receiving port, taken
  // in whole messages one after another instead of interleaved packets; the same total, and
  // the makespans differ by 0.1 % (1.2330 against 1.2345 ms).
  expect_close(collectives::generate(one_node_plan(collectives::Collective::AllToAll, "direct", 8, 8 * (2 << 20))), 0.01, "all-to-all");
}

}  // namespace
}  // namespace collsim::exec
