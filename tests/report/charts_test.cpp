#include "collsim/report/charts.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "collsim/report/svg_canvas.hpp"

namespace collsim::report {
namespace {

TEST(BusyByRole, OverlappingOpsOfARoleCountOnce) {
  OpsTable ops;
  // Rank 0: compute [0, 10) and [5, 20) -> 20; tp [20, 30) and [40, 45) -> 15.
  // Rank 1: compute [0, 7); a tp op that never ran (-1) counts nothing.
  ops.rank = {0, 0, 0, 0, 1, 1};
  ops.kind = {3, 3, 1, 2, 3, 1};
  ops.start_ps = {0, 5, 20, 40, 0, -1};
  ops.end_ps = {10, 20, 30, 45, 7, -1};
  ops.role = {0, 0, 1, 1, 0, 1};
  ops.role_names = {"compute", "tp"};
  const RankBreakdown b = busy_by_role(ops);
  ASSERT_EQ(b.busy_ps.size(), 2u);
  EXPECT_EQ(b.busy_ps[0], (std::vector<std::int64_t>{20, 15}));
  EXPECT_EQ(b.busy_ps[1], (std::vector<std::int64_t>{7, 0}));
  EXPECT_EQ(b.end_ps, (std::vector<std::int64_t>{45, 7}));
  // Without roles: calcs are compute, sends and receives communication.
  ops.role.clear();
  const RankBreakdown k = busy_by_role(ops);
  EXPECT_EQ(k.roles, (std::vector<std::string>{"compute", "communication"}));
  EXPECT_EQ(k.busy_ps[0], (std::vector<std::int64_t>{20, 15}));
}

TEST(Charts, EvenlySpacedKeepsTheEnds) {
  EXPECT_EQ(evenly_spaced(5, 64), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(evenly_spaced(101, 5), (std::vector<std::size_t>{0, 25, 50, 75, 100}));
  EXPECT_EQ(evenly_spaced(10, 1), (std::vector<std::size_t>{0}));
}

TEST(Charts, TheBusiestDirectionsByMeanUtilisation) {
  LinkSamplesTable s;
  s.from = {"a", "b", "c"};
  s.to = {"b", "c", "a"};
  s.time_ps = {1000, 2000};
  // Means: a->b 0.25, b->c 0.5 (a NaN sample counts 0), c->a 0.75.
  s.utilisation = {0.5, std::numeric_limits<double>::quiet_NaN(), 1.0, 0.0, 1.0, 0.5};
  EXPECT_EQ(busiest_directions(s, 2), (std::vector<std::size_t>{2, 1}));
  const std::string svg = utilisation_heatmap(s);
  EXPECT_NE(svg.find("c→a: 100.0%"), std::string::npos);
  EXPECT_EQ(svg.find("a→b: 0.0%"), std::string::npos);  // an idle cell is not drawn
}

TEST(Charts, TheCdfSaysItsMedianAndTail) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const std::string svg = cdf_chart(v, "us");
  // Nearest rank: p50 is the 50th value, p99 the 99th.
  EXPECT_NE(svg.find("n 100, p50 50.000, p99 99.000"), std::string::npos) << svg;
  EXPECT_NE(svg.find("(log scale)"), std::string::npos);  // 1 to 100: two decades
  EXPECT_NE(cdf_chart({}, "us").find("no values"), std::string::npos);
}

TEST(SvgCanvas, EscapesTextAndColoursTheHeat) {
  EXPECT_EQ(escape_xml("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
  SvgCanvas svg(10, 10);
  svg.rect(1, 2, 3, 4, "#fff", "x < y");
  EXPECT_NE(svg.str().find("<title>x &lt; y</title>"), std::string::npos);
  EXPECT_EQ(heat_colour(0), "#ffffff");
  EXPECT_EQ(heat_colour(1), "#800000");
  EXPECT_EQ(heat_colour(2), "#800000");  // clamped
}

}  // namespace
}  // namespace collsim::report
