#include "collsim/status/link_ranking.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

namespace collsim::status {
namespace {

std::vector<std::string> names(const std::vector<LinkLoad>& links) {
  std::vector<std::string> out;
  for (const auto& link : links) out.push_back(link.link);
  return out;
}

TEST(LinkRanking, KeepsTheNMostUtilisedHighestFirst) {
  const std::vector<LinkLoad> links = {{"a", 10, 0.1}, {"b", 50, 0.5}, {"c", 90, 0.9}, {"d", 30, 0.3}};
  EXPECT_EQ(names(most_utilised(links, 2)), (std::vector<std::string>{"c", "b"}));
  EXPECT_EQ(names(most_utilised(links, 10)), (std::vector<std::string>{"c", "b", "d", "a"}));
  EXPECT_TRUE(most_utilised(links, 0).empty());
}

// Equal utilisation (say, links of different bandwidth): more bytes first, then by name, in
// whatever order the ranks delivered them.
TEST(LinkRanking, BreaksTiesTheSameWayForAnyInputOrder) {
  const std::vector<LinkLoad> one = {{"y", 100, 0.5}, {"x", 100, 0.5}, {"z", 200, 0.5}};
  const std::vector<LinkLoad> other = {{"z", 200, 0.5}, {"x", 100, 0.5}, {"y", 100, 0.5}};
  const std::vector<std::string> expected = {"z", "x", "y"};
  EXPECT_EQ(names(most_utilised(one, 3)), expected);
  EXPECT_EQ(names(most_utilised(other, 3)), expected);
}

TEST(LinkRanking, NanUtilisationGoesLast) {
  const std::vector<LinkLoad> links = {{"nan", 5, std::nan("")}, {"low", 1, 0.01}, {"zero", 0, 0.0}};
  EXPECT_EQ(names(most_utilised(links, 3)), (std::vector<std::string>{"low", "zero", "nan"}));
}

}  // namespace
}  // namespace collsim::status
