// A parallel run's promises: a host that computes before it talks to another rank's part of
// the fabric lets that rank run ahead, in windows as long as the compute instead of one
// lookahead each, with the same results as on one rank (two ranks as threads of this process).

#include <gtest/gtest.h>

#include "collsim/exec/compute_variation.hpp"
#include "collsim/exec/fabric_executor.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "exec/schedule_pieces.hpp"
#include "exec/servers_on_a_leaf.hpp"
#include "net/fabric_test_util.hpp"
#include "pdes/thread_transport.hpp"

namespace collsim::exec {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

// Two pipeline stages of two GPUs, each stage on its server: every GPU computes 1 ms,
// exchanges 1 MiB with its server-mate over NVLink, computes 1 ms more; the first stage then
// sends 1 MiB to its GPU of the second stage, which starts there. Three steps in a row.
goal::Schedule two_stages() {
  goal::ScheduleBuilder b(4);
  for (goal::RankId r = 0; r < 4; ++r) {
    b.begin_rank(r);
    const goal::RankId mate = r ^ 1u;
    const bool first = r < 2;
    goal::LocalOp last = 0;
    bool any = false;
    for (std::uint32_t step = 0; step < 3; ++step) {
      const std::uint32_t tag = 10 * step;
      goal::LocalOp start = 0;
      if (!first) {
        start = b.add(goal::Op::recv(kMiB, r - 2, tag + 3));
        if (any) b.add_requires(start, last);
      }
      const goal::LocalOp c1 = b.add(goal::Op::calc(1'000'000));
      if (!first || any) b.add_requires(c1, first ? last : start);
      const goal::LocalOp s = b.add(goal::Op::send(kMiB, mate, tag + 1));
      const goal::LocalOp v = b.add(goal::Op::recv(kMiB, mate, tag + 1));
      b.add_requires(s, c1);
      b.add_requires(v, c1);
      const goal::LocalOp c2 = b.add(goal::Op::calc(1'000'000));
      b.add_requires(c2, s);
      b.add_requires(c2, v);
      last = c2;
      if (first) {
        last = b.add(goal::Op::send(kMiB, r + 2, tag + 3));
        b.add_requires(last, c2);
      }
      any = true;
    }
    b.end_rank();
  }
  return b.finish();
}

const Placement kLinear = make_placement(PlacementMethod::Linear, 4, 4);

SimulationRun on_one_rank(const goal::Schedule& s, const PacketHostParams& host = {}) {
  const auto transport = pdes::make_local_transport();
  return run_on_fabric(testing::servers_on_a_leaf(2, 2), net::FabricParams{}, *transport, net::FabricOptions{}, s,
                       kLinear, host);
}

SimulationRun on_two_ranks(const goal::Schedule& s, const PacketHostParams& host = {}, std::uint32_t piece_ops = 0) {
  pdes::testing::ThreadRanks ranks(2);
  SimulationRun first;
  const topo::Topology t = testing::servers_on_a_leaf(2, 2);
  ranks.run([&](std::uint32_t r, pdes::Transport& transport) {
    SimulationRun run;
    if (piece_ops == 0) {
      run = run_on_fabric(t, net::FabricParams{}, transport, net::FabricOptions{}, s, kLinear, host);
    } else {
      testing::PiecesOf stream(s, piece_ops);
      run = run_stream_on_fabric(t, net::FabricParams{}, transport, net::FabricOptions{}, stream, kLinear, host);
    }
    if (r == 0) first = std::move(run);
  });
  return first;
}

TEST(ParallelPromises, ComputeBetweenMessagesMakesLongWindowsAndTheSameResult) {
  const goal::Schedule s = two_stages();
  const SimulationRun one = on_one_rank(s);
  const SimulationRun two = on_two_ranks(s);
  ASSERT_TRUE(one.result.complete);
  ASSERT_TRUE(two.result.complete);
  EXPECT_EQ(two.result.rank_finish, one.result.rank_finish);
  EXPECT_EQ(two.stats.events, one.stats.events);
  EXPECT_EQ(two.stats.ranks, 2u);
  // Each server on a rank of its own: only its NICs' 500 ns links are cut.
  EXPECT_EQ(two.stats.lookahead, SimTime::ns(500));
  EXPECT_GT(two.stats.remote_events, 0u);
  // Over 8 ms of simulated time, windows of one lookahead each would be 16,000; with the
  // promises there are about a hundred per pipeline message (its 256 packets cross in windows
  // of one lookahead: 42 us at 200 Gb/s) and a few between (322 in all when written).
  EXPECT_GT(one.result.makespan, SimTime::ms(8));
  EXPECT_LT(two.stats.windows, 1000u);
}

TEST(ParallelPromises, ComputeThatMayShrinkPromisesLessAndStillGivesTheSameResult) {
  // Noise on every calc may make one shorter than its schedule says: the promise counts it as
  // nothing, and the run takes more windows, with the same results.
  const goal::Schedule s = two_stages();
  ComputeVariationSpec spec;
  spec.op_noise = FactorDistribution{Spread::Normal, 0.2};
  PacketHostParams host;
  host.compute = std::make_shared<const ComputeVariation>(spec, 4);
  const SimulationRun one = on_one_rank(s, host);
  const SimulationRun two = on_two_ranks(s, host);
  ASSERT_TRUE(two.result.complete);
  EXPECT_EQ(two.result.rank_finish, one.result.rank_finish);
  EXPECT_GT(two.stats.windows, on_two_ranks(s).stats.windows);
}

TEST(ParallelPromises, AStreamWhoseLaterPeersAreUnknownGivesTheSameResult) {
  const goal::Schedule s = two_stages();
  const SimulationRun one = on_one_rank(s);
  const SimulationRun two = on_two_ranks(s, {}, 3);
  ASSERT_TRUE(two.result.complete);
  EXPECT_EQ(two.result.rank_finish, one.result.rank_finish);
  EXPECT_EQ(two.stats.events, one.stats.events);
}

TEST(ParallelPromises, ScaleUpMessagesAcrossTheCutKeepThePromises) {
  // --scale-up message on one "server" of four hosts on a switch, split over two ranks: a
  // rendezvous's data goes as a notice after a delay, which the promise counts as a send still
  // to come. Each rank computes, then sends 1 MiB to each other rank at once (so that its
  // port queues the notices), three times.
  goal::ScheduleBuilder b(4);
  for (goal::RankId r = 0; r < 4; ++r) {
    b.begin_rank(r);
    std::vector<goal::LocalOp> last;
    for (std::uint32_t step = 0; step < 3; ++step) {
      const goal::LocalOp c = b.add(goal::Op::calc(100'000));
      for (const goal::LocalOp l : last) b.add_requires(c, l);
      last.clear();
      for (goal::RankId k = 1; k < 4; ++k) {
        const goal::LocalOp send = b.add(goal::Op::send(kMiB, (r + k) % 4, step));
        const goal::LocalOp recv = b.add(goal::Op::recv(kMiB, (r + 4 - k) % 4, step));
        b.add_requires(send, c);
        b.add_requires(recv, c);
        last.push_back(send);
        last.push_back(recv);
      }
    }
    b.end_rank();
  }
  const goal::Schedule s = b.finish();
  const topo::Topology t = net::testing::star(4, Bandwidth::gbps(100), SimTime::ns(1000));
  PacketHostParams host;
  host.scale_up.hosts_per_server = 4;
  host.scale_up.bits_per_s = 100'000'000'000;
  host.scale_up.latency = SimTime::us(2);
  host.scale_up.header_bytes = 64;
  const Placement placement = make_placement(PlacementMethod::Linear, 4, 4);
  const auto local = pdes::make_local_transport();
  const SimulationRun one = run_on_fabric(t, net::FabricParams{}, *local, net::FabricOptions{}, s, placement, host);
  pdes::testing::ThreadRanks ranks(2);
  SimulationRun two;
  ranks.run([&](std::uint32_t r, pdes::Transport& transport) {
    SimulationRun run = run_on_fabric(t, net::FabricParams{}, transport, net::FabricOptions{}, s, placement, host);
    if (r == 0) two = std::move(run);
  });
  ASSERT_TRUE(one.result.complete);
  ASSERT_TRUE(two.result.complete);
  EXPECT_EQ(two.result.rank_finish, one.result.rank_finish);
  EXPECT_GT(two.stats.remote_events, 0u);
}

}  // namespace
}  // namespace collsim::exec
