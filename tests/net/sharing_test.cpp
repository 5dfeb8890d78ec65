// Flows that share links: a bottleneck split evenly, incast with PFC (lossless) and with tail
// drop and retransmission (lossy), ECMP and spraying over a leaf-spine, DCQCN convergence,
// a Swift incast.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::gbps;
using testing::ns;

using testing::kPsPerByte;

// Wire bytes of a flow: payload plus 64 B per 4096 B packet.
std::int64_t wire(std::uint64_t bytes) { return static_cast<std::int64_t>(bytes + 64 * ((bytes + 4095) / 4096)); }

TEST(Sharing, TwoFlowsThroughOneBottleneckGetHalfEach) {
  // h1 -> h0 and h2 -> h0 through one switch: the switch's port to h0 carries both. Taking
  // turns packet by packet, both finish when both are through: 2 x wire bytes at 100 Gb/s,
  // plus two 1 us hops and the first packet's store-and-forward.
  const topo::Topology t = testing::star(3, gbps(100), ns(1000));
  const std::uint64_t bytes = 2'000'000;
  const auto run = testing::run(t, FabricParams{}, {{1, 0, bytes, {}}, {2, 0, bytes, {}}});
  const double both = static_cast<double>(2 * wire(bytes) * kPsPerByte + 2'000'000 + 4160 * kPsPerByte);
  for (const auto& f : run.flows) {
    EXPECT_NEAR(static_cast<double>(f.fct().picoseconds()), both, 0.01 * both);
  }
  // Neither finished ahead of the other by more than a packet or two.
  EXPECT_LT(std::abs(run.flows[0].fct().picoseconds() - run.flows[1].fct().picoseconds()), 3 * 4160 * kPsPerByte);
  EXPECT_EQ(run.totals.drops, 0u);
}

TEST(Sharing, LosslessIncastHasNoDropsAndTakesNTimesTheBytes) {
  const std::uint32_t n = 8;
  const std::uint64_t bytes = 1'000'000;
  const topo::Topology t = testing::star(n + 1, gbps(100), ns(1000));
  FabricParams p;
  p.lossless = true;
  const auto run = testing::run(t, p, make_flow_pattern(FlowPattern::Incast, n + 1, bytes, 1, n));
  ASSERT_EQ(run.flows.size(), n);
  EXPECT_EQ(run.totals.drops, 0u);
  EXPECT_GT(run.totals.pfc_pauses, 0u);  // 8 senders at line rate into one port
  EXPECT_EQ(run.totals.bytes_delivered, n * bytes);
  // The receiver's link is busy all along: n x wire bytes, plus latency.
  const double expected = static_cast<double>(n * wire(bytes) * kPsPerByte + 2'000'000);
  SimTime makespan;
  for (const auto& f : run.flows) makespan = std::max(makespan, f.delivered);
  EXPECT_NEAR(static_cast<double>(makespan.picoseconds()), expected, 0.01 * expected);
}

TEST(Sharing, LossyIncastDropsRetransmitsAndDeliversEverything) {
  const std::uint32_t n = 8;
  const std::uint64_t bytes = 1'000'000;
  topo::SwitchParams small;
  small.buffer_bytes = 200 << 10;  // about 50 packets for 8 senders at line rate
  const topo::Topology t = testing::star(n + 1, gbps(100), ns(1000), small);
  FabricParams p;
  p.lossless = false;
  const auto run = testing::run(t, p, make_flow_pattern(FlowPattern::Incast, n + 1, bytes, 1, n));
  EXPECT_GT(run.totals.drops, 0u);
  EXPECT_GT(run.totals.retransmits, 0u);
  EXPECT_EQ(run.totals.pfc_pauses, 0u);
  EXPECT_EQ(run.totals.bytes_delivered, n * bytes);
  EXPECT_EQ(run.totals.flows_acked, n);
  for (const auto& f : run.flows) EXPECT_FALSE(f.delivered.is_infinite());
}

// Bytes on each leaf -> spine link, grouped by leaf (links of testing::leaf_spine have the
// leaf as `a`).
std::vector<std::vector<std::uint64_t>> uplink_bytes_by_leaf(const topo::Topology& t,
                                                             const std::vector<std::uint64_t>& link_bytes) {
  std::vector<std::vector<std::uint64_t>> by_leaf;
  std::vector<topo::NodeId> leaves;
  for (std::size_t l = 0; l < t.links().size(); ++l) {
    const topo::Link& link = t.link(static_cast<topo::LinkId>(l));
    if (t.node(link.a).kind != topo::NodeKind::Switch || t.node(link.b).kind != topo::NodeKind::Switch) continue;
    auto at = std::find(leaves.begin(), leaves.end(), link.a) - leaves.begin();
    if (at == static_cast<std::ptrdiff_t>(leaves.size())) {
      leaves.push_back(link.a);
      by_leaf.emplace_back();
    }
    by_leaf[static_cast<std::size_t>(at)].push_back(link_bytes[2 * l]);
  }
  return by_leaf;
}

// The largest, over leaves, of (busiest uplink of the leaf) / (mean uplink of the leaf).
double worst_leaf_imbalance(const std::vector<std::vector<std::uint64_t>>& by_leaf) {
  double worst = 0;
  for (const auto& v : by_leaf) {
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    if (mean > 0) worst = std::max(worst, static_cast<double>(*std::max_element(v.begin(), v.end())) / mean);
  }
  return worst;
}

TEST(Sharing, EcmpSpreadsAPermutationOverSpines) {
  // 8 leaves x 16 hosts, 16 spines, a random permutation of 2 MiB flows: a leaf sends about
  // F = 14 flows to other leaves over its U = 16 uplinks.
  //  - Per-flow ECMP places whole flows: with about one flow per uplink, a leaf's busiest
  //    uplink carries several flows (balls in bins); bound: 6 x the leaf's mean.
  //  - Per-packet spraying places each of a flow's P = 512 packets independently: an uplink
  //    gets F P / U = 448 packets on average with a standard deviation of
  //    sqrt(F P (1/U)(1 - 1/U)) = 20.5, so the busiest of 128 uplinks stays within about
  //    3 sigma: 1.15 x its leaf's mean; bound 1.2.
  const topo::Topology t = testing::leaf_spine(8, 16, 16, gbps(100), ns(500));
  const auto flows = make_flow_pattern(FlowPattern::Permutation, 128, 2 << 20, 7, 0);
  FabricParams ecmp;
  const auto ecmp_run = testing::run(t, ecmp, flows);
  const double ecmp_imbalance = worst_leaf_imbalance(uplink_bytes_by_leaf(t, ecmp_run.link_bytes));
  FabricParams spray;
  spray.routing = RoutingMode::Spray;
  const auto spray_run = testing::run(t, spray, flows);
  const double spray_imbalance = worst_leaf_imbalance(uplink_bytes_by_leaf(t, spray_run.link_bytes));
  EXPECT_LT(ecmp_imbalance, 6.0);
  EXPECT_GT(ecmp_imbalance, 1.5);  // hashing whole flows really is lumpy
  EXPECT_LT(spray_imbalance, 1.2);
  // Both deliver everything; spraying finishes sooner because no uplink is a hot spot.
  EXPECT_EQ(ecmp_run.totals.bytes_delivered, 128u * (2u << 20));
  EXPECT_EQ(spray_run.totals.bytes_delivered, 128u * (2u << 20));
  auto makespan = [](const FlowRun& r) {
    SimTime m;
    for (const auto& f : r.flows) m = std::max(m, f.delivered);
    return m;
  };
  EXPECT_LT(makespan(spray_run), makespan(ecmp_run));
}

TEST(Sharing, SprayedPacketsOutOfOrderDrawAnAckPerGapOnlyWhenTheFabricDrops) {
  // Spraying reorders a flow's packets. Lossless, nothing is lost: the receiver acknowledges
  // every ack_every-th packet it holds (the last among them), so a flow of 512 packets draws
  // 512 / 16 = 32 ACKs whatever the order. Lossy, a packet past a gap may mean a loss, and
  // each one draws an ACK at once: more ACKs, from the same permutation.
  const topo::Topology t = testing::leaf_spine(8, 16, 16, gbps(100), ns(500));
  const auto flows = make_flow_pattern(FlowPattern::Permutation, 128, 2 << 20, 7, 0);
  FabricParams lossless;
  lossless.routing = RoutingMode::Spray;
  const auto quiet = testing::run(t, lossless, flows);
  EXPECT_EQ(quiet.totals.bytes_delivered, 128u * (2u << 20));
  EXPECT_EQ(quiet.totals.acks, 128u * 512 / 16);
  FabricParams lossy = lossless;
  lossy.lossless = false;
  const auto eager = testing::run(t, lossy, flows);
  EXPECT_EQ(eager.totals.bytes_delivered, 128u * (2u << 20));
  EXPECT_GT(eager.totals.acks, 2 * quiet.totals.acks);
}

TEST(Sharing, DcqcnConvergesToFairShares) {
  // A starts alone; B joins at t0. With fair sharing from then on, A finishes at
  // 2S/R - t0 and B at 2S/R (S = bytes, R = line rate; derivation in the commit notes of this
  // test: A sends R t0 alone, then both get R/2). DCQCN needs time to converge, so the band
  // is 10 %.
  const topo::Topology t = testing::star(3, gbps(100), ns(1000));
  FabricParams p;
  p.cc = CongestionControlKind::Dcqcn;
  const std::uint64_t bytes = 20'000'000;
  const auto t0 = SimTime::us(400);
  const auto run = testing::run(t, p, {{1, 0, bytes, {}}, {2, 0, bytes, t0}});
  const double s_over_r = static_cast<double>(wire(bytes) * kPsPerByte);
  const double a_end = 2 * s_over_r - static_cast<double>(t0.picoseconds());
  const double b_end = 2 * s_over_r;
  EXPECT_NEAR(static_cast<double>(run.flows[0].delivered.picoseconds()), a_end, 0.10 * a_end);
  EXPECT_NEAR(static_cast<double>(run.flows[1].delivered.picoseconds()), b_end, 0.10 * b_end);
  EXPECT_GT(run.totals.cnps, 0u);
  EXPECT_GT(run.totals.ecn_marks, 0u);
  // DCQCN keeps the queue near the marking thresholds instead of at the PFC threshold.
  FabricParams none;
  const auto uncontrolled = testing::run(t, none, {{1, 0, bytes, {}}, {2, 0, bytes, t0}});
  EXPECT_LT(run.totals.max_switch_buffer_bytes, uncontrolled.totals.max_switch_buffer_bytes);
}

TEST(Sharing, SwiftIncastCompletesAtLineRateAndBacksOffBeforePfc) {
  // Swift's window is a few packets (its target delay's worth), fewer than the 16 a receiver
  // waits for before it acknowledges: the packet that fills a window asks for its ACK, or no
  // flow would ever complete. The receiver's link is then busy all along, as in the lossless
  // incast above, and once the delay is seen the senders back off before PFC has to.
  const std::uint32_t n = 8;
  const std::uint64_t bytes = 4'000'000;
  const topo::Topology t = testing::star(n + 1, gbps(100), ns(1000));
  FabricParams p;
  p.cc = CongestionControlKind::Swift;
  ASSERT_GT(p.ack_every, 1u);
  const auto run = testing::run(t, p, make_flow_pattern(FlowPattern::Incast, n + 1, bytes, 1, n));
  ASSERT_EQ(run.flows.size(), n);
  EXPECT_EQ(run.totals.bytes_delivered, n * bytes);
  const double expected = static_cast<double>(n * wire(bytes) * kPsPerByte + 2'000'000);
  SimTime makespan;
  for (const auto& f : run.flows) {
    EXPECT_FALSE(f.delivered.is_infinite());
    makespan = std::max(makespan, f.delivered);
  }
  EXPECT_NEAR(static_cast<double>(makespan.picoseconds()), expected, 0.03 * expected);
  FabricParams none;
  const auto uncontrolled = testing::run(t, none, make_flow_pattern(FlowPattern::Incast, n + 1, bytes, 1, n));
  EXPECT_LT(run.totals.pfc_pauses * 2, uncontrolled.totals.pfc_pauses) << run.totals.pfc_pauses;
  // A fixed window below one packet: one packet per round trip, each acknowledged at once.
  FabricParams tiny;
  tiny.window_bytes = 1;
  const auto one_by_one = testing::run(t, tiny, {{1, 0, 10 * 4096, {}}});
  EXPECT_EQ(one_by_one.totals.bytes_delivered, 10u * 4096);
}

}  // namespace
}  // namespace collsim::net
