// "Did you mean": distances counted by hand, and which candidates are close enough.

#include <gtest/gtest.h>

#include "collsim/common/spelling.hpp"

namespace collsim {
namespace {

TEST(Spelling, EditDistanceCountsEachKindOfEdit) {
  EXPECT_EQ(edit_distance("workload", "workload"), 0u);
  EXPECT_EQ(edit_distance("wrokload", "workload"), 1u);   // two neighbours swapped
  EXPECT_EQ(edit_distance("topolgy", "topology"), 1u);    // one left out
  EXPECT_EQ(edit_distance("topologyy", "topology"), 1u);  // one too many
  EXPECT_EQ(edit_distance("rum", "run"), 1u);             // one replaced
  EXPECT_EQ(edit_distance("", "gen"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Spelling, ClosestWordOnlyWhenItCouldBeAMisspelling) {
  const std::vector<std::string> subcommands = {"goal", "gen", "run", "replay", "bench", "topo",
                                                "flows", "workload", "validate", "calibrate"};
  EXPECT_EQ(closest_word("wrokload", subcommands), "workload");
  EXPECT_EQ(closest_word("valdiate", subcommands), "validate");
  EXPECT_EQ(closest_word("rum", subcommands), "run");
  EXPECT_EQ(closest_word("simulate", subcommands), "");  // no subcommand within 2 edits
  EXPECT_EQ(closest_word("x", subcommands), "");
}

}  // namespace
}  // namespace collsim
