// The packet mode on a schedule that arrives in pieces (run_stream_on_fabric): the times of
// the whole-schedule executor, derived by hand where the fabric_executor and scale-up tests
// derive them, and identical to run_on_fabric() on collectives, in pieces or whole.

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

using testing::PiecesOf;

// The hosts on one switch, 100 Gb/s links of 1 us: 80 ps per byte.
using net::testing::kPsPerByte;
using net::testing::kLinkPs;
topo::Topology star(std::uint32_t hosts) {
  return net::testing::star(hosts, Bandwidth::gbps(100), SimTime::ns(1000));
}

SimulationRun whole(const goal::Schedule& s, const Placement& placement, const PacketHostParams& host = {}) {
  auto transport = pdes::make_local_transport();
  return run_on_fabric(star(static_cast<std::uint32_t>(placement.ranks_on.size())), net::FabricParams{}, *transport,
                       net::FabricOptions{}, s, placement, host);
}

struct Finished {
  goal::RankId rank;
  std::uint8_t label;
  SimTime start, end;
};

SimulationRun streamed(const goal::Schedule& s, const Placement& placement, std::uint32_t piece_ops,
                   const PacketHostParams& host = {}, std::vector<Finished>* finished = nullptr) {
  auto transport = pdes::make_local_transport();
  PiecesOf stream(s, piece_ops);
  OpFinished hear;
  if (finished)
    hear = [finished](goal::RankId r, std::uint8_t label, SimTime start, SimTime end) {
      finished->push_back({r, label, start, end});
    };
  return run_stream_on_fabric(star(static_cast<std::uint32_t>(placement.ranks_on.size())), net::FabricParams{},
                              *transport, net::FabricOptions{}, stream, placement, host, hear);
}

Placement linear(std::uint32_t ranks) { return make_placement(PlacementMethod::Linear, ranks, ranks); }

void expect_same(const SimulationRun& a, const SimulationRun& b) {
  ASSERT_TRUE(a.result.complete);
  ASSERT_TRUE(b.result.complete);
  EXPECT_EQ(a.result.makespan, b.result.makespan);
  EXPECT_EQ(a.result.rank_finish, b.result.rank_finish);
  EXPECT_EQ(a.result.ops_completed, b.result.ops_completed);
  EXPECT_EQ(a.result.ops_total, b.result.ops_total);
  EXPECT_EQ(a.result.messages, b.result.messages);
  EXPECT_EQ(a.result.bytes, b.result.bytes);
  EXPECT_EQ(a.stats.events, b.stats.events);
}

// Rank 0 and rank 1 bounce `rounds` messages of `bytes`; every op waits for the one before,
// so the schedule may be cut anywhere.
goal::Schedule bounce(std::uint64_t bytes, int rounds) {
  goal::ScheduleBuilder b(2);
  for (goal::RankId r = 0; r < 2; ++r) {
    b.begin_rank(r);
    goal::LocalOp last = 0;
    for (int k = 0; k < 2 * rounds; ++k) {
      const bool sends = (k % 2 == 0) == (r == 0);
      const goal::LocalOp op = b.add(sends ? goal::Op::send(bytes, 1 - r, 3) : goal::Op::recv(bytes, 1 - r, 3));
      if (k > 0) b.add_requires(op, last);
      last = op;
    }
    b.end_rank();
  }
  return b.finish();
}

TEST(StreamOnFabric, EagerMessagesBounceInOneWayTimesEach) {
  // 10,000 bytes: three packets (4096, 4096, 1808) and 64 bytes of header each. One way is
  // 2 us of links plus the first packet's and all the wire bytes at 80 ps: 2,000,000 +
  // (4,160 + 10,192) × 80 = 3,148,160 ps. Each receive finishes as its message arrives, and
  // the reply then queues behind the 64-byte ACK (5,120 ps): the 6th message ends at
  // 6 × 3,148,160 + 5 × 5,120 = 18,914,560 ps on rank 1.
  const goal::Schedule s = bounce(10000, 3);
  std::vector<Finished> finished;
  const SimulationRun r = streamed(s, linear(2), 2, {}, &finished);
  ASSERT_TRUE(r.result.complete);
  EXPECT_EQ(r.result.rank_finish[1], SimTime::ps(18'914'560 + 2 * kLinkPs + 2 * 64 * kPsPerByte));  // its send's ACK
  EXPECT_EQ(r.result.rank_finish[0], SimTime::ps(18'914'560));
  EXPECT_EQ(r.result.ops_total, 12u);
  EXPECT_EQ(r.result.messages, 6u);
  // Pieces of two ops: never more than two ops of a rank at once, beyond the one in flight.
  EXPECT_LE(r.result.peak_live_ops, 2u * 4u);
  ASSERT_EQ(finished.size(), 12u);
  // The first op to finish is rank 1's receive (label 0), as the first message arrives; then
  // rank 0's send (label 0), started at 0, when its ACK is back.
  EXPECT_EQ(finished[0].rank, 1u);
  EXPECT_EQ(finished[0].label, 0u);
  EXPECT_EQ(finished[0].end, SimTime::ps(3'148'160));
  EXPECT_EQ(finished[1].rank, 0u);
  EXPECT_EQ(finished[1].label, 0u);
  EXPECT_EQ(finished[1].start, SimTime::zero());
  EXPECT_EQ(finished[1].end, SimTime::ps(3'148'160 + 2 * kLinkPs + 2 * 64 * kPsPerByte));
  expect_same(r, whole(s, linear(2)));
}

TEST(StreamOnFabric, RendezvousAndHostOverheadsAsTheWholeSchedule) {
  // 100 KB goes by rendezvous (above the 65,535-byte eager limit); o and O charge the cpu.
  PacketHostParams host;
  host.o_ns = 1500;
  host.O_ns_per_byte = 0.01;
  const goal::Schedule s = bounce(100'000, 4);
  for (std::uint32_t piece : {1u, 3u, 100u}) expect_same(streamed(s, linear(2), piece, host), whole(s, linear(2), host));
}

// The streamed runs' collectives, in chunks of 256 KiB.
constexpr std::uint64_t kChunk = 256 << 10;
using testing::one_node_plan;

TEST(StreamOnFabric, CollectivesAsTheWholeSchedule) {
  const goal::Schedule ring = collectives::generate(one_node_plan(collectives::Collective::Allreduce, "ring", 8, 8 << 20, kChunk));
  expect_same(streamed(ring, linear(8), 1u << 30), whole(ring, linear(8)));
  const goal::Schedule a2a = collectives::generate(one_node_plan(collectives::Collective::AllToAll, "direct", 6, 6 * (300 << 10), kChunk));
  expect_same(streamed(a2a, linear(6), 1u << 30), whole(a2a, linear(6)));
  // Two ranks per host: half the messages go through memory.
  const Placement packed = make_placement(PlacementMethod::Packed, 8, 4);
  expect_same(streamed(ring, packed, 1u << 30), whole(ring, packed));
}

TEST(StreamOnFabric, ScaleUpMessagesAsTheWholeSchedule) {
  PacketHostParams host;
  host.scale_up.hosts_per_server = 8;
  host.scale_up.bits_per_s = 100'000'000'000;
  host.scale_up.latency = SimTime::ps(2 * kLinkPs);
  host.scale_up.header_bytes = 64;
  const goal::Schedule ring = collectives::generate(one_node_plan(collectives::Collective::Allreduce, "ring", 8, 8 << 20, kChunk));
  expect_same(streamed(ring, linear(8), 1u << 30, host), whole(ring, linear(8), host));
  const goal::Schedule s = bounce(1 << 20, 3);
  expect_same(streamed(s, make_placement(PlacementMethod::Linear, 2, 8), 1, host),
              whole(s, make_placement(PlacementMethod::Linear, 2, 8), host));
}

TEST(StreamOnFabric, ADeadlockAndAnUnreceivedMessageAreReported) {
  goal::ScheduleBuilder b(3);
  for (goal::RankId r = 0; r < 2; ++r) {
    b.begin_rank(r);
    const auto recv = b.add(goal::Op::recv(100, 1 - r));
    const auto send = b.add(goal::Op::send(100, 1 - r));
    b.add_requires(send, recv);
    b.end_rank();
  }
  b.begin_rank(2);
  b.add(goal::Op::send(100, 0, 9));
  b.end_rank();
  const goal::Schedule s = b.finish();
  const SimulationRun r = streamed(s, linear(3), 1);
  EXPECT_FALSE(r.result.complete);
  EXPECT_EQ(r.result.ops_completed, 1u);  // rank 2's send, acknowledged
  ASSERT_EQ(r.result.blocked.size(), 4u);
  EXPECT_EQ(r.result.blocked[0], "rank 0 op 0 (recv 100 b from 1 tag 0 cpu 0 nic 0): posted; no matching message arrived");
  // The send's piece came once the receive was posted (an op of the newest piece was ready).
  EXPECT_EQ(r.result.blocked[1], "rank 0 op 1 (send 100 b to 1 tag 0 cpu 0 nic 0): waits for its prerequisites");
  ASSERT_EQ(r.result.unmatched.size(), 1u);
  EXPECT_EQ(r.result.unmatched[0], "rank 0: message from rank 2 tag 9 (100 bytes, eager) was never received");
}

TEST(StreamOnFabric, RefusesMoreRanksOnAHostThanAMessageHeaderNames) {
  const std::uint32_t n = net::kMaxRanksPerHost + 1;
  goal::ScheduleBuilder b(n);
  for (goal::RankId r = 0; r < n; ++r) {
    b.begin_rank(r);
    b.add(goal::Op::calc(1));
    b.end_rank();
  }
  const goal::Schedule s = b.finish();
  EXPECT_THROW(streamed(s, placement_from_hosts(std::vector<std::uint32_t>(n, 0), 2), 1), std::invalid_argument);
  // One fewer fits.
  const std::uint32_t fits = net::kMaxRanksPerHost;
  goal::ScheduleBuilder c(fits);
  for (goal::RankId r = 0; r < fits; ++r) {
    c.begin_rank(r);
    c.add(goal::Op::calc(1));
    c.end_rank();
  }
  EXPECT_TRUE(streamed(c.finish(), placement_from_hosts(std::vector<std::uint32_t>(fits, 0), 2), 1).result.complete);
}

}  // namespace
}  // namespace collsim::exec
