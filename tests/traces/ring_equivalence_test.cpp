// ASTRA-sim's 8-rank ring allreduce unrolled into its own sends, receives and 7 us reductions
// takes the same simulated time as our ring allreduce of the same 1 MiB on the same fabric,
// once both do the same work:
//   - messages: the trace's 131072-byte messages are the data itself (its XML says LL128, but
//     the sizes carry no LL128 flags), so our ring runs Simple (wire bytes = data bytes) in one
//     channel, one 128 KiB message per block;
//   - reductions: the trace's COMP nodes take 7 us each; ours cost bytes / reduce bandwidth, so
//     the bandwidth is set to 131072 B / 7 us;
//   - latencies: the trace has none of NCCL's launch and per-step latency; ours are set to 0.
// A receive waits for its rank's previous send only to start (see chakra_program.cpp); the
// last test shows what waiting for the send to finish would do.

#include <gtest/gtest.h>

#include <cmath>

#include "collsim/collectives/generate.hpp"
#include "collsim/exec/fabric_executor.hpp"
#include "collsim/pdes/transport.hpp"
#include "collsim/traces/replay_lowering.hpp"
#include "collsim/traces/trace_format.hpp"
#include "net/fabric_test_util.hpp"

namespace collsim::traces {
namespace {

const std::string kRing = std::string(COLLSIM_TEST_DATA) + "/traces/chakra/custom_ring_allreduce_8npus_1MB";

exec::RunResult run(const goal::Schedule& s, std::uint64_t eager_limit) {
  auto transport = pdes::make_local_transport();
  exec::PacketHostParams host;
  host.eager_limit_bytes = eager_limit;
  // 8 hosts on one switch, 100 Gb/s links of 1 us.
  const topo::Topology t = net::testing::star(8, Bandwidth::gbps(100), SimTime::ns(1000));
  return exec::run_on_fabric(t, net::FabricParams{}, *transport, net::FabricOptions{}, s,
                             exec::make_placement(exec::PlacementMethod::Linear, 8, 8), host)
      .result;
}

goal::Schedule our_ring() {
  collectives::CollectiveSpec spec;
  spec.collective = collectives::Collective::Allreduce;
  spec.algorithm = "ring";
  spec.num_ranks = 8;
  spec.bytes = 1 << 20;
  spec.protocol = collectives::Protocol::Simple;
  spec.channels = 1;
  spec.launch = SimTime::zero();
  spec.step = SimTime::zero();
  // ceil(131072 / rate) must be 7000: a hair above 131072/7000 B/ns keeps the quotient below 7000.
  spec.reduce_bytes_per_ns = 131072.0 / 7000.0 * (1 + 1e-9);
  spec.first_cpu = kCommunicationCpu;
  return collectives::generate(spec);
}

constexpr std::uint64_t kEager = std::uint64_t{1} << 40;
constexpr std::uint64_t kRendezvous = 65535;  // the executor's default: 128 KiB goes by rendezvous

TEST(RingEquivalence, UnrolledTraceAndOurRingTakeTheSameTime) {
  const goal::Schedule trace = lower_replay(read_traces({kRing})).schedule;
  const goal::Schedule ring = our_ring();
  EXPECT_EQ(trace.num_ops(), ring.num_ops());  // 8 ranks x (14 sends + 14 recvs + 7 calcs)
  for (std::uint64_t eager : {kEager, kRendezvous}) {
    const exec::RunResult a = run(trace, eager);
    const exec::RunResult b = run(ring, eager);
    ASSERT_TRUE(a.complete);
    ASSERT_TRUE(b.complete);
    const std::int64_t a_ps = a.makespan.picoseconds(), b_ps = b.makespan.picoseconds();
    EXPECT_LE(std::abs(static_cast<double>(a_ps - b_ps)), 0.01 * static_cast<double>(b_ps))
        << "trace " << a_ps << " ps, ring " << b_ps << " ps, eager limit " << eager;
  }
}

TEST(RingEquivalence, EagerTimeIsWithinTheClosedFormBounds) {
  // One 131072-byte message one hop through the switch alone (tests/exec/fabric_executor_test.cpp):
  // 2 us of links + (first packet 4160 + all packets 131072 + 32 x 64 wire bytes) x 80 ps
  // = 2,000,000 + 10,982,400 ps. The ring is 14 such messages in sequence plus 7 reductions of
  // 7 us; the last send finishes when its ACK is back (2 us + 2 x 64 B x 80 ps = 2,010,240 ps);
  // each of the 6 all-gather sends that starts the instant a message is delivered queues behind
  // that message's 64-byte ACK (5,120 ps).
  const std::int64_t message = 2'000'000 + (4160 + 131072 + 32 * 64) * 80;
  const std::int64_t alone = 14 * message + 7 * 7'000'000 + 2'010'240 + 6 * 64 * 80;
  // In a ring every host also receives while it sends, and the transport ACKs every data packet
  // ahead of data: at most one 64-byte ACK (5,120 ps) per packet on the host's link and one on
  // the switch's link to the next host, for each of the 32 packets of the 14 messages.
  const std::int64_t worst = alone + 14 * 32 * 2 * 64 * 80;
  const std::int64_t t = run(lower_replay(read_traces({kRing})).schedule, kEager).makespan.picoseconds();
  EXPECT_GE(t, alone);
  EXPECT_LE(t, worst);
}

TEST(RingEquivalence, ReceivesWaitingForTheirSendToFinishDeadlockByRendezvous) {
  ReplayProgram p = read_traces({kRing});
  for (auto& tasks : p.ranks)
    for (ReplayTask& t : tasks) {
      t.after.insert(t.after.end(), t.after_start.begin(), t.after_start.end());
      t.after_start.clear();
    }
  const goal::Schedule strict = lower_replay(p).schedule;
  // Every rank's first send waits for a receive that waits for that send: nothing moves.
  EXPECT_FALSE(run(strict, kRendezvous).complete);
  // Eager, each of the 14 steps also waits for the ACK of the rank's own send to come back
  // (2 us of links once its data is in): far more than the 1 % the comparison allows.
  const std::int64_t relaxed = run(lower_replay(read_traces({kRing})).schedule, kEager).makespan.picoseconds();
  EXPECT_GT(run(strict, kEager).makespan.picoseconds(), relaxed + 14 * 1'000'000);
}

}  // namespace
}  // namespace collsim::traces
