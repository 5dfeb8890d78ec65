// The LogGOPS event list pops by (time, seq) exactly as a binary heap of the same events
// would, LogGOPSim's std::priority_queue: for events queued at or after the current time,
// at it (with fresh seqs), and before it (LogGOPSim's ready rule), and for retries that keep
// their old seq.

#include "collsim/exec/loggops_event_queue.hpp"

#include <gtest/gtest.h>

#include <queue>
#include <random>
#include <vector>

namespace collsim::exec::loggops {
namespace {

struct After {
  bool operator()(const Event& a, const Event& b) const { return before(b, a); }
};

TEST(LogGOPSEventQueue, PopsInTheOrderOfAPriorityQueue) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    EventQueue q;
    std::priority_queue<Event, std::vector<Event>, After> ref;
    std::uint64_t seq = 0;
    auto push = [&](const Event& e) {
      q.push(e);
      ref.push(e);
    };
    for (int i = 0; i < 50; ++i) push({rng() % 1000, seq++, static_cast<std::uint32_t>(i), 0});
    std::uint64_t popped = 0;
    while (!ref.empty()) {
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(q.size(), ref.size());
      const Event e = q.pop();
      const Event want = ref.top();
      ref.pop();
      ASSERT_EQ(e.time, want.time) << "pop " << popped;
      ASSERT_EQ(e.seq, want.seq) << "pop " << popped;
      ++popped;
      if (popped > 20000) continue;  // then drain
      // What handling it queues: 1-2 events at, after or (rarely) before its time, and
      // sometimes a retry with its own seq.
      const std::uint64_t kinds = rng() % 8;
      for (std::uint64_t k = 0; k < 1 + kinds % 2; ++k) {
        const std::uint64_t r = rng() % 10;
        const std::uint64_t at = r == 0 ? e.time : r == 1 && e.time > 0 ? e.time - rng() % (e.time + 1)
                                                                        : e.time + 1 + rng() % (std::uint64_t{1} << (rng() % 40));
        push({at, seq++, 0, 0});
      }
      if (kinds == 7) push({e.time + 1 + rng() % 5000, e.seq, 0, 0});
    }
    EXPECT_TRUE(q.empty());
    EXPECT_GT(popped, 20000u);
  }
}

}  // namespace
}  // namespace collsim::exec::loggops
