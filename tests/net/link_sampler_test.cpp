// Link samples: bytes per period add up to the link's total, each period holds the bits that
// went on the wire in it, the period doubles to keep memory bounded, and a bottleneck's queue
// shows up.

#include <gtest/gtest.h>

#include <numeric>

#include "fabric_test_util.hpp"

namespace collsim::net {
namespace {

using testing::chain;
using testing::gbps;
using testing::ns;

FlowRun sampled_run(const topo::Topology& t, const std::vector<FlowSpec>& flows, SimTime interval,
                    std::size_t max_samples) {
  auto transport = pdes::make_local_transport();
  FabricOptions options;
  options.sample_interval = interval;
  options.max_samples = max_samples;
  return run_flows(t, FabricParams{}, *transport, options, flows);
}

std::uint64_t column_sum(const LinkSamples& s, std::size_t column, std::size_t width) {
  std::uint64_t sum = 0;
  for (std::size_t t = 0; t < s.time_ps.size(); ++t) sum += s.bytes[t * width + column];
  return sum;
}

TEST(LinkSampler, PeriodsHoldTheBitsSentInThemAndAddUpToTheTotal) {
  // h0 - s0 - h1 at 100 Gb/s (80 ps per byte), 1 us per link. 1,000,000 B leave h0 as 244
  // packets of 4160 wire bytes and one of 640, back to back: packet k begins at k x 332.8 ns.
  const topo::Topology t = chain({ns(1000), ns(1000)}, gbps(100));
  const auto run = sampled_run(t, {{0, 1, 1'000'000, SimTime::zero()}}, SimTime::us(10), 1024);
  const LinkSamples& s = run.link_samples;
  const std::size_t width = 4;  // two links, two directions each
  ASSERT_EQ(s.interval_ps, 10'000'000);
  ASSERT_FALSE(s.time_ps.empty());
  ASSERT_EQ(s.bytes.size(), s.time_ps.size() * width);
  ASSERT_EQ(s.queue_bytes.size(), s.bytes.size());
  for (std::size_t i = 0; i < s.time_ps.size(); ++i) EXPECT_EQ(s.time_ps[i], static_cast<std::int64_t>(i + 1) * 10'000'000);
  // The sender's link is busy from 0 to 81.25 us, so each full period holds 10 us at
  // 12.5 B/ns = 125,000 B, although packets straddle the boundaries (packet 30 goes out from
  // 9.984 to 10.3168 us: 16 ns of it, 200 B, in the first period).
  EXPECT_EQ(s.bytes[0], 125'000u);
  EXPECT_EQ(s.bytes[width], 125'000u);
  for (std::size_t column = 0; column < width; ++column)
    EXPECT_EQ(column_sum(s, column, width), run.link_bytes[column]) << "direction " << column;
  EXPECT_EQ(run.link_bytes[0], 244u * 4160u + 640u);
  // The last ACK reaches h0 at 85.6 us (see SingleFlow): the last sample closes [80, 90 us).
  EXPECT_EQ(s.time_ps.back(), 90'000'000);
}

TEST(LinkSampler, DoublesThePeriodInsteadOfGrowingPastItsBound) {
  // As above, sampled every 1 us but keeping at most 4 samples: full at 4 us (period 2 us),
  // at 8 us (4 us), 16 us (8 us), 32 us (16 us), 64 us (32 us); the run ends at 85.6 us, so
  // the last sample closes [64, 96 us).
  const topo::Topology t = chain({ns(1000), ns(1000)}, gbps(100));
  const auto run = sampled_run(t, {{0, 1, 1'000'000, SimTime::zero()}}, SimTime::us(1), 4);
  const LinkSamples& s = run.link_samples;
  EXPECT_EQ(s.interval_ps, 32'000'000);
  EXPECT_EQ(s.time_ps, (std::vector<std::int64_t>{32'000'000, 64'000'000, 96'000'000}));
  // [0, 32 us) at line rate: 32 us x 12.5 B/ns.
  EXPECT_EQ(s.bytes[0], 400'000u);
  EXPECT_EQ(column_sum(s, 0, 4), run.link_bytes[0]);
}

TEST(LinkSampler, ABottleneckQueueFillsAndEmpties) {
  // Two senders to one receiver through one switch: the switch's port to h2 gets two packets
  // for each it can send, so its queue grows while both send and is empty at the end.
  const topo::Topology t = testing::star(3, gbps(100), ns(1000));
  const auto run = sampled_run(t, {{0, 2, 2'000'000, SimTime::zero()}, {1, 2, 2'000'000, SimTime::zero()}},
                               SimTime::us(5), 1024);
  const LinkSamples& s = run.link_samples;
  const std::size_t width = 6;
  const std::size_t to_h2 = 2 * 2 + 1;  // link 2 is h2 - s; s -> h2 is its b -> a direction
  std::uint64_t peak = 0;
  for (std::size_t i = 0; i < s.time_ps.size(); ++i) peak = std::max(peak, s.queue_bytes[i * width + to_h2]);
  EXPECT_GT(peak, 10u * 4160u);
  EXPECT_EQ(s.queue_bytes[(s.time_ps.size() - 1) * width + to_h2], 0u);
  EXPECT_EQ(column_sum(s, to_h2, width), run.link_bytes[to_h2]);
}

TEST(LinkSampler, RejectsAnOddOrTinyBound) {
  const topo::Topology t = chain({ns(1000)}, gbps(100));
  EXPECT_THROW(LinkSampler(t, SimTime::us(1), 3), std::invalid_argument);
  EXPECT_THROW(LinkSampler(t, SimTime::us(1), 0), std::invalid_argument);
  EXPECT_THROW(LinkSampler(t, SimTime::zero(), 8), std::invalid_argument);
}

}  // namespace
}  // namespace collsim::net
