// Ranks to parallel groups: Megatron's default order (TP fastest, then DP, then PP), other
// orders, and the EP and expert-data-parallel groups inside DP.

#include <gtest/gtest.h>

#include "collsim/workload/parallel_layout.hpp"

namespace collsim::workload {
namespace {

using Ranks = std::vector<goal::RankId>;

ParallelSpec spec(std::uint32_t tp, std::uint32_t pp, std::uint32_t dp, std::uint32_t ep = 1) {
  ParallelSpec p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.ep = ep;
  return p;
}

TEST(ParallelLayout, TensorParallelGroupsAreConsecutiveByDefault) {
  const ParallelLayout l(spec(2, 2, 4));  // 16 ranks: rank = tp + 2 (dp + 4 stage)
  EXPECT_EQ(l.world(), 16u);
  EXPECT_EQ(l.tp_group(5), (Ranks{4, 5}));
  EXPECT_EQ(l.dp_group(5), (Ranks{1, 3, 5, 7}));
  EXPECT_EQ(l.on_stage(5, 1), 13u);
  const RankCoordinates c = l.coordinates(13);
  EXPECT_EQ(c.tp, 1u);
  EXPECT_EQ(c.dp, 2u);
  EXPECT_EQ(c.stage, 1u);
  for (goal::RankId r = 0; r < 16; ++r) EXPECT_EQ(l.rank(l.coordinates(r)), r);
}

TEST(ParallelLayout, AnotherOrderPermutesTheStrides) {
  ParallelSpec p = spec(2, 2, 4);
  p.order = {Dimension::PP, Dimension::DP, Dimension::TP};  // rank = stage + 2 (dp + 4 tp)
  const ParallelLayout l(p);
  EXPECT_EQ(l.tp_group(0), (Ranks{0, 8}));
  EXPECT_EQ(l.dp_group(0), (Ranks{0, 2, 4, 6}));
  EXPECT_EQ(l.on_stage(0, 1), 1u);
  for (goal::RankId r = 0; r < 16; ++r) EXPECT_EQ(l.rank(l.coordinates(r)), r);
}

TEST(ParallelLayout, ExpertGroupsSplitDataParallelism) {
  const ParallelLayout l(spec(1, 1, 8, 4));
  EXPECT_EQ(l.ep_group(5), (Ranks{4, 5, 6, 7}));
  EXPECT_EQ(l.expert_dp_group(5), (Ranks{1, 5}));
}

}  // namespace
}  // namespace collsim::workload
