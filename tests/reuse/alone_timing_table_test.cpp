// Collectives timed alone: a member's stand-in (the barrier, then its time after the barrier)
// ends where the member ended alone, as packets and as flows; a late member holds the others
// back by its lateness; a server's NVLink island (in the LogGOPS model, a node) times a
// collective as the whole cluster does; each distinct collective is simulated once.

#include <gtest/gtest.h>

#include <algorithm>

#include "collsim/collectives/generate.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/reuse/alone_timing_table.hpp"
#include "exec/one_node_plan.hpp"
#include "exec/servers_on_a_leaf.hpp"

namespace collsim::reuse {
namespace {

constexpr std::int64_t kHalfNs = 500;  // the stand-in's calc is rounded to the nanosecond

struct Cluster {
  topo::Topology topology = exec::testing::servers_on_a_leaf(1, 8);
  exec::Placement placement = exec::make_placement(exec::PlacementMethod::Linear, 8, 8);
  exec::NetworkSetup setup(net::LinkModel model) const {
    exec::NetworkSetup s;
    s.topology = &topology;
    s.placement = &placement;
    s.options.fidelity = net::uniform_fidelity(model);
    return s;
  }
};

collectives::Plan barrier_over(const collectives::Plan& whole) {
  collectives::CollectiveSpec spec;
  spec.collective = collectives::Collective::Barrier;
  spec.algorithm = "dissemination";
  spec.num_ranks = whole.num_ranks;
  spec.group = whole.group;
  spec.ranks_per_node = whole.ranks_per_node;
  return collectives::make_plan(spec);
}

// Every member's stand-in; member `late` first computes for `late_ns`.
goal::Schedule stand_ins(const collectives::Plan& barrier, std::span<const std::uint64_t> after_ns, goal::RankId late = 0,
                         std::uint64_t late_ns = 0) {
  goal::ScheduleBuilder b(barrier.num_ranks);
  for (std::uint32_t me = 0; me < barrier.n; ++me) {
    b.begin_rank(barrier.group[me]);
    collectives::BuilderSink sink(b);
    std::vector<goal::LocalOp> entry;
    if (late_ns > 0 && barrier.group[me] == late) entry.push_back(b.add(goal::Op::calc(late_ns)));
    const std::vector<goal::LocalOp> met = collectives::emit_member(barrier, me, sink, entry);
    const goal::LocalOp rest = b.add(goal::Op::calc(after_ns[me], 48));
    for (goal::LocalOp m : met) b.add_requires(rest, m);
    b.end_rank();
  }
  return b.finish();
}

std::vector<std::int64_t> finish_ps(const goal::Schedule& s, const exec::NetworkSetup& setup) {
  auto local = pdes::make_local_transport();
  const exec::SimulationRun run = exec::simulate(s, setup, *local);
  EXPECT_TRUE(run.result.complete);
  std::vector<std::int64_t> ps;
  for (SimTime t : run.result.rank_finish) ps.push_back(t.picoseconds());
  return ps;
}

// A 4 MiB ring all-reduce of 8 GPUs, the barrier over them, and each member's time after it.
class AloneTiming : public ::testing::TestWithParam<net::LinkModel> {
 protected:
  Cluster c;
  AloneTimingTable table{c.setup(GetParam())};
  collectives::Plan whole = exec::testing::one_node_plan(collectives::Collective::Allreduce, "ring", 8, 4 << 20, 256 << 10);
  collectives::Plan barrier = barrier_over(whole);
  std::vector<std::uint64_t> after() {
    const std::span<const std::uint64_t> ns = table.after_barrier_ns(whole, barrier);
    return {ns.begin(), ns.end()};
  }
};

TEST_P(AloneTiming, AStandInEndsWhereItsMemberEndedAlone) {
  const std::vector<std::uint64_t> rest = after();
  ASSERT_EQ(rest.size(), 8u);
  const std::vector<std::int64_t> alone = table.alone_ps(whole);
  // A lower bound by hand: each GPU sends 2 (n-1)/n of 4 MiB at 2400 Gb/s.
  const double wire_ps = 2.0 * 7 / 8 * (4 << 20) * 8 / 2400e9 * 1e12;
  const std::vector<std::int64_t> ends = finish_ps(stand_ins(barrier, rest), c.setup(GetParam()));
  for (std::uint32_t i = 0; i < 8; ++i) {
    EXPECT_GT(static_cast<double>(alone[i]), wire_ps) << "member " << i;
    EXPECT_NEAR(ends[i], alone[i], kHalfNs) << "member " << i;
  }
}

TEST_P(AloneTiming, ALateMemberHoldsEveryStandInBackByItsLateness) {
  const std::vector<std::uint64_t> after_ns = after();
  const std::vector<std::int64_t> met = table.alone_ps(barrier);
  const std::int64_t slowest_barrier = *std::max_element(met.begin(), met.end());
  const std::uint64_t late_ns = 20'000;
  const std::vector<std::int64_t> ends = finish_ps(stand_ins(barrier, after_ns, 3, late_ns), c.setup(GetParam()));
  for (std::uint32_t i = 0; i < 8; ++i) {
    const auto rest = static_cast<std::int64_t>(after_ns[i] * 1000);
    // Nobody leaves the barrier before member 3 arrives; once it has, the barrier takes at
    // most what it took the slowest member alone.
    EXPECT_GE(ends[i], static_cast<std::int64_t>(late_ns * 1000) + rest) << "member " << i;
    EXPECT_LE(ends[i], static_cast<std::int64_t>(late_ns * 1000) + slowest_barrier + rest) << "member " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, AloneTiming, ::testing::Values(net::LinkModel::Packet, net::LinkModel::Flow),
                         [](const auto& p) { return p.param == net::LinkModel::Packet ? "packets" : "flows"; });

TEST(AloneTimingTable, EachDistinctCollectiveIsSimulatedOnce) {
  const Cluster c;
  AloneTimingTable table(c.setup(net::LinkModel::Flow));
  collectives::Plan whole = exec::testing::one_node_plan(collectives::Collective::Allreduce, "ring", 8, 1 << 20, 256 << 10);
  const collectives::Plan barrier = barrier_over(whole);
  const std::vector<std::uint64_t> first(table.after_barrier_ns(whole, barrier).begin(),
                                         table.after_barrier_ns(whole, barrier).end());
  EXPECT_EQ(table.collectives_timed(), 2u);  // the all-reduce and the barrier
  whole.tag = 1 << 20;                         // another repeat of the same collective
  const std::span<const std::uint64_t> again = table.after_barrier_ns(whole, barrier);
  EXPECT_EQ(std::vector<std::uint64_t>(again.begin(), again.end()), first);
  EXPECT_EQ(table.collectives_timed(), 2u);
  const collectives::Plan larger = exec::testing::one_node_plan(collectives::Collective::Allreduce, "ring", 8, 2 << 20, 256 << 10);
  const std::span<const std::uint64_t> more = table.after_barrier_ns(larger, barrier);
  EXPECT_EQ(table.collectives_timed(), 3u);  // the barrier was known
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_GT(more[i], first[i]);
}

TEST(AloneTimingTable, CollectivesThatDifferByAFractionOfANanosecondAreTimedApart) {
  const Cluster c;
  AloneTimingTable table(c.setup(net::LinkModel::Flow));
  collectives::Plan whole = exec::testing::one_node_plan(collectives::Collective::Allreduce, "ring", 8, 1 << 20, 256 << 10);
  const collectives::Plan barrier = barrier_over(whole);
  whole.step = whole.network_step = SimTime::ns(3400);
  table.after_barrier_ns(whole, barrier);
  EXPECT_EQ(table.collectives_timed(), 2u);
  whole.step = whole.network_step = SimTime::ps(3'400'500);
  table.after_barrier_ns(whole, barrier);
  EXPECT_EQ(table.collectives_timed(), 3u);
}

// `servers` servers of 8 GPUs on an NVSwitch each; GPU g of every server on rail leaf g, the
// leaves on one spine: between GPUs of a server NVLink (2 hops) is shorter than the network (4).
topo::Topology servers_on_rails(std::uint32_t servers) {
  topo::Topology t;
  std::vector<topo::NodeId> hosts;
  for (std::uint32_t s = 0; s < servers; ++s)
    for (std::uint32_t g = 0; g < 8; ++g)
      hosts.push_back(t.add_node("gpu" + std::to_string(s) + "_" + std::to_string(g), topo::NodeKind::Host, {}, s));
  const topo::NodeId spine = t.add_node("spine", topo::NodeKind::Switch);
  for (std::uint32_t g = 0; g < 8; ++g) {
    const topo::NodeId leaf = t.add_node("leaf" + std::to_string(g), topo::NodeKind::Switch);
    t.add_link(leaf, spine, Bandwidth::gbps(400), SimTime::ns(500));
    for (std::uint32_t s = 0; s < servers; ++s) t.add_link(hosts[s * 8 + g], leaf, Bandwidth::gbps(200), SimTime::ns(500));
  }
  for (std::uint32_t s = 0; s < servers; ++s) {
    const topo::NodeId nvs = t.add_node("nvs" + std::to_string(s), topo::NodeKind::NvSwitch);
    for (std::uint32_t g = 0; g < 8; ++g)
      t.add_link(hosts[s * 8 + g], nvs, Bandwidth::gbps(2400), SimTime::ns(100), topo::LinkMedium::NvLink);
  }
  return t;
}

collectives::Plan allreduce_on(std::uint32_t num_ranks, std::uint32_t first) {
  collectives::CollectiveSpec spec;
  spec.collective = collectives::Collective::Allreduce;
  spec.algorithm = "ring";
  spec.num_ranks = num_ranks;
  for (std::uint32_t i = 0; i < 8; ++i) spec.group.push_back(first + i);
  spec.bytes = 4 << 20;
  spec.ranks_per_node = 8;
  spec.channels = 2;
  spec.chunk_bytes = 256 << 10;
  spec.protocol = collectives::Protocol::Simple;
  return collectives::make_plan(spec);
}

// Each member's end alone in `table` equals its end when `plan` runs by itself on the whole
// network of `setup`.
void expect_alone_as_in_whole_run(AloneTimingTable& table, const exec::NetworkSetup& setup, const collectives::Plan& plan) {
  auto local = pdes::make_local_transport();
  const exec::SimulationRun whole = exec::simulate(collectives::generate(plan), setup, *local);
  const std::vector<std::int64_t>& alone = table.alone_ps(plan);
  ASSERT_EQ(alone.size(), plan.n);
  for (std::uint32_t i = 0; i < plan.n; ++i)
    EXPECT_EQ(alone[i], whole.result.rank_finish[plan.group[i]].picoseconds())
        << "member " << i << ", rank " << plan.group[i];
}

TEST_P(AloneTiming, OneServersNvlinkTimesItsCollectivesAsTheWholeClusterDoes) {
  const topo::Topology rails = servers_on_rails(3);
  const exec::Placement placement = exec::make_placement(exec::PlacementMethod::Linear, 24, 24);
  exec::NetworkSetup setup;
  setup.topology = &rails;
  setup.placement = &placement;
  setup.options.fidelity = net::uniform_fidelity(GetParam());
  AloneTimingTable cluster_table(setup);
  for (std::uint32_t server : {1u, 2u}) expect_alone_as_in_whole_run(cluster_table, setup, allreduce_on(24, 8 * server));
  EXPECT_EQ(cluster_table.collectives_timed(), 1u);  // both servers' NVLink islands have one shape
}

TEST(AloneTimingTable, AFabricNeedsItsTopologyAndPlacement) {
  EXPECT_THROW(AloneTimingTable{exec::NetworkSetup{}}, std::invalid_argument);
}

// LogGOPS on 3 nodes of 8 ranks, NVLink with its own NIC side: a group inside a node is timed
// once as ranks 0..7 of one node, which gives every node's group the ends the whole run gives
// it; a group across two nodes is timed as itself.
TEST(AloneTimingTable, InTheLogGOPSModelEveryNodesGroupSharesOneTiming) {
  exec::NetworkSetup setup;
  setup.backend = exec::Backend::LogGOPS;
  setup.loggops = {.L = 3000, .o = 200, .g = 100, .G = 0, .O = 0, .S = 65535, .G_ps = 40, .ranks_per_node = 8,
                   .L_intra = 500, .G_intra_ps = 4, .intra_nic = 1, .causal = 1};
  AloneTimingTable table(setup);
  for (std::uint32_t server : {1u, 2u}) expect_alone_as_in_whole_run(table, setup, allreduce_on(24, 8 * server));
  EXPECT_EQ(table.collectives_timed(), 1u);
  expect_alone_as_in_whole_run(table, setup, allreduce_on(24, 4));  // ranks 4..11: half on node 0, half on 1
  EXPECT_EQ(table.collectives_timed(), 2u);
}

}  // namespace
}  // namespace collsim::reuse
