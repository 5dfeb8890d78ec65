#include "collsim/status/run_status.hpp"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

namespace collsim::status {
namespace {

TEST(StatusBoard, StartsRunningWithNothingDone) {
  const StatusBoard board;
  const RunStatus s = board.status();
  EXPECT_EQ(s.state, "running");
  EXPECT_EQ(s.events, 0u);
  EXPECT_EQ(s.ranks, 1u);
  std::int64_t as_of = 0;
  EXPECT_TRUE(board.top_links(10, &as_of).empty());
  EXPECT_EQ(as_of, -1);  // never measured
  EXPECT_FALSE(board.links_requested());
}

TEST(StatusBoard, StatusReturnsWhatWasPublished) {
  StatusBoard board;
  RunStatus published;
  published.sim_time_ps = 7'000'000;
  published.events = 5'000'000'000ULL;  // above 2^32: no narrowing on the way
  published.ops_completed = 3;
  published.ops_total = 9;
  published.ranks = 4;
  published.state = "finished";
  board.publish(published);
  const RunStatus s = board.status();
  EXPECT_EQ(s.sim_time_ps, 7'000'000);
  EXPECT_EQ(s.events, 5'000'000'000ULL);
  EXPECT_EQ(s.ops_completed, 3u);
  EXPECT_EQ(s.ops_total, 9u);
  EXPECT_EQ(s.ranks, 4u);
  EXPECT_EQ(s.state, "finished");
}

TEST(StatusBoard, TopLinksGivesTheFirstNAndWhenTheyWereMeasured) {
  StatusBoard board;
  board.publish_links({{"a -> b", 300, 0.9}, {"b -> c", 200, 0.6}, {"c -> d", 100, 0.3}}, 42'000);
  std::int64_t as_of = 0;
  const auto two = board.top_links(2, &as_of);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].link, "a -> b");
  EXPECT_EQ(two[1].link, "b -> c");
  EXPECT_EQ(as_of, 42'000);
  EXPECT_EQ(board.top_links(100).size(), 3u);  // n beyond the list: all of it
  EXPECT_TRUE(board.top_links(0).empty());
}

TEST(StatusBoard, PublishingLinksAnswersTheRequest) {
  StatusBoard board;
  board.request_links();
  EXPECT_TRUE(board.links_requested());
  board.publish_links({}, 1);
  EXPECT_FALSE(board.links_requested());
}

// A reader never sees half of one publish and half of another: every published status has
// events = 10 × ops_completed and sim_time_ps = 1000 × ops_completed.
TEST(StatusBoard, ReadersSeeWholeSnapshotsWhileTheWriterPublishes) {
  StatusBoard board;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (std::uint64_t i = 1; i <= 20'000; ++i) {
      RunStatus s;
      s.ops_completed = i;
      s.events = 10 * i;
      s.sim_time_ps = static_cast<std::int64_t>(1000 * i);
      s.state = i % 2 == 0 ? "running" : "running, odd";  // a string whose length changes
      board.publish(s);
    }
    done = true;
  });
  std::uint64_t last = 0;
  std::uint64_t reads = 0;
  while (!done || reads == 0) {
    const RunStatus s = board.status();
    ASSERT_EQ(s.events, 10 * s.ops_completed);
    ASSERT_EQ(s.sim_time_ps, static_cast<std::int64_t>(1000 * s.ops_completed));
    ASSERT_GE(s.ops_completed, last);  // one writer: never goes back
    last = s.ops_completed;
    ++reads;
  }
  writer.join();
  EXPECT_EQ(board.status().ops_completed, 20'000u);
}

}  // namespace
}  // namespace collsim::status
