// Pipeline orders: every pass exactly once, dependencies within a stage respected, and the
// warm-up depths of 1F1B and of Megatron's interleaved schedule.

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "collsim/workload/pipeline_schedule.hpp"

namespace collsim::workload {
namespace {

std::size_t leading_forwards(const std::vector<PipelineAction>& a) {
  std::size_t n = 0;
  while (n < a.size() && a[n].forward) ++n;
  return n;
}

TEST(PipelineSchedule, OneFOneBWarmsUpByTheStagesBehind) {
  const std::uint32_t p = 4, m = 8;
  for (std::uint32_t s = 0; s < p; ++s) {
    const auto a = pipeline_actions(PipelineSchedule::OneFOneB, p, s, m, 1);
    ASSERT_EQ(a.size(), 2u * m);
    // Warm-up p - s - 1 forwards, then one more forward before the first backward.
    EXPECT_EQ(leading_forwards(a), p - s) << "stage " << s;
    // Forwards and backwards each in micro-batch order, every backward after its forward.
    std::uint32_t f = 0, b = 0;
    for (const PipelineAction& x : a) {
      if (x.forward) {
        EXPECT_EQ(x.micro_batch, f++);
      } else {
        EXPECT_EQ(x.micro_batch, b++);
        EXPECT_LT(x.micro_batch, f);
      }
    }
  }
}

TEST(PipelineSchedule, OneFOneBWithFewMicroBatchesRunsAllForwardsFirst) {
  const auto a = pipeline_actions(PipelineSchedule::OneFOneB, 8, 0, 3, 1);
  EXPECT_EQ(leading_forwards(a), 3u);
  EXPECT_EQ(a.size(), 6u);
}

TEST(PipelineSchedule, InterleavedRunsEveryChunkOfEveryMicroBatchOnce) {
  const std::uint32_t p = 4, m = 8, v = 3;
  for (std::uint32_t s = 0; s < p; ++s) {
    const auto a = pipeline_actions(PipelineSchedule::Interleaved, p, s, m, v);
    ASSERT_EQ(a.size(), 2u * m * v);
    std::set<std::tuple<bool, std::uint32_t, std::uint32_t>> seen;
    std::set<std::pair<std::uint32_t, std::uint32_t>> forwarded;
    for (const PipelineAction& x : a) {
      EXPECT_TRUE(seen.insert({x.forward, x.micro_batch, x.chunk}).second);
      if (x.forward) {
        // The chunk before on this stage ran this micro-batch already.
        if (x.chunk > 0) {
          EXPECT_TRUE(forwarded.count({x.micro_batch, x.chunk - 1}));
        }
        forwarded.insert({x.micro_batch, x.chunk});
      } else {
        EXPECT_TRUE(forwarded.count({x.micro_batch, x.chunk}));
      }
    }
    // Megatron's warm-up: (p - s - 1) * 2 + (v - 1) * p forwards, then the first 1F1B pair.
    EXPECT_EQ(leading_forwards(a), (p - s - 1) * 2 + (v - 1) * p + 1) << "stage " << s;
    // The first backward is of the last chunk.
    EXPECT_EQ(a[leading_forwards(a)].chunk, v - 1);
  }
}

TEST(PipelineSchedule, InterleavingNeedsMicroBatchesInWholeGroups) {
  EXPECT_THROW(pipeline_actions(PipelineSchedule::Interleaved, 4, 0, 6, 2), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::workload
