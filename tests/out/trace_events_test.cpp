// The timeline of the sample run (sample_results.cpp): every value checked against the
// numbers made by hand there, and the format's rules.

#include <gtest/gtest.h>

#include <set>

#include "collsim/out/trace_events.hpp"
#include "sample_results.hpp"

namespace collsim::out {
namespace {

std::vector<nlohmann::json> of_phase(const nlohmann::json& trace, const std::string& ph) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : trace["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

TEST(TraceEvents, OpsAreSlicesInMicrosecondsNamedByWhatTheyAre) {
  test::SampleRun run;
  test::make_sample_run(run);
  const nlohmann::json t = trace_events(run.results);
  EXPECT_EQ(t["displayTimeUnit"], "ns");
  const std::vector<nlohmann::json> slices = of_phase(t, "X");
  // 4 ops and the 2 collectives that finished (the barrier did not).
  ASSERT_EQ(slices.size(), 6u);
  // The sample names no op spans of its collectives: an op is named by its role, then what it is.
  EXPECT_EQ(slices[0]["name"], "compute calc");
  EXPECT_EQ(slices[0]["pid"], 0);
  EXPECT_EQ(slices[0]["tid"], 0);
  EXPECT_DOUBLE_EQ(slices[0]["ts"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(slices[0]["dur"].get<double>(), 0.5);
  EXPECT_EQ(slices[0]["args"]["ns"], 500);
  EXPECT_EQ(slices[1]["name"], "dp send 1250B \u2192 1");
  EXPECT_DOUBLE_EQ(slices[1]["ts"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(slices[1]["dur"].get<double>(), 1.0);
  EXPECT_EQ(slices[2]["name"], "dp recv 1250B \u2190 0");
  EXPECT_EQ(slices[2]["pid"], 1);
  EXPECT_DOUBLE_EQ(slices[2]["dur"].get<double>(), 1.6);
  // Collectives on their own thread of each rank.
  EXPECT_EQ(slices[4]["name"], "allreduce");
  EXPECT_EQ(slices[4]["tid"], 1000);
  EXPECT_DOUBLE_EQ(slices[4]["dur"].get<double>(), 1.0);
  EXPECT_EQ(slices[5]["pid"], 1);
  EXPECT_DOUBLE_EQ(slices[5]["dur"].get<double>(), 1.6);
}

TEST(TraceEvents, AMessageIsAnArrowFromItsSendsStartToItsReceivesEnd) {
  test::SampleRun run;
  test::make_sample_run(run);
  const nlohmann::json t = trace_events(run.results);
  const std::vector<nlohmann::json> starts = of_phase(t, "s"), ends = of_phase(t, "f");
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(starts[0]["id"], ends[0]["id"]);
  EXPECT_EQ(starts[0]["pid"], 0);
  EXPECT_DOUBLE_EQ(starts[0]["ts"].get<double>(), 0.5);
  EXPECT_EQ(ends[0]["pid"], 1);
  EXPECT_DOUBLE_EQ(ends[0]["ts"].get<double>(), 1.6);
  EXPECT_EQ(ends[0]["bp"], "e");
}

TEST(TraceEvents, TheBusiestLinksAreCounterTracks) {
  test::SampleRun run;
  test::make_sample_run(run);
  TraceLimits limits;
  limits.link_tracks = 2;
  const std::vector<nlohmann::json> counters = of_phase(trace_events(run.results, limits), "C");
  // s0 -> h1 carried most (2500 B), then h0 -> s0 (2125 B); 2 samples each.
  ASSERT_EQ(counters.size(), 4u);
  EXPECT_EQ(counters[0]["name"], "s0 \u2192 h1");
  // 2500 B in 1 us at 40 Gb/s (5000 B per us): half the link.
  EXPECT_DOUBLE_EQ(counters[0]["args"]["utilisation"].get<double>(), 0.5);
  EXPECT_EQ(counters[0]["args"]["queue_bytes"], 1000);
  EXPECT_EQ(counters[2]["name"], "h0 \u2192 s0");
  // 1250 B of 1250 B per us at 10 Gb/s.
  EXPECT_DOUBLE_EQ(counters[2]["args"]["utilisation"].get<double>(), 1.0);
}

TEST(TraceEvents, PastItsLimitOnlyEvenlySpacedRanksKeepTheirOps) {
  test::SampleRun run;
  test::make_sample_run(run);
  TraceLimits limits;
  limits.max_op_slices = 2;  // 4 ops: every 2nd rank, i.e. rank 0 only
  const nlohmann::json t = trace_events(run.results, limits);
  EXPECT_EQ(t["otherData"]["ranks_with_ops_every"], 2);
  EXPECT_EQ(t["otherData"]["op_slices"], 2);
  std::set<int> pids;
  for (const nlohmann::json& e : of_phase(t, "X"))
    if (e["tid"] != 1000) pids.insert(e["pid"].get<int>());
  EXPECT_EQ(pids, std::set<int>{0});
  EXPECT_TRUE(of_phase(t, "s").empty());  // rank 1's end of the message is not written
  EXPECT_EQ(of_phase(t, "X").size(), 4u);  // rank 0's 2 ops and both finished collectives
}

TEST(TraceEvents, FlowsRunsAreSlicesPerSendingHost) {
  test::SampleRun run;
  test::make_sample_run(run);
  run.results.schedule = nullptr;
  const std::vector<nlohmann::json> slices = of_phase(trace_events(run.results), "X");
  // The second flow never finished.
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0]["name"], "flow 1250B \u2192 host 1");
  EXPECT_DOUBLE_EQ(slices[0]["dur"].get<double>(), 1.1);
}

}  // namespace
}  // namespace collsim::out
