#include "collsim/exec/compute_variation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "collsim/common/input_error.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::exec {
namespace {

SimTime us(std::int64_t v) { return SimTime::us(v); }

TEST(ComputeVariation, NothingSetIsTheSchedule) {
  const ComputeVariation v(ComputeVariationSpec{}, 4);
  EXPECT_EQ(v.calc_end(2, 7, us(10), us(5)), us(15));
  EXPECT_DOUBLE_EQ(v.speed_factor(3), 1.0);
}

TEST(ComputeVariation, NamedStragglersScaleEveryCalc) {
  ComputeVariationSpec s;
  s.slow_ranks = {{3, 1.5}, {1, 2.0}};
  const ComputeVariation v(s, 4);
  EXPECT_EQ(v.calc_end(3, 0, us(0), us(10)), us(15));
  EXPECT_EQ(v.calc_end(1, 9, us(4), us(10)), us(24));
  EXPECT_EQ(v.calc_end(0, 0, us(4), us(10)), us(14));
}

TEST(ComputeVariation, RandomStragglersAreExactlyK) {
  ComputeVariationSpec s;
  s.random_slow = 3;
  s.random_slow_factor = 1.25;
  s.seed = 7;
  const ComputeVariation v(s, 64);
  int slow = 0;
  for (goal::RankId r = 0; r < 64; ++r) {
    if (v.speed_factor(r) == 1.25) ++slow;
    else EXPECT_DOUBLE_EQ(v.speed_factor(r), 1.0);
  }
  EXPECT_EQ(slow, 3);
  // Another seed picks others (with these seeds, at least one differs).
  s.seed = 8;
  const ComputeVariation w(s, 64);
  bool differs = false;
  for (goal::RankId r = 0; r < 64; ++r) differs |= v.speed_factor(r) != w.speed_factor(r);
  EXPECT_TRUE(differs);
}

TEST(ComputeVariation, AStallLengthensTheCalcsItMeets) {
  ComputeVariationSpec s;
  s.stalls = {{0, SimTime::ms(10), SimTime::ms(2)}};
  const ComputeVariation v(s, 2);
  // From 9 ms, 3 ms of work: 1 ms, the 2 ms stall, 2 ms: ends at 14 ms.
  EXPECT_EQ(v.calc_end(0, 0, SimTime::ms(9), SimTime::ms(3)), SimTime::ms(14));
  // Starting inside the stall: waits for its end at 12 ms.
  EXPECT_EQ(v.calc_end(0, 1, SimTime::ms(11), SimTime::ms(1)), SimTime::ms(13));
  // Before it and done in time, after it, or on another rank: untouched.
  EXPECT_EQ(v.calc_end(0, 2, SimTime::ms(5), SimTime::ms(5)), SimTime::ms(10));
  EXPECT_EQ(v.calc_end(0, 3, SimTime::ms(12), SimTime::ms(1)), SimTime::ms(13));
  EXPECT_EQ(v.calc_end(1, 0, SimTime::ms(9), SimTime::ms(3)), SimTime::ms(12));
}

// Into this process's own folder, removed when the tests end (ctest runs several at once).
std::string write_file(const std::string& name, const std::string& text) {
  static const test_support::ScratchDir dir;
  return dir.write(name, text).string();
}

TEST(ComputeVariation, NoiseTraceDetoursRepeatEveryPeriod) {
  // Detours of 5 us at 10 and 50 us of a 100 us period.
  ComputeVariationSpec s;
  s.noise_trace = read_noise_trace(write_file("trace.txt", "# start duration (ns)\n10000\t5000\n50000 5000\n100000 0\n"));
  ASSERT_EQ(s.noise_trace->detours.size(), 2u);
  EXPECT_EQ(s.noise_trace->period, us(100));
  s.noise_cosched = true;
  const ComputeVariation v(s, 3);
  EXPECT_EQ(v.trace_offset(0), v.trace_offset(2));
  // Start at the trace's time 0, one period in: 90 us of work meet both detours and end a
  // period later; 12 us of work meet the first only.
  const SimTime zero = us(100) - v.trace_offset(1);
  EXPECT_EQ(v.calc_end(1, 0, zero, us(90)), zero + us(100));
  EXPECT_EQ(v.calc_end(1, 1, zero, us(12)), zero + us(17));
  EXPECT_EQ(v.calc_end(1, 2, zero, us(10)), zero + us(10));  // done as the detour begins
  // 270 us of work is three periods' worth: six detours.
  EXPECT_EQ(v.calc_end(2, 0, zero, us(270)), zero + us(300));
  // Without co-scheduling the ranks' offsets differ.
  s.noise_cosched = false;
  const ComputeVariation w(s, 3);
  EXPECT_NE(w.trace_offset(0), w.trace_offset(1));
}

TEST(ComputeVariation, OpNoiseIsAFunctionOfRankAndOpWithMeanOne) {
  ComputeVariationSpec s;
  s.op_noise = FactorDistribution{Spread::LogNormal, 0.2};
  const ComputeVariation v(s, 2);
  EXPECT_EQ(v.calc_end(1, 5, us(0), us(100)), v.calc_end(1, 5, us(0), us(100)));
  EXPECT_NE(v.calc_end(1, 5, us(0), us(100)), v.calc_end(1, 6, us(0), us(100)));
  double sum = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(v.calc_end(0, i, us(0), us(1000)).picoseconds());
  EXPECT_NEAR(sum / n / 1e9, 1.0, 0.01);  // mean factor 1 (sigma 0.2 / sqrt(n) = 0.0014)
}

TEST(ComputeVariation, GpuSpeedSpreadDrawsOneFactorPerRank) {
  ComputeVariationSpec s;
  s.gpu_speed = FactorDistribution{Spread::Normal, 0.1};
  const ComputeVariation v(s, 1000);
  double sum = 0, sq = 0;
  for (goal::RankId r = 0; r < 1000; ++r) {
    sum += v.speed_factor(r);
    sq += (v.speed_factor(r) - 1) * (v.speed_factor(r) - 1);
  }
  EXPECT_NEAR(sum / 1000, 1.0, 0.02);
  EXPECT_NEAR(std::sqrt(sq / 1000), 0.1, 0.01);
  EXPECT_EQ(v.calc_end(4, 0, us(0), us(100)), SimTime::ps(std::llround(1e8 * v.speed_factor(4))));
}

TEST(ComputeVariation, PartsAreEachCauseAndTheSpecWithoutIt) {
  ComputeVariationSpec s;
  s.slow_ranks = {{1, 1.5}, {3, 2.0}};
  s.op_noise = FactorDistribution{Spread::Normal, 0.1};
  s.stalls = {{0, us(10), us(5)}};
  const ComputeVariation v(s, 4);
  const std::vector<VariationPart> parts = variation_parts(s, v, 8);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0].label, "rank 3 x2");  // slowest first
  EXPECT_EQ(parts[1].label, "rank 1 x1.5");
  EXPECT_EQ(parts[2].label, "op noise");
  EXPECT_EQ(parts[3].label, "stall of rank 0 at 10us for 5us");
  // Without rank 3: rank 1 still slow.
  const ComputeVariation no3(parts[0].without, 4);
  EXPECT_DOUBLE_EQ(no3.speed_factor(3), 1.0);
  EXPECT_DOUBLE_EQ(no3.speed_factor(1), 1.5);
  EXPECT_FALSE(parts[2].without.op_noise.has_value());
  EXPECT_TRUE(parts[3].without.stalls.empty());
  // Drawn stragglers are held at nominal speed one by one; `most` caps them.
  ComputeVariationSpec r;
  r.random_slow = 5;
  r.random_slow_factor = 3;
  const ComputeVariation rv(r, 16);
  const std::vector<VariationPart> drawn = variation_parts(r, rv, 2);
  ASSERT_EQ(drawn.size(), 2u);
  const ComputeVariation held(drawn[1].without, 16);
  int slow = 0;
  for (goal::RankId k = 0; k < 16; ++k) slow += held.speed_factor(k) == 3.0;
  EXPECT_EQ(slow, 4);
}

TEST(ComputeVariation, BadSettingsAreErrors) {
  ComputeVariationSpec s;
  s.slow_ranks = {{4, 2.0}};
  EXPECT_THROW(ComputeVariation(s, 4), std::invalid_argument);
  s.slow_ranks = {{1, 0.0}};
  EXPECT_THROW(ComputeVariation(s, 4), std::invalid_argument);
  s.slow_ranks.clear();
  s.random_slow = 5;
  EXPECT_THROW(ComputeVariation(s, 4), std::invalid_argument);
  s.random_slow = 0;
  s.stalls = {{0, us(10), us(10)}, {0, us(15), us(1)}};
  EXPECT_THROW(ComputeVariation(s, 4), std::invalid_argument);
  std::string error;
  EXPECT_FALSE(parse_factor_distribution("gauss:0.1", &error));
  EXPECT_NE(error.find("normal, lognormal"), std::string::npos);
  EXPECT_FALSE(parse_factor_distribution("normal:-1", &error));
  EXPECT_TRUE(parse_factor_distribution("lognormal:0.05", &error));
}

TEST(ComputeVariation, BadNoiseTraceNamesTheLine) {
  try {
    read_noise_trace(write_file("bad.txt", "10 5\n# fine\n20 x\n"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3u);
  }
  try {
    read_noise_trace(write_file("overlap.txt", "10 5\n12 1\n100 0\n"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2u);
  }
  EXPECT_THROW(read_noise_trace(write_file("short.txt", "10 5\n")), InputError);
  EXPECT_THROW(read_noise_trace("/nonexistent/trace"), InputError);
}

}  // namespace
}  // namespace collsim::exec
