// A binomial broadcast of one packet on an idle k=4 fat tree, against times derived by hand.
//
// The fat tree has 4 pods of 2 edge and 2 aggregation switches, 4 core switches, 16 hosts, two
// per edge switch: host h sits in pod h/4 under edge switch h/2. All links are 100 Gb/s and
// 1 us, switches forward with no latency once a packet has fully arrived (store and forward).
// A packet of w wire bytes takes P = 80w ps to serialise on every link, so it crosses
//   2 links (same edge switch: host-edge-host)                         in 2 (P + L),
//   4 links (same pod: host-edge-agg-edge-host)                        in 4 (P + L),
//   6 links (other pod: host-edge-agg-core-agg-edge-host)              in 6 (P + L),
// whichever equal-cost path ECMP picks. Nothing queues behind anything else: a host's packets
// leave back to back, so each later link sees them at least P apart, and no two hosts' traffic
// meets on a link at the same time (checked below by the exact times).
//
// MPICH's binomial tree from root 0 (relative ranks = ranks): 0 sends to 8, 4, 2, 1; 8 to 12,
// 10, 9; 4 to 6, 5; 2 to 3; 12 to 14, 13; 10 to 11; 6 to 7; 14 to 15. A host that receives
// first sends the 64-byte ACK of the packet (a = 64 x 80 ps), then its children's packets, the
// k-th (from 0) leaving k P later. So with R(x) the time x receives:
//   R(8)  = 6(P+L)                      R(4)  = P + 6(P+L)
//   R(12) = R(8) + a + 6(P+L)           R(14) = R(12) + a + 4(P+L)
//   R(15) = R(14) + a + 2(P+L) = 18(P+L) + 3a, the last receive.
// Rank 14's send finishes when the ACK from 15 is back (2 links of a + L): the makespan is
// R(15) + 2(a + L) = 18 P + 20 L + 5 a.

#include <gtest/gtest.h>

#include "collsim/collectives/generate.hpp"
#include "collsim/exec/fabric_executor.hpp"
#include "collsim/pdes/transport.hpp"
#include "collsim/topo/generators.hpp"
#include "net/fabric_test_util.hpp"

namespace collsim::exec {
namespace {

using net::testing::kPsPerByte;
constexpr std::int64_t L = 1'000'000;
constexpr std::int64_t a = 64 * kPsPerByte;

RunResult broadcast_on_fat_tree(std::uint64_t bytes) {
  topo::FatTreeParams ft;
  ft.k = 4;
  ft.link = {Bandwidth::gbps(100), SimTime::us(1)};
  const topo::Topology t = topo::make_fat_tree(ft);
  collectives::CollectiveSpec spec;
  spec.collective = collectives::Collective::Broadcast;
  spec.algorithm = "binomial_tree";
  spec.num_ranks = 16;
  spec.bytes = bytes;
  spec.launch = SimTime::zero();
  spec.step = SimTime::zero();
  const goal::Schedule s = collectives::generate(collectives::make_plan(spec));
  auto transport = pdes::make_local_transport();
  FabricRunOptions options;
  options.record_op_times = true;
  return run_on_fabric(t, net::FabricParams{}, *transport, net::FabricOptions{}, s,
                       make_placement(PlacementMethod::Linear, 16, 16), PacketHostParams{}, options)
      .result;
}

// When rank r's receive (its only receive; the root has none) finished, in ps.
std::int64_t received(const RunResult& r, goal::RankId rank) {
  for (const OpTime& t : r.op_times)
    if (t.rank == rank && t.op == 0) return picoseconds_or_never(t.end);
  return -1;
}

TEST(FatTreeBroadcast, OnePacketFollowsTheHopsOfTheBinomialTree) {
  const RunResult r = broadcast_on_fat_tree(1000);
  ASSERT_TRUE(r.complete);
  const std::int64_t P = (1000 + 64) * kPsPerByte;
  const std::int64_t hop = P + L;
  const std::int64_t r8 = 6 * hop, r4 = P + 6 * hop, r2 = 2 * P + 4 * hop, r1 = 3 * P + 2 * hop;
  EXPECT_EQ(received(r, 8), r8);
  EXPECT_EQ(received(r, 4), r4);
  EXPECT_EQ(received(r, 2), r2);
  EXPECT_EQ(received(r, 1), r1);
  const std::int64_t r12 = r8 + a + 6 * hop, r10 = r8 + a + P + 4 * hop, r9 = r8 + a + 2 * P + 2 * hop;
  EXPECT_EQ(received(r, 12), r12);
  EXPECT_EQ(received(r, 10), r10);
  EXPECT_EQ(received(r, 9), r9);
  EXPECT_EQ(received(r, 6), r4 + a + 4 * hop);
  EXPECT_EQ(received(r, 5), r4 + a + P + 2 * hop);
  EXPECT_EQ(received(r, 3), r2 + a + 2 * hop);
  const std::int64_t r14 = r12 + a + 4 * hop;
  EXPECT_EQ(received(r, 14), r14);
  EXPECT_EQ(received(r, 13), r12 + a + P + 2 * hop);
  EXPECT_EQ(received(r, 11), r10 + a + 2 * hop);
  EXPECT_EQ(received(r, 7), r4 + a + 4 * hop + a + 2 * hop);
  const std::int64_t r15 = r14 + a + 2 * hop;
  EXPECT_EQ(received(r, 15), 18 * hop + 3 * a);
  EXPECT_EQ(r15, 18 * hop + 3 * a);
  EXPECT_EQ(r.makespan, SimTime::ps(18 * P + 20 * L + 5 * a));
  EXPECT_EQ(r.makespan, SimTime::ps(21'557'760));
}

}  // namespace
}  // namespace collsim::exec
