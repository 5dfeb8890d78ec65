// The example models as end-to-end checks of the kernel: a run is a function of its
// configuration alone, whichever queue holds the events and however the LPs are placed.
// The checksums hash every LP's ordered history, so any change of event order shows.

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "collsim/pdes/transport.hpp"
#include "collsim/pdes_models/phold.hpp"
#include "collsim/pdes_models/token_torus.hpp"
#include "pdes_test_util.hpp"

namespace collsim::pdes_models {
namespace {

using pdes::PartitionMethod;
using pdes::QueueKind;

// 64 LPs with 4 events each in flight, every hop 1 us + an exponential 100 ns on average.
PholdConfig small_phold() {
  PholdConfig c;
  c.lps = 64;
  c.events_per_lp = 4;
  c.end = SimTime::us(50);
  return c;
}

PholdResult phold(const PholdConfig& c) {
  const auto transport = pdes::make_local_transport();
  return run_phold(c, *transport);
}

TEST(Phold, IsReproducibleAndSeedDependent) {
  const PholdResult a = phold(small_phold());
  const PholdResult b = phold(small_phold());
  EXPECT_EQ(a.checksum, b.checksum);
  EXPECT_EQ(a.stats.events, b.stats.events);
  EXPECT_EQ(a.stats.end_time, b.stats.end_time);
  // 256 chains of events, each hop 1.1 us on average: about 50 / 1.1 = 45 events per chain
  // by 50 us, 11600 in all (the spread of the total is a few tens).
  EXPECT_GT(a.stats.events, 11'000u);
  EXPECT_LT(a.stats.events, 12'200u);
  EXPECT_LE(a.stats.end_time, SimTime::us(50));
  EXPECT_GT(a.stats.end_time, SimTime::us(49));

  PholdConfig other = small_phold();
  other.seed = 2;
  EXPECT_NE(phold(other).checksum, a.checksum);
}

TEST(Phold, CalendarQueueGivesTheSameRun) {
  PholdConfig c = small_phold();
  const PholdResult heap = phold(c);
  c.queue = QueueKind::Calendar;
  const PholdResult calendar = phold(c);
  EXPECT_EQ(calendar.checksum, heap.checksum);
  EXPECT_EQ(calendar.stats.events, heap.stats.events);
  EXPECT_EQ(calendar.stats.end_time, heap.stats.end_time);
}

TEST(Phold, RejectsBadParameters) {
  PholdConfig c = small_phold();
  c.lps = 0;
  EXPECT_THROW(phold(c), std::invalid_argument);
  c = small_phold();
  c.remote = 1.5;
  EXPECT_THROW(phold(c), std::invalid_argument);
  c = small_phold();
  c.mean_delay = SimTime::ps(-1);
  EXPECT_THROW(phold(c), std::invalid_argument);
}

TokenTorusConfig small_torus() {
  TokenTorusConfig c;
  c.width = 4;
  c.height = 4;
  c.end = SimTime::us(100);
  return c;
}

TokenTorusResult torus(const TokenTorusConfig& c) {
  const auto transport = pdes::make_local_transport();
  return run_token_torus(c, *transport);
}

TEST(TokenTorus, SameRunForEveryQueueAndPartitionMethod) {
  const TokenTorusResult base = torus(small_torus());
  EXPECT_GT(base.delivered, 0u);
  EXPECT_GT(base.stats.events, base.delivered);
  // Dimension-order routes on a 4-ring are 0, 1, 2, 1 hops long; over the 15 other routers
  // of a 4 x 4 torus the X and Y parts sum to 16 + 16, a mean of 32 / 15 = 2.13 hops. About
  // 1900 tokens are delivered, so the sample mean is within a few hundredths of it.
  EXPECT_NEAR(base.mean_hops, 32.0 / 15.0, 0.15);

  EXPECT_EQ(torus(small_torus()).checksum, base.checksum);
  TokenTorusConfig c = small_torus();
  c.queue = QueueKind::Calendar;
  const TokenTorusResult calendar = torus(c);
  EXPECT_EQ(calendar.checksum, base.checksum);
  EXPECT_EQ(calendar.stats.events, base.stats.events);
  EXPECT_EQ(calendar.delivered, base.delivered);
  for (const auto method : {PartitionMethod::Block, PartitionMethod::RoundRobin, PartitionMethod::Random, PartitionMethod::Metis}) {
    c = small_torus();
    c.partition = method;
    const TokenTorusResult r = torus(c);
    EXPECT_EQ(r.checksum, base.checksum) << "method " << static_cast<int>(method);
    EXPECT_EQ(r.stats.events, base.stats.events) << "method " << static_cast<int>(method);
  }
  c = small_torus();
  c.seed = 2;
  EXPECT_NE(torus(c).checksum, base.checksum);
}

TEST(TokenTorus, RejectsBadParameters) {
  TokenTorusConfig c = small_torus();
  c.width = 1;
  c.height = 1;
  EXPECT_THROW(torus(c), std::invalid_argument);
  c = small_torus();
  c.y_latency = SimTime::zero();
  EXPECT_THROW(torus(c), std::invalid_argument);
}

TEST(TokenTorus, GraphHasRoutersHostsAndLinks) {
  TokenTorusConfig c;
  c.width = 4;
  c.height = 3;
  const pdes::LpGraph g = token_torus_graph(c);
  // 12 routers (0..11) and their 12 hosts (12..23).
  ASSERT_EQ(g.num_lps, 24u);
  ASSERT_EQ(g.weight.size(), 24u);
  EXPECT_EQ(g.weight[0], 3u);
  EXPECT_EQ(g.weight[12], 1u);
  int host_links = 0, x_links = 0, y_links = 0;
  std::set<std::pair<pdes::LpId, pdes::LpId>> router_pairs;
  for (const auto& e : g.edges) {
    if (e.latency == SimTime::zero()) {
      ++host_links;
      EXPECT_LT(e.a, 12u);
      EXPECT_EQ(e.b, e.a + 12);
      continue;
    }
    ASSERT_LT(e.a, 12u);
    ASSERT_LT(e.b, 12u);
    router_pairs.insert({std::min(e.a, e.b), std::max(e.a, e.b)});
    if (e.latency == c.x_latency) {
      ++x_links;
      EXPECT_EQ(e.a / 4, e.b / 4);  // same row
      EXPECT_EQ(e.b % 4, (e.a % 4 + 1) % 4);
    } else {
      ++y_links;
      EXPECT_EQ(e.latency, c.y_latency);
      EXPECT_EQ(e.a % 4, e.b % 4);  // same column
      EXPECT_EQ(e.b / 4, (e.a / 4 + 1) % 3);
    }
  }
  // With W, H > 2 every router has four distinct neighbours: 2 W H = 24 distinct links.
  EXPECT_EQ(host_links, 12);
  EXPECT_EQ(x_links, 12);
  EXPECT_EQ(y_links, 12);
  EXPECT_EQ(router_pairs.size(), 24u);
}

}  // namespace
}  // namespace collsim::pdes_models
