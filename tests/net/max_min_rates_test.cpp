// Max-min fair shares, derived by hand: one flow, a shared bottleneck, a parking lot, flows
// leaving, and components solved apart.

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "collsim/net/max_min_rates.hpp"

namespace collsim::net {
namespace {

std::set<MaxMinRates::FlowIndex> solve(MaxMinRates& m) {
  std::set<MaxMinRates::FlowIndex> moved;
  m.solve([&](MaxMinRates::FlowIndex f) { moved.insert(f); });
  return moved;
}

TEST(MaxMinRates, AFlowAloneGetsItsNarrowestLink) {
  MaxMinRates m({100e9, 40e9, 100e9});
  const auto f = m.add(std::vector<std::uint32_t>{0, 1, 2});
  EXPECT_EQ(solve(m), std::set<MaxMinRates::FlowIndex>{f});
  EXPECT_EQ(m.rate(f), 40e9);
}

TEST(MaxMinRates, FlowsThroughOneBottleneckShareItEvenly) {
  MaxMinRates m({100e9, 100e9, 100e9});
  const auto a = m.add(std::vector<std::uint32_t>{0, 2});
  const auto b = m.add(std::vector<std::uint32_t>{1, 2});
  solve(m);
  EXPECT_EQ(m.rate(a), 50e9);
  EXPECT_EQ(m.rate(b), 50e9);
  // A third through the same link: a third each.
  const auto c = m.add(std::vector<std::uint32_t>{2});
  EXPECT_EQ(solve(m).size(), 3u);
  for (auto f : {a, b, c}) EXPECT_DOUBLE_EQ(m.rate(f), 100e9 / 3);
}

TEST(MaxMinRates, ParkingLot) {
  // Links 0, 1, 2 of 10, 4 and 10 Gb/s in a row; the long flow crosses all three, one short
  // flow crosses each. Link 1 is the tightest: its two flows get 2 each; then link 0 has 8
  // left for its short flow, and so has link 2.
  MaxMinRates m({10e9, 4e9, 10e9});
  const auto along = m.add(std::vector<std::uint32_t>{0, 1, 2});
  const auto s0 = m.add(std::vector<std::uint32_t>{0});
  const auto s1 = m.add(std::vector<std::uint32_t>{1});
  const auto s2 = m.add(std::vector<std::uint32_t>{2});
  solve(m);
  EXPECT_DOUBLE_EQ(m.rate(along), 2e9);
  EXPECT_DOUBLE_EQ(m.rate(s1), 2e9);
  EXPECT_DOUBLE_EQ(m.rate(s0), 8e9);
  EXPECT_DOUBLE_EQ(m.rate(s2), 8e9);
  // Without the middle short flow, link 1 alone holds the long one, at 4; the short flows on
  // links 0 and 2 get the 6 left there.
  m.remove(s1);
  EXPECT_EQ(solve(m), (std::set<MaxMinRates::FlowIndex>{along, s0, s2}));
  EXPECT_DOUBLE_EQ(m.rate(along), 4e9);  // link 1 alone caps it at 4
  EXPECT_DOUBLE_EQ(m.rate(s0), 6e9);
  EXPECT_DOUBLE_EQ(m.rate(s2), 6e9);
}

TEST(MaxMinRates, OnlyTheComponentThatChangedIsSolved) {
  MaxMinRates m({10e9, 10e9});
  const auto a = m.add(std::vector<std::uint32_t>{0});
  const auto b = m.add(std::vector<std::uint32_t>{1});
  solve(m);
  const std::uint64_t before = m.flows_solved();
  const auto c = m.add(std::vector<std::uint32_t>{1});
  // b and c share link 1; a, alone on link 0, is neither solved nor reported.
  EXPECT_EQ(solve(m), (std::set<MaxMinRates::FlowIndex>{b, c}));
  EXPECT_EQ(m.flows_solved() - before, 2u);
  EXPECT_EQ(m.rate(a), 10e9);
  EXPECT_EQ(m.rate(b), 5e9);
}

TEST(MaxMinRates, IndicesOfRemovedFlowsAreReused) {
  MaxMinRates m({10e9});
  const auto a = m.add(std::vector<std::uint32_t>{0});
  m.remove(a);
  EXPECT_EQ(m.active_flows(), 0u);
  EXPECT_TRUE(solve(m).empty());
  const auto b = m.add(std::vector<std::uint32_t>{0});
  EXPECT_EQ(a, b);
  solve(m);
  EXPECT_EQ(m.rate(b), 10e9);
}

TEST(MaxMinRates, RefusesLinksWithoutCapacity) {
  EXPECT_THROW(MaxMinRates({10e9, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::net
