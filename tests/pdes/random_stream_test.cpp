// Per-LP random streams: reproducible from (seed, stream id), distinct across both, and
// the derived distributions are what they claim. Seeds are fixed, so the statistical
// checks are deterministic; their bounds are several standard errors wide all the same.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "collsim/pdes/random_stream.hpp"

namespace collsim::pdes {
namespace {

std::vector<std::uint64_t> draws(RandomStream r, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(r.next_u64());
  return out;
}

// Positions where two sequences agree: two independent 64-bit streams agree at a given
// position with probability 2^-64, so any agreement means they are related.
int agreements(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  int n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] == b[i];
  return n;
}

TEST(RandomStream, SameSeedAndStreamGiveTheSameSequence) {
  EXPECT_EQ(draws(RandomStream(7, 3), 1000), draws(RandomStream(7, 3), 1000));
  EXPECT_EQ(draws(RandomStream(), 100), draws(RandomStream(0, 0), 100));
}

TEST(RandomStream, StreamsAndSeedsAreIndependent) {
  const auto base = draws(RandomStream(7, 3), 200);
  EXPECT_EQ(agreements(base, draws(RandomStream(7, 4), 200)), 0);  // neighbouring stream
  EXPECT_EQ(agreements(base, draws(RandomStream(8, 3), 200)), 0);  // neighbouring seed
  EXPECT_EQ(agreements(base, draws(RandomStream(3, 7), 200)), 0);  // seed and stream swapped
  // Nor is one stream the other shifted by a few steps.
  const auto next = draws(RandomStream(7, 4), 210);
  for (std::size_t shift = 1; shift < 10; ++shift)
    EXPECT_EQ(agreements(base, std::vector<std::uint64_t>(next.begin() + static_cast<std::ptrdiff_t>(shift), next.end())), 0);
}

TEST(RandomStream, BelowStaysInRangeAndCoversIt) {
  RandomStream r(42, 1);
  constexpr int kN = 7, kDraws = 70'000;
  int count[kN] = {};
  for (int i = 0; i < kDraws; ++i) {
    const std::uint64_t v = r.below(kN);
    ASSERT_LT(v, std::uint64_t{kN});
    ++count[v];
  }
  // Each value is expected 10000 times, standard deviation sqrt(70000 * 1/7 * 6/7) = 93.
  for (int v = 0; v < kN; ++v) EXPECT_NEAR(count[v], kDraws / kN, 500) << "value " << v;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(r.below(1), 0u);
  // A range just above 2^63, where rejection sampling rejects almost half the raw draws.
  // Its four quarters, [k 2^61, (k + 1) 2^61), each get about 250 of 1000 draws (sd 14).
  const std::uint64_t big = (std::uint64_t{1} << 63) + 1;
  int quarter[5] = {};
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t v = r.below(big);
    ASSERT_LT(v, big);
    ++quarter[v >> 61];  // 4 only for v = 2^63 itself
  }
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(quarter[k], 250, 70) << "quarter " << k;
}

TEST(RandomStream, UniformIsInTheUnitInterval) {
  RandomStream r(5, 9);
  double sum = 0;
  int below_quarter = 0;
  constexpr int kDraws = 100'000;
  for (int i = 0; i < kDraws; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    below_quarter += u < 0.25;
  }
  // Mean 1/2 with standard error sqrt(1/12 / 1e5) = 0.0009.
  EXPECT_NEAR(sum / kDraws, 0.5, 0.005);
  EXPECT_NEAR(below_quarter, kDraws / 4, 700);  // sd sqrt(1e5 * 3/16) = 137
}

TEST(RandomStream, ExponentialHasTheRequestedMean) {
  RandomStream r(11, 2);
  constexpr int kDraws = 100'000;
  constexpr double kMean = 250.0;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double x = r.exponential(kMean);
    ASSERT_GE(x, 0.0);
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / kDraws;
  // The standard deviation of an exponential equals its mean, so the standard error of the
  // sample mean is 250 / sqrt(1e5) = 0.8: 2 % of the mean is 6 standard errors.
  EXPECT_NEAR(mean, kMean, 0.02 * kMean);
  EXPECT_NEAR(std::sqrt(sum_sq / kDraws - mean * mean), kMean, 0.05 * kMean);
}

}  // namespace
}  // namespace collsim::pdes
