// Partitioning: zero-latency links never cross ranks (they would leave no lookahead), Block
// balances by weight, check_partition names what is wrong, and the lookahead is the
// shortest cut link.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "collsim/pdes/partition.hpp"
#include "collsim/pdes_models/token_torus.hpp"
#include "pdes_test_util.hpp"

namespace collsim::pdes {
namespace {

using testing::expect_error;

// 12 LPs on a ring of 10 ns links, plus zero-latency links that tie {0,1}, the chain
// {3,4,5,6} and {9,11} (not ring neighbours). Groups, numbered by their smallest LP:
// g0 = {0,1}, g1 = {2}, g2 = {3,4,5,6}, g3 = {7}, g4 = {8}, g5 = {9,11}, g6 = {10}.
LpGraph ring_with_zero_links() {
  LpGraph g;
  g.num_lps = 12;
  for (LpId i = 0; i < 12; ++i) g.edges.push_back({i, (i + 1) % 12, SimTime::ns(10)});
  const LpId zero_links[][2] = {{0, 1}, {4, 3}, {4, 5}, {5, 6}, {11, 9}};
  for (const auto& link : zero_links) g.edges.push_back({link[0], link[1], SimTime::zero()});
  return g;
}

void expect_zero_links_kept(const Partition& p) {
  EXPECT_EQ(p.owner[0], p.owner[1]);
  for (const LpId lp : {4, 5, 6}) EXPECT_EQ(p.owner[lp], p.owner[3]) << "LP " << lp;
  EXPECT_EQ(p.owner[9], p.owner[11]);
}

TEST(Partition, EveryMethodKeepsZeroLatencyGroupsTogether) {
  const LpGraph g = ring_with_zero_links();
  for (const auto method : {PartitionMethod::Block, PartitionMethod::RoundRobin, PartitionMethod::Random, PartitionMethod::Metis}) {
    for (std::uint32_t ranks = 1; ranks <= 4; ++ranks) {
      SCOPED_TRACE(::testing::Message() << "method " << static_cast<int>(method) << ", " << ranks << " ranks");
      const Partition p = make_partition(g, ranks, method, 7);
      EXPECT_EQ(p.num_ranks, ranks);
      ASSERT_EQ(p.owner.size(), 12u);
      for (const std::uint32_t r : p.owner) EXPECT_LT(r, ranks);
      expect_zero_links_kept(p);
      EXPECT_NO_THROW(check_partition(g, p));
      // Only 10 ns links are cut, if any.
      const SimTime lookahead = lookahead_of(g, p);
      EXPECT_TRUE(lookahead == SimTime::ns(10) || lookahead.is_infinite()) << format_duration(lookahead);
    }
  }
}

TEST(Partition, RoundRobinDealsGroupsInTurn) {
  // Groups g0..g6 (see ring_with_zero_links) to ranks 0,1,2,0,1,2,0.
  const Partition p = make_partition(ring_with_zero_links(), 3, PartitionMethod::RoundRobin);
  EXPECT_EQ(p.owner, (std::vector<std::uint32_t>{0, 0, 1, 2, 2, 2, 2, 0, 1, 2, 0, 2}));
}

TEST(Partition, BlockCutsByWeightMidpoints) {
  // Group weights 2,1,4,1,1,2,1 (total 12); a group goes to the rank whose half of the
  // total holds its midpoint: 1, 2.5, 5 fall below 6; 7.5, 8.5, 10, 11.5 above.
  EXPECT_EQ(make_partition(ring_with_zero_links(), 2, PartitionMethod::Block).owner,
            (std::vector<std::uint32_t>{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
  // Weights 4,1,1,1,1 (total 8): the heavy LP alone fills rank 0's half (midpoint 2 < 4).
  LpGraph g;
  g.num_lps = 5;
  g.weight = {4, 1, 1, 1, 1};
  EXPECT_EQ(make_partition(g, 2, PartitionMethod::Block).owner, (std::vector<std::uint32_t>{0, 1, 1, 1, 1}));
}

TEST(Partition, BlockBalancesByWeight) {
  // 20 LPs weighing 1,8,5,2,9,6,3,10,7,4 twice: total 110, heaviest 10.
  LpGraph g;
  g.num_lps = 20;
  for (std::uint32_t i = 0; i < 20; ++i) g.weight.push_back(1 + (i * 7) % 10);
  ASSERT_EQ(std::accumulate(g.weight.begin(), g.weight.end(), 0u), 110u);
  for (std::uint32_t ranks = 2; ranks <= 5; ++ranks) {
    const Partition p = make_partition(g, ranks, PartitionMethod::Block);
    std::vector<double> sum(ranks, 0);
    for (LpId lp = 0; lp < 20; ++lp) sum[p.owner[lp]] += g.weight[lp];
    // Each rank's share is off by less than one LP's weight, and the runs are contiguous.
    for (std::uint32_t r = 0; r < ranks; ++r) EXPECT_NEAR(sum[r], 110.0 / ranks, 10.0) << ranks << " ranks, rank " << r;
    EXPECT_TRUE(std::is_sorted(p.owner.begin(), p.owner.end()));
  }
}

TEST(Partition, RandomIsSeeded) {
  const LpGraph g = ring_with_zero_links();
  EXPECT_EQ(make_partition(g, 2, PartitionMethod::Random, 1), make_partition(g, 2, PartitionMethod::Random, 1));
  // 7 groups over 2 ranks: two seeds agree with probability 1/128, four all with 2^-28.
  int same = 0;
  for (const std::uint64_t seed : {2, 3, 4, 5})
    same += make_partition(g, 2, PartitionMethod::Random, seed) == make_partition(g, 2, PartitionMethod::Random, 1);
  EXPECT_LT(same, 4);
}

// A cut ring of 16 costs at least two links; METIS should find a cheap, balanced cut.
TEST(Partition, MetisUsesBothRanksOfARing) {
  LpGraph g;
  g.num_lps = 16;
  for (LpId i = 0; i < 16; ++i) g.edges.push_back({i, (i + 1) % 16, SimTime::ns(5)});
  const Partition p = make_partition(g, 2, PartitionMethod::Metis);
  EXPECT_NO_THROW(check_partition(g, p));
  const auto on_rank_1 = std::count(p.owner.begin(), p.owner.end(), 1u);
  EXPECT_GE(on_rank_1, 6);
  EXPECT_LE(on_rank_1, 10);
  int cut = 0;
  for (const auto& e : g.edges) cut += p.owner[e.a] != p.owner[e.b];
  EXPECT_GE(cut, 2);
  EXPECT_LE(cut, 4);
  EXPECT_EQ(lookahead_of(g, p), SimTime::ns(5));
}

TEST(Partition, MetisOnATorusKeepsHostsWithTheirRouters) {
  pdes_models::TokenTorusConfig c;
  c.width = 4;
  c.height = 4;
  const LpGraph g = pdes_models::token_torus_graph(c);
  for (const std::uint32_t ranks : {2u, 3u}) {
    const Partition p = make_partition(g, ranks, PartitionMethod::Metis);
    EXPECT_NO_THROW(check_partition(g, p));
    for (std::uint32_t r = 0; r < ranks; ++r) EXPECT_NE(std::count(p.owner.begin(), p.owner.end(), r), 0) << "rank " << r;
    for (LpId router = 0; router < 16; ++router) EXPECT_EQ(p.owner[router], p.owner[16 + router]);
    // Only router links are cut: 500 ns (X) or 700 ns (Y).
    const SimTime lookahead = lookahead_of(g, p);
    EXPECT_TRUE(lookahead == SimTime::ns(500) || lookahead == SimTime::ns(700)) << format_duration(lookahead);
  }
}

// 4 LPs: 0 -10ns- 1 -0- 2 -5ns- 3.
LpGraph small_chain() {
  LpGraph g;
  g.num_lps = 4;
  g.edges = {{0, 1, SimTime::ns(10)}, {1, 2, SimTime::zero()}, {2, 3, SimTime::ns(5)}};
  return g;
}

TEST(CheckPartition, NamesTheCutZeroLatencyLink) {
  expect_error<std::invalid_argument>([] { check_partition(small_chain(), {2, {0, 0, 1, 1}}); },
                                      {"LP 1 (rank 0)", "LP 2 (rank 1)", "latency 0ps"});
  EXPECT_NO_THROW(check_partition(small_chain(), {2, {0, 1, 1, 0}}));
}

TEST(CheckPartition, RejectsMalformedGraphsAndPartitions) {
  LpGraph negative = small_chain();
  negative.edges[2].latency = SimTime::ps(-1);
  expect_error<std::invalid_argument>([&] { check_partition(negative, {1, {0, 0, 0, 0}}); },
                                      {"LP 2", "LP 3", "negative latency (-1ps)"});
  expect_error<std::invalid_argument>([&] { make_partition(negative, 2, PartitionMethod::Block); }, {"negative"});

  expect_error<std::invalid_argument>([] { check_partition(small_chain(), {2, {0, 0, 0, 2}}); },
                                      {"LP 3 is placed on rank 2", "there are 2 ranks"});
  expect_error<std::invalid_argument>([] { check_partition(small_chain(), {2, {0, 0, 0}}); }, {"places 3 LPs", "has 4"});

  LpGraph unknown = small_chain();
  unknown.edges.push_back({3, 9, SimTime::ns(1)});
  expect_error<std::invalid_argument>([&] { check_partition(unknown, {1, {0, 0, 0, 0}}); }, {"LP 9", "only 4 LPs"});

  LpGraph weights = small_chain();
  weights.weight = {1, 2, 3};
  expect_error<std::invalid_argument>([&] { make_partition(weights, 2, PartitionMethod::Block); }, {"3 weights for 4 LPs"});
  expect_error<std::invalid_argument>([] { make_partition(small_chain(), 0, PartitionMethod::Block); }, {"0 ranks"});

  // Any-to-any traffic with no delay cannot be split at all, but may stay on one rank.
  LpGraph any = small_chain();
  any.any_to_any = SimTime::zero();
  expect_error<std::invalid_argument>([&] { check_partition(any, {2, {0, 0, 0, 1}}); }, {"positive minimum delay"});
  EXPECT_NO_THROW(check_partition(any, {2, {1, 1, 1, 1}}));
}

TEST(Lookahead, IsTheShortestCutLink) {
  // A square 0-1-2-3-0 with links of 30, 20, 50 and 40 ns.
  LpGraph g;
  g.num_lps = 4;
  g.edges = {{0, 1, SimTime::ns(30)}, {1, 2, SimTime::ns(20)}, {2, 3, SimTime::ns(50)}, {3, 0, SimTime::ns(40)}};
  EXPECT_EQ(lookahead_of(g, {2, {0, 0, 1, 1}}), SimTime::ns(20));  // cuts 1-2 and 3-0
  EXPECT_EQ(lookahead_of(g, {2, {0, 1, 1, 0}}), SimTime::ns(30));  // cuts 0-1 and 2-3
  EXPECT_EQ(lookahead_of(g, {2, {0, 0, 0, 1}}), SimTime::ns(40));  // cuts 2-3 and 3-0
  EXPECT_EQ(lookahead_of(g, {2, {1, 1, 1, 1}}), SimTime::infinity());
  // Any-to-any traffic counts as soon as anything is split, and only then.
  g.any_to_any = SimTime::ns(5);
  EXPECT_EQ(lookahead_of(g, {2, {0, 1, 1, 0}}), SimTime::ns(5));
  EXPECT_EQ(lookahead_of(g, {2, {0, 0, 0, 0}}), SimTime::infinity());
  g.any_to_any = SimTime::ns(100);
  EXPECT_EQ(lookahead_of(g, {2, {0, 1, 1, 0}}), SimTime::ns(30));
  // Without links: only the any-to-any delay.
  LpGraph bare;
  bare.num_lps = 3;
  bare.any_to_any = SimTime::us(1);
  EXPECT_EQ(lookahead_of(bare, {3, {0, 2, 0}}), SimTime::us(1));
}

TEST(Partition, MethodNames) {
  EXPECT_EQ(partition_method_from_name("block"), PartitionMethod::Block);
  EXPECT_EQ(partition_method_from_name("round-robin"), PartitionMethod::RoundRobin);
  EXPECT_EQ(partition_method_from_name("roundrobin"), PartitionMethod::RoundRobin);
  EXPECT_EQ(partition_method_from_name("random"), PartitionMethod::Random);
  EXPECT_EQ(partition_method_from_name("metis"), PartitionMethod::Metis);
  EXPECT_FALSE(partition_method_from_name("Block").has_value());
  EXPECT_FALSE(partition_method_from_name("").has_value());
}

}  // namespace
}  // namespace collsim::pdes

namespace collsim::pdes {
namespace {

TEST(Partition, MetisSpreadsEachClassOfLpsBusyTogether) {
  // Eight LPs in a line: the cheapest cut is the middle, which gives each rank one class whole.
  // LPs 0-3 are busy at one time and 4-7 at another: each rank gets half of each class.
  LpGraph g;
  g.num_lps = 8;
  for (LpId lp = 0; lp + 1 < 8; ++lp) g.edges.push_back({lp, lp + 1, SimTime::ns(500)});
  const Partition plain = make_partition(g, 2, PartitionMethod::Metis);
  EXPECT_EQ(std::count(plain.owner.begin(), plain.owner.begin() + 4, plain.owner[0]), 4);
  g.busy_together = {1, 1, 1, 1, 2, 2, 2, 2};
  const Partition spread = make_partition(g, 2, PartitionMethod::Metis);
  for (std::uint32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(std::count(spread.owner.begin(), spread.owner.begin() + 4, r), 2) << "rank " << r;
    EXPECT_EQ(std::count(spread.owner.begin() + 4, spread.owner.end(), r), 2) << "rank " << r;
  }
  g.busy_together = {1, 1};
  EXPECT_THROW(make_partition(g, 2, PartitionMethod::Metis), std::invalid_argument);
}

TEST(Partition, AClassInFewerGroupsThanRanksIsLeftOut) {
  // On 4 ranks, class 1 (three LPs) cannot give every rank a share: METIS is asked only for
  // class 2, as if class 1 were none.
  LpGraph g;
  g.num_lps = 8;
  for (LpId lp = 0; lp + 1 < 8; ++lp) g.edges.push_back({lp, lp + 1, SimTime::ns(500)});
  g.busy_together = {1, 1, 1, 2, 2, 2, 2, 2};
  const Partition with = make_partition(g, 4, PartitionMethod::Metis);
  g.busy_together = {0, 0, 0, 2, 2, 2, 2, 2};
  EXPECT_EQ(with, make_partition(g, 4, PartitionMethod::Metis));
}

}  // namespace
}  // namespace collsim::pdes
