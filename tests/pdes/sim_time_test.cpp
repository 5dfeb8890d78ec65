// SimTime arithmetic and the text form of durations. parse_duration is the one place where
// units enter the simulator, so every accepted form and every way to be rejected is pinned.

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "collsim/common/sim_time.hpp"
#include "pdes_test_util.hpp"

namespace collsim::pdes {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(SimTime, UnitsArePowersOfTenOfPicoseconds) {
  EXPECT_EQ(SimTime::ns(1), SimTime::ps(1000));
  EXPECT_EQ(SimTime::us(1), SimTime::ns(1000));
  EXPECT_EQ(SimTime::ms(1), SimTime::us(1000));
  EXPECT_EQ(SimTime::s(1), SimTime::ms(1000));
  EXPECT_EQ(SimTime::s(3).picoseconds(), 3'000'000'000'000);
  EXPECT_EQ(SimTime().picoseconds(), 0);
  EXPECT_EQ(SimTime::zero(), SimTime::ps(0));
  EXPECT_DOUBLE_EQ(SimTime::ms(2).seconds(), 2e-3);
  EXPECT_EQ(SimTime::infinity().picoseconds(), kMax);
  EXPECT_TRUE(SimTime::infinity().is_infinite());
  EXPECT_FALSE(SimTime::ps(kMax - 1).is_infinite());
}

TEST(SimTime, Arithmetic) {
  const SimTime a = SimTime::ns(3), b = SimTime::ps(500);
  EXPECT_EQ((a + b).picoseconds(), 3500);
  EXPECT_EQ((a - b).picoseconds(), 2500);
  EXPECT_EQ((b - a).picoseconds(), -2500);  // differences may be negative
  EXPECT_EQ((a * 4).picoseconds(), 12000);
  EXPECT_EQ(a / b, 6);                            // 3000 / 500
  EXPECT_EQ(SimTime::ns(7) / SimTime::ns(2), 3);  // whole periods, truncated
  SimTime c = a;
  c += b;
  EXPECT_EQ(c, SimTime::ps(3500));
  EXPECT_LT(b, a);
  EXPECT_LT(SimTime::s(1'000'000), SimTime::infinity());
}

TEST(SimTime, SaturatingAddStopsAtInfinity) {
  EXPECT_EQ(SimTime::ns(1).saturating_add(SimTime::ns(2)), SimTime::ns(3));
  // (max - 10) + 9 = max - 1 is still finite; + 10 reaches max, which is infinity itself;
  // + 11 would overflow and saturates instead.
  EXPECT_EQ(SimTime::ps(kMax - 10).saturating_add(SimTime::ps(9)).picoseconds(), kMax - 1);
  EXPECT_EQ(SimTime::ps(kMax - 10).saturating_add(SimTime::ps(10)), SimTime::infinity());
  EXPECT_EQ(SimTime::ps(kMax - 10).saturating_add(SimTime::ps(11)), SimTime::infinity());
  EXPECT_EQ(SimTime::ns(5).saturating_add(SimTime::infinity()), SimTime::infinity());
  EXPECT_EQ(SimTime::infinity().saturating_add(SimTime::ps(1)), SimTime::infinity());
  EXPECT_EQ(SimTime::infinity().saturating_add(SimTime::zero()), SimTime::infinity());
}

std::int64_t parsed(const std::string& text) {
  std::string error;
  const auto t = parse_duration(text, &error);
  EXPECT_TRUE(t.has_value()) << "'" << text << "': " << error;
  return t ? t->picoseconds() : -1;
}

// Returns the error message; expects the text to be rejected.
std::string rejected(const std::string& text) {
  std::string error;
  const auto t = parse_duration(text, &error);
  EXPECT_FALSE(t.has_value()) << "'" << text << "' parsed as " << (t ? t->picoseconds() : 0) << "ps";
  EXPECT_NE(error.find("'" + text + "'"), std::string::npos) << "the message should quote the input: " << error;
  return error;
}

TEST(ParseDuration, AcceptsANumberAndAUnit) {
  EXPECT_EQ(parsed("1.5us"), 1'500'000);
  EXPECT_EQ(parsed("500 ns"), 500'000);
  EXPECT_EQ(parsed("2ms"), 2'000'000'000);
  EXPECT_EQ(parsed("10ps"), 10);
  EXPECT_EQ(parsed("3s"), 3'000'000'000'000);
  EXPECT_EQ(parsed("0"), 0);  // the one number that needs no unit
  EXPECT_EQ(parsed("0.001ns"), 1);
  EXPECT_EQ(parsed("  7ns "), 7'000);
  EXPECT_EQ(parsed("1.250ms"), 1'250'000'000);
  EXPECT_EQ(parsed("0.000000000001s"), 1);  // 12 decimals, the most allowed: 1e-12 s
  // The largest finite time is 2^63 - 2 ps (2^63 - 1 is infinity), in any unit:
  // 9223372 s + 036854775806 ps.
  EXPECT_EQ(parsed("9223372036854775806ps"), kMax - 1);
  EXPECT_EQ(parsed("9223372.036854775806s"), kMax - 1);
}

TEST(ParseDuration, RejectsWithAReason) {
  auto says = [](const std::string& text, const std::string& why) {
    const std::string error = rejected(text);
    EXPECT_NE(error.find(why), std::string::npos) << "'" << text << "': " << error;
  };
  says("", "no number");
  says("-1ns", "no number");
  says("5", "missing unit");
  says("1.5", "missing unit");
  says("1xs", "unknown unit 'xs'");
  says("0.0001ns", "not a whole number of picoseconds");  // 0.1 ps
  says("1.2345678901234us", "more than 12 decimals");     // 13 decimals
  says("9223372036854775807ps", "too large");              // 2^63 - 1 is infinity
  says("99999999999999999999ps", "too large");             // overflows while reading digits
  says("9223373s", "too large");                           // 9.223373e18 ps > 2^63
  says("9223372.036854775807s", "too large");              // 2^63 - 1 again, via the fraction
  // Without an error string it still just fails.
  EXPECT_FALSE(parse_duration("1xs").has_value());
}

TEST(FormatDuration, LargestUnitThatKeepsItShort) {
  EXPECT_EQ(format_duration(SimTime::ps(1'500'000)), "1.5us");
  EXPECT_EQ(format_duration(SimTime::ps(800)), "800ps");
  EXPECT_EQ(format_duration(SimTime::ps(2'000'000)), "2us");
  EXPECT_EQ(format_duration(SimTime::infinity()), "inf");
  EXPECT_EQ(format_duration(SimTime::zero()), "0ps");
  EXPECT_EQ(format_duration(SimTime::ns(999)), "999ns");
  EXPECT_EQ(format_duration(SimTime::ms(1500)), "1.5s");
  EXPECT_EQ(format_duration(SimTime::ps(-1500)), "-1.5ns");
  // What it prints parses back to the same time.
  for (const std::int64_t ps : std::initializer_list<std::int64_t>{1, 999, 1'000, 1'001, 1'500'000, 123'456, 2'000'000'000'000})
    EXPECT_EQ(parsed(format_duration(SimTime::ps(ps))), ps) << format_duration(SimTime::ps(ps));
}

// The header promises "the shortest exact form". It used to print with printf's %.6g,
// which rounds: 1000001 ps came out as "1us", so SimulationError messages could say
// "scheduled an event for t=1us, before its current time t=1us".
TEST(FormatDuration, IsExactForEveryTime) {
  EXPECT_EQ(format_duration(SimTime::ps(1'000'001)), "1.000001us");
  EXPECT_EQ(format_duration(SimTime::ps(1'234'567)), "1.234567us");
  EXPECT_EQ(format_duration(SimTime::ps(1'000'000'000'010)), "1.00000000001s");  // leading zeros kept
  // The most negative time: 2^63 ps = 9223372 s + 36854775808 ps, as 12 decimals.
  EXPECT_EQ(format_duration(SimTime::ps(std::numeric_limits<std::int64_t>::min())), "-9223372.036854775808s");
  for (const std::int64_t ps : std::initializer_list<std::int64_t>{1'000'001, 1'234'567, 9'999'999'999, 3'000'000'000'001})
    EXPECT_EQ(parsed(format_duration(SimTime::ps(ps))), ps) << format_duration(SimTime::ps(ps));
}

TEST(Duration, CarriesFractionsOfAMicrosecond) {
  const Duration launch = Duration::us(8.4);
  EXPECT_DOUBLE_EQ(launch.microseconds(), 8.4);
  EXPECT_DOUBLE_EQ(launch.nanoseconds(), 8400);
  EXPECT_DOUBLE_EQ((launch + Duration::us(1.6)).microseconds(), 10.0);
  EXPECT_DOUBLE_EQ((2.0 * launch - launch).microseconds(), 8.4);
  EXPECT_DOUBLE_EQ((launch / 4).microseconds(), 2.1);
  EXPECT_DOUBLE_EQ(Duration::us(3) / Duration::us(2), 1.5);
  EXPECT_LT(Duration::zero(), launch);
  EXPECT_EQ(Duration(), Duration::zero());
}

TEST(Duration, ComparesAsItsDoubleDoes) {
  // A NaN is neither above nor below anything, so a check such as !(d >= 0) rejects it.
  const Duration nan = Duration::us(std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(nan >= Duration::zero());
  EXPECT_FALSE(nan <= Duration::zero());
  const Duration same = nan;
  EXPECT_FALSE(nan == same);
}

TEST(Duration, ConvertsToAndFromSimTime) {
  EXPECT_DOUBLE_EQ(to_duration(SimTime::ps(1'500'000)).microseconds(), 1.5);
  EXPECT_DOUBLE_EQ(to_duration(SimTime::ps(1)).microseconds(), 1e-6);
  // Into the simulator to the nearest nanosecond.
  EXPECT_EQ(nearest_ns(Duration::us(8.4)), SimTime::ns(8'400));
  EXPECT_EQ(nearest_ns(Duration::us(12.3456)), SimTime::ns(12'346));
  EXPECT_EQ(nearest_ns(Duration::us(0.0004)), SimTime::zero());
  EXPECT_EQ(nearest_ns(to_duration(SimTime::us(30))), SimTime::us(30));
}

}  // namespace
}  // namespace collsim::pdes
