// GOAL on the packet fabric, against times derived by hand from the fabric's closed forms
// (see tests/net/single_flow_test.cpp): over a star of 100 Gb/s links of 1 us, a message
// of s bytes arrives after 2 us + (first packet + all packets) x 80 ps per wire byte.

#include <gtest/gtest.h>

#include <filesystem>

#include "collsim/exec/fabric_executor.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/pdes/transport.hpp"
#include "collsim/topo/generators.hpp"
#include "net/fabric_test_util.hpp"

namespace collsim::exec {
namespace {

using net::testing::kPsPerByte;
using net::testing::kLinkPs;

// The hosts on one switch, 100 Gb/s links of 1 us.
topo::Topology star(std::uint32_t hosts) {
  return net::testing::star(hosts, Bandwidth::gbps(100), SimTime::ns(1000));
}

// Wire bytes of a flow of `bytes`: 4096-byte packets plus 64 bytes of header each.
std::int64_t wire(std::int64_t bytes) {
  const std::int64_t packets = bytes == 0 ? 1 : (bytes + 4095) / 4096;
  return bytes + 64 * packets;
}
std::int64_t one_way(std::int64_t bytes) {
  return 2 * kLinkPs + (wire(std::min<std::int64_t>(bytes, 4096)) + wire(bytes)) * kPsPerByte;
}
std::int64_t ack_one_way() { return 2 * kLinkPs + 2 * 64 * kPsPerByte; }
// A host answers the last packet of a flow with an ACK at the instant it is delivered; a
// flow it starts in reply queues behind that 64-byte ACK (control packets go first).
constexpr std::int64_t kBehindAck = 64 * kPsPerByte;

RunResult run(const goal::Schedule& s, std::uint32_t hosts, PacketHostParams host = {}, bool times = false) {
  auto transport = pdes::make_local_transport();
  const topo::Topology t = star(hosts);
  FabricRunOptions options;
  options.record_op_times = times;
  return run_on_fabric(t, net::FabricParams{}, *transport, net::FabricOptions{}, s,
                       make_placement(PlacementMethod::Linear, s.num_ranks(), hosts), host, options)
      .result;
}

goal::Schedule ping_pong(std::uint64_t bytes) {
  goal::ScheduleBuilder b(2);
  b.begin_rank(0);
  const auto s0 = b.add(goal::Op::send(bytes, 1));
  const auto r0 = b.add(goal::Op::recv(bytes, 1));
  b.add_requires(r0, s0);
  b.end_rank();
  b.begin_rank(1);
  const auto r1 = b.add(goal::Op::recv(bytes, 0));
  const auto s1 = b.add(goal::Op::send(bytes, 0));
  b.add_requires(s1, r1);
  b.end_rank();
  return b.finish();
}

TEST(FabricExecutor, PingPongTakesTwoOneWayTimes) {
  const RunResult r = run(ping_pong(10000), 2, PacketHostParams{}, true);
  ASSERT_TRUE(r.complete);
  // Rank 0's receive ends the exchange; its send finished when the first message was acked.
  EXPECT_EQ(one_way(10000), 3'148'160);
  EXPECT_EQ(r.rank_finish[0], SimTime::ps(2 * one_way(10000) + kBehindAck));
  // Rank 1's send finishes when its data is acknowledged.
  EXPECT_EQ(r.rank_finish[1], SimTime::ps(2 * one_way(10000) + kBehindAck + ack_one_way()));
  EXPECT_EQ(r.makespan, r.rank_finish[1]);
  EXPECT_EQ(r.ops_completed, 4u);
  EXPECT_EQ(r.messages, 2u);
  EXPECT_EQ(r.bytes, 20000u);
  ASSERT_EQ(r.op_times.size(), 4u);
  EXPECT_EQ(r.op_times[0].end, SimTime::ps(one_way(10000) + ack_one_way()));  // rank 0's send
  EXPECT_EQ(r.op_times[2].end, SimTime::ps(one_way(10000)));                  // rank 1's receive
}

TEST(FabricExecutor, RendezvousAddsARequestAndAClearToSend) {
  PacketHostParams host;
  host.eager_limit_bytes = 0;
  const RunResult r = run(ping_pong(10000), 2, host);
  ASSERT_TRUE(r.complete);
  const std::int64_t control = one_way(64);  // 64-byte request or clear-to-send
  EXPECT_EQ(control, 2'020'480);
  // Every flow but the first starts as its host acknowledges the flow it answers: the
  // clear-to-send and the data of the first message, all three flows of the second.
  EXPECT_EQ(r.rank_finish[0], SimTime::ps(2 * (2 * control + one_way(10000)) + 5 * kBehindAck));
}

TEST(FabricExecutor, HostOverheadsChargeTheCpu) {
  PacketHostParams host;
  host.o_ns = 1000;
  host.O_ns_per_byte = 0.5;
  const RunResult r = run(ping_pong(10000), 2, host);
  const std::int64_t overhead = 1'000'000 + 9999 * 500;  // o + (s-1) O
  // Each message: the sender's overhead, the network, the receiver's overhead.
  // The reply leaves after the receiver's overhead, when the ACK is long gone.
  EXPECT_EQ(r.rank_finish[0], SimTime::ps(2 * (overhead + one_way(10000) + overhead)));
}

// Two messages of three 4096-byte packets from rank 0 to rank 1, started together.
goal::Schedule two_messages(std::uint32_t tag_of_second) {
  goal::ScheduleBuilder b(2);
  b.begin_rank(0);
  b.add(goal::Op::send(12288, 1, 0));
  b.add(goal::Op::send(12288, 1, tag_of_second));
  b.end_rank();
  b.begin_rank(1);
  b.add(goal::Op::recv(12288, 0, 0));
  b.add(goal::Op::recv(12288, 0, tag_of_second));
  b.end_rank();
  return b.finish();
}

TEST(FabricExecutor, MessagesOfOneConnectionLeaveInOrder) {
  // Packet i (0-based) of the sender's stream arrives after 2 us + (i + 2) packet times (the
  // switch stores and forwards it); a packet time is 4160 x 80 ps.
  const std::int64_t packet = 4160 * kPsPerByte;
  auto arrival = [&](std::int64_t i) { return 2 * kLinkPs + (i + 2) * packet; };
  // Same tag, one connection: the second message's packets follow the first's.
  const RunResult same = run(two_messages(0), 2, PacketHostParams{}, true);
  ASSERT_EQ(same.op_times.size(), 4u);
  EXPECT_EQ(same.op_times[2].end, SimTime::ps(arrival(2)));
  EXPECT_EQ(same.op_times[3].end, SimTime::ps(arrival(5)));
  // Different tags, two connections: they take turns packet by packet once both are there
  // (A0 went alone): A0 A1 B0 A2 B1 B2.
  const RunResult two = run(two_messages(1), 2, PacketHostParams{}, true);
  ASSERT_EQ(two.op_times.size(), 4u);
  EXPECT_EQ(two.op_times[2].end, SimTime::ps(arrival(3)));
  EXPECT_EQ(two.op_times[3].end, SimTime::ps(arrival(5)));
}

goal::Schedule two_calcs(std::uint8_t cpu_of_second, bool irequires) {
  goal::ScheduleBuilder b(1);
  b.begin_rank(0);
  const auto a = b.add(goal::Op::calc(1000, 0));
  const auto c = b.add(goal::Op::calc(1000, cpu_of_second));
  if (irequires) b.add_irequires(c, a);
  b.end_rank();
  return b.finish();
}

TEST(FabricExecutor, CpusAreSequentialResources) {
  EXPECT_EQ(run(two_calcs(1, false), 1).makespan, SimTime::ps(1'000'000));  // two cpus in parallel
  EXPECT_EQ(run(two_calcs(0, false), 1).makespan, SimTime::ps(2'000'000));  // one cpu, one after the other
  EXPECT_EQ(run(two_calcs(1, true), 1).makespan, SimTime::ps(1'000'000));   // irequires: after the start only
}

TEST(FabricExecutor, RanksOnOneHostExchangeThroughMemory) {
  goal::ScheduleBuilder b(2);
  b.begin_rank(0);
  b.add(goal::Op::calc(500));
  const auto s = b.add(goal::Op::send(1 << 20, 1));
  b.add_requires(s, 0);
  b.end_rank();
  b.begin_rank(1);
  b.add(goal::Op::recv(1 << 20, 0));
  b.end_rank();
  auto transport = pdes::make_local_transport();
  const RunResult r = run_on_fabric(star(2), net::FabricParams{}, *transport, net::FabricOptions{}, b.finish(),
                                    placement_from_hosts({0, 0}, 2), PacketHostParams{})
                          .result;
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.makespan, SimTime::ps(500'000));
}

TEST(FabricExecutor, ADeadlockIsReportedOpByOp) {
  goal::ScheduleBuilder b(2);
  for (goal::RankId r = 0; r < 2; ++r) {
    b.begin_rank(r);
    const auto recv = b.add(goal::Op::recv(100, 1 - r));
    const auto send = b.add(goal::Op::send(100, 1 - r));
    b.add_requires(send, recv);
    b.end_rank();
  }
  const RunResult r = run(b.finish(), 2);
  EXPECT_FALSE(r.complete);
  ASSERT_EQ(r.blocked.size(), 4u);
  EXPECT_EQ(r.blocked[0], "rank 0 op 0 (recv 100 b from 1 tag 0 cpu 0 nic 0): posted; no matching message arrived");
  EXPECT_EQ(r.blocked[1], "rank 0 op 1 (send 100 b to 1 tag 0 cpu 0 nic 0): waits for op 0 to finish");
  EXPECT_EQ(r.ops_completed, 0u);
}

TEST(FabricExecutor, APfcDeadlockIsNamedWithTheRunThatStalledOnIt) {
  // A ring of 5 switches, host i on switch i; rank i sends 8 MiB to rank i+2, two ring hops
  // clockwise (the shortest way). With PFC thresholds of a few packets every ring port ends
  // up paused by the next one (see tests/net/pfc_deadlock_test.cpp), and the run stalls.
  topo::Topology t;
  for (std::uint32_t i = 0; i < 5; ++i) t.add_node("h" + std::to_string(i), topo::NodeKind::Host);
  std::vector<topo::NodeId> sw;
  for (std::uint32_t i = 0; i < 5; ++i) sw.push_back(t.add_node("s" + std::to_string(i), topo::NodeKind::Switch));
  for (std::uint32_t i = 0; i < 5; ++i) t.add_link(t.host(i), sw[i], Bandwidth::gbps(100), SimTime::ns(500));
  for (std::uint32_t i = 0; i < 5; ++i) t.add_link(sw[i], sw[(i + 1) % 5], Bandwidth::gbps(100), SimTime::ns(500));
  goal::ScheduleBuilder b(5);
  for (goal::RankId r = 0; r < 5; ++r) {
    b.begin_rank(r);
    b.add(goal::Op::send(8 << 20, (r + 2) % 5));
    b.add(goal::Op::recv(8 << 20, (r + 3) % 5));
    b.end_rank();
  }
  net::FabricParams p;
  p.pfc_xoff_bytes = 3 * 4160;
  p.pfc_xon_bytes = 2 * 4160;
  p.ecn = false;
  auto transport = pdes::make_local_transport();
  const goal::Schedule s = b.finish();
  const RunResult r = run_on_fabric(t, p, *transport, net::FabricOptions{}, s,
                                    make_placement(PlacementMethod::Linear, 5, 5), PacketHostParams{})
                          .result;
  EXPECT_FALSE(r.complete);
  // "sX port P -> sY port Q -> ... -> sX port P": switches only, back to where it began.
  ASSERT_FALSE(r.pfc_deadlock.empty());
  EXPECT_EQ(r.pfc_deadlock.find('h'), std::string::npos) << r.pfc_deadlock;
  const auto first = r.pfc_deadlock.substr(0, r.pfc_deadlock.find(" -> "));
  EXPECT_EQ(r.pfc_deadlock.substr(r.pfc_deadlock.rfind(" -> ") + 4), first) << r.pfc_deadlock;
  // A run that completes names none.
  EXPECT_TRUE(run(ping_pong(1 << 20), 2).pfc_deadlock.empty());
}

TEST(FabricExecutor, AMessageNobodyReceivesIsReported) {
  goal::ScheduleBuilder b(2);
  b.begin_rank(0);
  b.add(goal::Op::send(100, 1, 6));
  b.end_rank();
  b.begin_rank(1);
  b.add(goal::Op::recv(100, 0, 5));
  b.end_rank();
  const RunResult r = run(b.finish(), 2);
  EXPECT_FALSE(r.complete);
  ASSERT_EQ(r.blocked.size(), 1u);
  EXPECT_NE(r.blocked[0].find("rank 1 op 0 (recv 100 b from 0 tag 5"), std::string::npos) << r.blocked[0];
  ASSERT_EQ(r.unmatched.size(), 1u);
  EXPECT_EQ(r.unmatched[0],
            "rank 1: message from rank 0 tag 6 (100 bytes, eager) was never received");
}

TEST(FabricExecutor, RunsTheSharedGoalSamples) {
  for (const auto& entry : std::filesystem::directory_iterator(COLLSIM_GOAL_EXAMPLES)) {
    if (entry.path().extension() != ".goal") continue;
    const goal::Schedule s = goal::load_schedule(entry.path().string());
    if (s.num_ranks() > 64) continue;  // the 128-rank sample runs in the CLI tests
    PacketHostParams host;
    host.o_ns = 1500;
    const RunResult r = run(s, s.num_ranks(), host);
    EXPECT_TRUE(r.complete) << entry.path() << ": " << (r.blocked.empty() ? "" : r.blocked[0]);
    EXPECT_EQ(r.ops_completed, s.num_ops()) << entry.path();
    EXPECT_GT(r.makespan, SimTime::zero()) << entry.path();
  }
}


// A GPU of a rail cluster has two ports: NVLink to its own server, a NIC to the others. A GOAL
// op's `nic` picks among the ports that lead to the peer, so `nic 0` and `nic 1` both reach a
// GPU of another server through the rail leaf, and one of the same server through the
// NVSwitch. With every link at 100 Gb/s and 1 us, either path is two hops: one_way(s).
TEST(FabricExecutor, ANicChoiceNeverSendsAMessageOffItsPath) {
  topo::RailParams p;
  p.servers = 2;
  p.gpus_per_server = 2;
  p.spines = 1;
  const topo::LinkSpec link{Bandwidth::gbps(100), SimTime::ns(1000)};
  p.nvlink = p.nic = p.fabric_link = link;
  const topo::Topology t = topo::make_rail(p);
  for (std::uint8_t nic : {0, 1}) {
    for (goal::RankId to : {1u, 2u}) {  // rank 1: same server; rank 2: the other server, same rail
      goal::ScheduleBuilder b(4);
      for (goal::RankId r = 0; r < 4; ++r) {
        b.begin_rank(r);
        if (r == 0) b.add(goal::Op::send(10000, to, 0, 0, nic));
        if (r == to) b.add(goal::Op::recv(10000, 0, 0, 0, nic));
        b.end_rank();
      }
      auto transport = pdes::make_local_transport();
      FabricRunOptions options;
      options.record_op_times = true;
      const RunResult r = run_on_fabric(t, net::FabricParams{}, *transport, net::FabricOptions{}, b.finish(),
                                        make_placement(PlacementMethod::Linear, 4, 4), PacketHostParams{}, options)
                              .result;
      ASSERT_TRUE(r.complete) << "nic " << int(nic) << " to rank " << to;
      ASSERT_EQ(r.op_times.size(), 2u);
      EXPECT_EQ(r.op_times[1].end, SimTime::ps(one_way(10000))) << "nic " << int(nic) << " to rank " << to;
    }
  }
}

}  // namespace
}  // namespace collsim::exec
