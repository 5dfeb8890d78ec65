// Every collective algorithm on an ideal network takes the time its alpha-beta formula
// predicts. The network is one big switch with 100 Gb/s links of 1 us, buffers so large that
// nothing is paused or dropped, no ECN and no congestion control; the collective has no
// launch or step latency and free reductions, the hosts no o or O. The transport acknowledges
// only the last packet of a message (ack_every huge), so that ACKs cost an alpha-like term per
// message rather than a share of the bandwidth (RingAllreducePaysForPerPacketAcks shows that
// share).
//
// The terms, derived from the fabric's closed form (tests/net/single_flow_test.cpp):
//   beta   80 ps per wire byte; a message of s bytes is wire(s) = s + 64 ceil(s/4096) bytes on
//          the wire (4096-byte packets with 64 bytes of header), so T(s) = wire(s) x 80 ps.
//   alpha  what a message costs beyond T(s) when the link would otherwise idle: two link
//          latencies (host - switch - host) and the store-and-forward of its first packet at
//          the switch, 2 us + 4160 x 80 ps = 2.3328 us.
//   ack    a send finishes when its ACK is back: 2 us + 2 x 64 x 80 ps after the last byte
//          arrived. It ends every formula (the last send's ACK) and gates sends that wait for
//          an earlier send to finish (max_in_flight).
//   a      the 64-byte ACK a host sends when a message arrives goes before anything it sends
//          next (control packets first): a send that the arrival made ready starts 64 x 80 ps
//          later, and a stream of sends loses 64 x 80 ps per message it receives meanwhile.
// Chunking (pipelining) is spelled out per algorithm: p is the number of pipeline steps, each
// a message of the plan's chunk or less. Messages of one connection (rank, peer, tag) leave in
// order, so a connection's window of max_in_flight messages keeps its link busy without the
// messages slowing each other down.
//
// The simulated times are within 0.06% of the formulas (ring, ring allgather/reduce-scatter,
// the log-round ones, hierarchical, Rabenseifner, reduce, pairwise, sendrecv and the barrier
// to the picosecond); the tests allow 1%.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "collsim/collectives/algorithm.hpp"
#include "collsim/collectives/generate.hpp"
#include "collsim/exec/fabric_executor.hpp"
#include "collsim/pdes/transport.hpp"
#include "net/fabric_test_util.hpp"

namespace collsim::exec {
namespace {

using net::testing::kPsPerByte;
using net::testing::kLinkPs;
constexpr std::uint64_t kMiB = 1 << 20;

std::int64_t wire(std::uint64_t bytes) {
  const std::uint64_t packets = bytes == 0 ? 1 : (bytes + 4095) / 4096;
  return static_cast<std::int64_t>(bytes + 64 * packets);
}
std::int64_t T(std::uint64_t bytes) { return wire(bytes) * kPsPerByte; }
constexpr std::int64_t kAlpha = 2 * kLinkPs + 4160 * kPsPerByte;
constexpr std::int64_t kAck = 2 * kLinkPs + 2 * 64 * kPsPerByte;
constexpr std::int64_t kA = 64 * kPsPerByte;

struct Request {
  collectives::Collective collective;
  std::string algorithm;
  std::uint32_t n = 8;
  std::uint64_t bytes = 64 * kMiB;
  std::uint64_t chunk = 0;  // 0: the protocol's (2 MiB for Simple) or the algorithm's (512 KiB for chains)
  std::uint32_t in_flight = 0;
  std::uint32_t ranks_per_node = 1;
  std::uint32_t channels = 1;
  std::uint32_t nics = 1;  // CollNet's rails
};

net::FabricParams ideal_fabric(std::uint32_t ack_every) {
  net::FabricParams fp;
  fp.ecn = false;
  fp.pfc_xoff_bytes = std::uint64_t{1} << 40;
  fp.pfc_xon_bytes = std::uint64_t{1} << 39;
  fp.ack_every = ack_every;
  return fp;
}

std::int64_t simulate(const Request& q, std::uint32_t ack_every = 1u << 30) {
  collectives::CollectiveSpec spec;
  spec.collective = q.collective;
  spec.algorithm = q.algorithm;
  spec.num_ranks = q.n;
  spec.bytes = q.bytes;
  spec.chunk_bytes = q.chunk;
  spec.max_in_flight = q.in_flight;
  spec.ranks_per_node = q.ranks_per_node;
  spec.nics = q.nics;
  spec.channels = q.channels;
  spec.launch = SimTime::zero();
  spec.step = SimTime::zero();
  spec.reduce_bytes_per_ns = 0;
  const collectives::Plan plan = collectives::make_plan(spec);
  const goal::Schedule s = collectives::generate(plan);
  // The members, then any helper (an in-network reduction) on the same switch.
  const std::uint32_t hosts = plan.num_ranks;
  topo::SwitchParams sw;
  sw.buffer_bytes = std::uint64_t{1} << 40;
  const topo::Topology star = net::testing::star(hosts, Bandwidth::gbps(100), SimTime::ns(1000), sw);
  PacketHostParams host;
  host.eager_limit_bytes = std::uint64_t{1} << 40;  // no rendezvous round trips
  auto transport = pdes::make_local_transport();
  const RunResult r = run_on_fabric(star, ideal_fabric(ack_every), *transport, net::FabricOptions{}, s,
                                    make_placement(PlacementMethod::Linear, hosts, hosts), host)
                          .result;
  EXPECT_TRUE(r.complete) << q.algorithm;
  return r.makespan.picoseconds();
}

void expect_within_1_percent(const Request& q, std::int64_t formula_ps) {
  const std::int64_t measured = simulate(q);
  EXPECT_NEAR(static_cast<double>(measured), static_cast<double>(formula_ps), 0.01 * static_cast<double>(formula_ps))
      << collectives::to_string(q.collective) << " " << q.algorithm << " n=" << q.n << ": simulated " << measured
      << " ps, formula " << formula_ps << " ps";
}

// --- allreduce ---------------------------------------------------------------------------

// Ring: p = ceil(S / (n C)) pipeline steps, each 2(n-1) rounds of one message of m = S/(n p)
// to the next rank; a round's send waits for the previous round's receive, so every one of
// the R = 2(n-1)p rounds costs alpha + T(m) + a, except that step s+1's first message follows
// step s's last on the same connection without waiting for data (p-1 alphas saved).
std::int64_t ring_rounds(std::int64_t rounds, std::int64_t steps, std::uint64_t m) {
  return rounds * T(m) + (rounds - (steps - 1)) * kAlpha + (rounds - 1) * kA + kAck;
}

TEST(AlphaBeta, AllreduceRing) {
  // n = 8: p = 4 steps of 2 MiB, R = 56. n = 16: p = 2 steps of 2 MiB, R = 60.
  expect_within_1_percent({collectives::Collective::Allreduce, "ring", 8}, ring_rounds(56, 4, 2 * kMiB));
  expect_within_1_percent({collectives::Collective::Allreduce, "ring", 16}, ring_rounds(60, 2, 2 * kMiB));
}

// Double binary tree on one channel pair (2 channels, one tree each): each tree carries S/2
// in chunks of C = 1 MiB (given; NCCL's own is one 512 KiB step). Every rank but the two roots
// is interior in one tree (receives from two children and the parent, sends to the parent and
// two children) and a leaf in the other, so its link carries 4 chunks per pair of chunks:
// 2 T(S) in all. The first chunk climbs d - 1 = 2 levels before the busiest links are all
// busy, and the last one descends 2 levels after: 4 chunk steps. The window is 16 here: with
// fewer, the three senders of an interior rank pile their chunks into its switch port (no
// congestion control, deep buffers), the unacknowledged chunks per connection no longer cover
// the queueing delay, and leaves stall. With 16 ranks the fill is about 9 chunk steps rather
// than 6, and smaller chunks add such stalls (1.3% with 512 KiB, ~3% with 256 KiB): the
// formula is made for this case.
TEST(AlphaBeta, AllreduceDoubleBinaryTree) {
  Request q{collectives::Collective::Allreduce, "double_binary_tree", 8};
  q.channels = 2;
  q.chunk = kMiB;
  q.in_flight = 16;
  expect_within_1_percent(q, 2 * T(64 * kMiB) + 4 * T(kMiB));
}

// Recursive doubling: p = S/C = 32 instances of 2 MiB, each log2(n) = 3 rounds exchanging the
// whole chunk with rank ^ 2^k. The rounds use three different connections, so instances
// overlap and the link is busy from the first alpha to the end: alpha + 3 T(S) + ack.
TEST(AlphaBeta, AllreduceRecursiveDoubling) {
  expect_within_1_percent({collectives::Collective::Allreduce, "recursive_doubling", 8}, kAlpha + 3 * T(64 * kMiB) + kAck);
}

// Rabenseifner: p = 32 instances of C = 2 MiB, each 2 log2(n) = 6 rounds sending C/2, C/4,
// C/8 (halving) then C/8, C/4, C/2 (doubling). The first and last round use the same
// connection (rank ^ 4), so instance s+1's first message follows instance s's last without a
// wait: R = 192 rounds, p - 1 alphas saved.
TEST(AlphaBeta, AllreduceRabenseifner) {
  const std::int64_t per_instance = 2 * (T(kMiB) + T(kMiB / 2) + T(kMiB / 4));
  expect_within_1_percent({collectives::Collective::Allreduce, "rabenseifner", 8},
                          32 * per_instance + (192 - 31) * kAlpha + 191 * kA + kAck);
}

// Hierarchical, 2 nodes of 4: pieces of S/4 in 2 MiB steps, so p = 8 instances of 8 MiB. Each:
// ring reduce-scatter in the node (3 rounds of 2 MiB), ring allreduce across the 2 nodes
// (1 + 1 rounds of 1 MiB), ring allgather in the node (3 rounds of 2 MiB): 8 rounds, 14 MiB.
// The in-node connection carries the last round of instance s and the first of s+1 back to
// back: R = 64 rounds, 7 alphas saved.
TEST(AlphaBeta, AllreduceHierarchical) {
  Request q{collectives::Collective::Allreduce, "hierarchical", 8};
  q.ranks_per_node = 4;
  expect_within_1_percent(q, 8 * T(14 * kMiB) + (64 - 7) * kAlpha + 63 * kA + kAck);
}

// --- allgather and reduce-scatter (S = the gathered size, n blocks of S/n) ---------------------

// Ring: p = ceil(S / (n C)) = 4 steps of 2 MiB messages, n - 1 = 7 rounds each: R = 28.
TEST(AlphaBeta, AllgatherRing) {
  expect_within_1_percent({collectives::Collective::Allgather, "ring", 8}, ring_rounds(28, 4, 2 * kMiB));
}
TEST(AlphaBeta, ReduceScatterRing) {
  expect_within_1_percent({collectives::Collective::ReduceScatter, "ring", 8}, ring_rounds(28, 4, 2 * kMiB));
}

// Not pipelined: log2(n) = 3 rounds of 1, 2 and 4 blocks (recursive doubling, Bruck) or 4, 2
// and 1 (recursive halving), one message each, every round waiting for the one before:
// 3 alphas and T(7 S/8) = T(56 MiB) (every message a whole number of packets).
std::int64_t log_rounds() { return 3 * kAlpha + T(56 * kMiB) + 2 * kA + kAck; }
TEST(AlphaBeta, AllgatherRecursiveDoubling) {
  expect_within_1_percent({collectives::Collective::Allgather, "recursive_doubling", 8}, log_rounds());
}
TEST(AlphaBeta, AllgatherBruck) { expect_within_1_percent({collectives::Collective::Allgather, "bruck", 8}, log_rounds()); }
TEST(AlphaBeta, ReduceScatterRecursiveHalving) {
  expect_within_1_percent({collectives::Collective::ReduceScatter, "recursive_halving", 8}, log_rounds());
}

// --- rooted ------------------------------------------------------------------------------

// Binomial broadcast from rank 0: p = 32 chunks of C = 2 MiB. The root sends every chunk to
// its log2(n) = 3 children (4, 2, 1), one connection each, taking turns: 3 T(S). Rank 4
// forwards each chunk to 6 and 5 (2 T(C), less than the 3 T(C) between chunks), rank 6 to 7
// (T(C)), so the last chunk reaches 7 after 3 T(S) + 2 T(C) + T(C) and an alpha per hop.
TEST(AlphaBeta, BroadcastBinomialTree) {
  expect_within_1_percent({collectives::Collective::Broadcast, "binomial_tree", 8},
                          3 * T(64 * kMiB) + 3 * T(2 * kMiB) + 3 * kAlpha + kAck);
}

// Pipelined chain 0 -> 1 -> ... -> 7: p = 128 chunks of m = 512 KiB (NCCL's broadcast chunk
// is one step of its buffer, a quarter of a ring's 2 MiB). Chunk k leaves rank v as soon as
// it arrived and the link finished chunk k-1, so the last chunk arrives after
// (n - 1 + p - 1) = 134 chunk steps and n - 1 alphas (the latencies of the hops, not of the
// chunks, which stream back to back); every chunk step also carries the ACK of a chunk.
TEST(AlphaBeta, BroadcastPipelinedChain) {
  expect_within_1_percent({collectives::Collective::Broadcast, "pipelined_chain", 8},
                          7 * kAlpha + 134 * (T(512 << 10) + kA) + kAck);
}
// NCCL's ring reduce, the chain 1 -> 2 -> ... -> 7 -> 0 with free reductions: the broadcast
// chain's formula, 128 chunks of 512 KiB over 7 hops.
TEST(AlphaBeta, ReducePipelinedChain) {
  expect_within_1_percent({collectives::Collective::Reduce, "pipelined_chain", 8},
                          7 * kAlpha + 134 * (T(512 << 10) + kA) + kAck);
}
TEST(AlphaBeta, BroadcastPipelinedChainOf16SmallChunks) {
  // p = 256 chunks of 256 KiB: 15 + 255 = 270 chunk steps.
  Request q{collectives::Collective::Broadcast, "pipelined_chain", 16};
  q.chunk = 256 << 10;
  expect_within_1_percent(q, 15 * kAlpha + 270 * (T(256 << 10) + kA) + kAck);
}

// Binomial reduce to rank 0: the mirror image of the broadcast, but the root's port is busy
// from the first alpha on (its leaf child 1 sends at once) until it has received 3 S.
TEST(AlphaBeta, ReduceBinomialTree) {
  expect_within_1_percent({collectives::Collective::Reduce, "binomial_tree", 8}, kAlpha + 3 * T(64 * kMiB) + kAck);
}

// --- alltoall (S per rank, n blocks of S/n = 8 MiB) --------------------------------------------

// Direct: all 7 peers at once, 4 chunks each; every port busy from the first alpha until
// 7 blocks have passed (plus at most an a per message received).
TEST(AlphaBeta, AlltoallDirect) {
  expect_within_1_percent({collectives::Collective::AllToAll, "direct", 8}, kAlpha + T(56 * kMiB) + kAck);
}

// Pairwise: 7 steps, each 4 chunks of 2 MiB to and from rank ^ k back to back, and each
// waiting until every op of the previous step finished (its last send acknowledged).
TEST(AlphaBeta, AlltoallPairwise) {
  expect_within_1_percent({collectives::Collective::AllToAll, "pairwise", 8}, 7 * (kAlpha + T(8 * kMiB) + 3 * kA + kAck));
}

// Bruck: chunks of 4 blocks x 512 KiB = 2 MiB (16 pipeline steps), 3 rounds each to rank +
// 2^k; each round sends the 4 blocks whose offset has bit k set, so a rank sends
// 3 x 16 x 2 MiB = 96 MiB on three connections that keep its link busy.
TEST(AlphaBeta, AlltoallBruck) {
  expect_within_1_percent({collectives::Collective::AllToAll, "bruck", 8}, kAlpha + T(96 * kMiB) + 48 * kA + kAck);
}

// --- barrier and sendrecv ----------------------------------------------------------------

// Dissemination: ceil(log2 n) rounds of a header-only packet (64 wire bytes): 2 us and two
// serialisations each (= kAck), every round's send behind the ACK of the previous round's
// message; the last send's ACK ends it. Exact.
TEST(AlphaBeta, BarrierDisseminationIsExact) {
  const Request q8{collectives::Collective::Barrier, "dissemination", 8, 0};
  const Request q16{collectives::Collective::Barrier, "dissemination", 16, 0};
  EXPECT_EQ(simulate(q8), 3 * (kAck + kA) - kA + kAck);
  EXPECT_EQ(simulate(q16), 4 * (kAck + kA) - kA + kAck);
}

// Sendrecv: every rank streams S = 64 MiB to the next in 32 chunks of 2 MiB on one connection.
TEST(AlphaBeta, SendrecvDirect) {
  expect_within_1_percent({collectives::Collective::SendRecv, "direct", 8}, kAlpha + T(64 * kMiB) + 31 * kA + kAck);
}

// --- in-network reductions ------------------------------------------------------------

// NVLS: the NVSwitch is a helper host on the switch. Each of the n members streams S to it in
// p chunks of C = 128 KiB and receives S back; the helper's link carries n T(S) in each
// direction, plus an ACK (a) per message it receives or sends, and is the bottleneck. Once the
// last chunk has arrived from every member, its n sums leave: n T(C) more; then the last ACK.
std::int64_t through_helper(std::int64_t chunks_per_step, std::int64_t steps, std::uint64_t s, std::uint64_t c) {
  return kAlpha + chunks_per_step * (T(s) + T(c) + steps * kA) + kAck;
}

TEST(AlphaBeta, AllreduceNvls) {
  Request q{collectives::Collective::Allreduce, "nvls", 8};
  q.ranks_per_node = 8;
  q.in_flight = 8;
  expect_within_1_percent(q, through_helper(8, 512, 64 * kMiB, 128 * 1024));
}

// NVLSTree over 2 nodes of n = 4: each node's switch also sends its node's sum to the other
// and receives the other's, so its link carries n + 1 chunks per step each way.
TEST(AlphaBeta, AllreduceNvlsTree) {
  Request q{collectives::Collective::Allreduce, "nvls_tree", 8};
  q.ranks_per_node = 4;
  q.in_flight = 8;
  expect_within_1_percent(q, through_helper(5, 512, 64 * kMiB, 128 * 1024));
}

// CollNetChain over 2 nodes of 4, one rail: every GPU but the tail sends each chunk up and
// down its chain, and the rail's aggregation receives and returns each node's sum, so the
// busiest links carry 2 T(S) each way, plus an ACK per message received. A chunk climbs 3
// GPUs and the aggregation and comes back down: 8 chunk times to fill and drain. The window
// must cover that round trip (8 hops of alpha + T(C), and queueing): with 8 chunks in flight
// the tail waits for its window and the run is 13% slower, with 16 it is not.
TEST(AlphaBeta, AllreduceCollNetChain) {
  Request q{collectives::Collective::Allreduce, "collnet_chain", 8};
  q.ranks_per_node = 4;
  q.chunk = 64 * 1024;
  q.in_flight = 16;
  expect_within_1_percent(q, kAlpha + 2 * (T(64 * kMiB) + 1024 * kA) + 8 * T(64 * 1024) + kAck);
}

// CollNetDirect over 2 nodes of 4 with a rail per GPU: each GPU sends 3 of its 4 shares to
// the others, its own reduced share to its rail and the total share to the 3 others: 7/4 of S
// each way, plus an ACK per message received (7 per chunk).
TEST(AlphaBeta, AllreduceCollNetDirect) {
  Request q{collectives::Collective::Allreduce, "collnet_direct", 8};
  q.ranks_per_node = 4;
  q.nics = 4;
  q.chunk = 256 * 1024;
  q.in_flight = 8;
  expect_within_1_percent(q, kAlpha + 7 * T(16 * kMiB) + 7 * 256 * kA + 4 * T(64 * 1024) + kAck);
}

// Every registered algorithm has a formula above.
TEST(AlphaBeta, CoversEveryAlgorithm) { EXPECT_EQ(collectives::all_algorithms().size(), 23u); }

// With the default ACK per packet, a rank that sends and receives at full rate also sends an
// ACK (64 wire bytes) per packet it receives: its link carries 4160 + 64 bytes per data packet,
// and the ring's bandwidth term grows by 64/4160 = 1.5%, more than the 1% the other tests
// allow. (Rounds 2 ... R lose no extra a: the ACK of a message's last packet is among them.)
TEST(AlphaBeta, RingAllreducePaysForPerPacketAcks) {
  // 32 MiB: p = 2 steps of 2 MiB (512 packets), R = 28 rounds, one alpha saved.
  const Request q{collectives::Collective::Allreduce, "ring", 8, 32 * kMiB};
  const std::int64_t packets = 28 * 512;
  const std::int64_t formula = packets * (4160 + 64) * kPsPerByte + 27 * kAlpha + kAck;
  const std::int64_t measured = simulate(q, 1);
  EXPECT_NEAR(static_cast<double>(measured), static_cast<double>(formula), 0.001 * static_cast<double>(formula));
}

}  // namespace
}  // namespace collsim::exec
