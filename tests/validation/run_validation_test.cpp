// A run of an nccl-tests log against a simulator whose times are known: what validate_run
// compares, extrapolates, reports and refuses, independent of the packet model.

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "collsim/validation/bandwidth_formulas.hpp"
#include "collsim/validation/option_error.hpp"
#include "collsim/validation/run_validation.hpp"
#include "log_fixture.hpp"

namespace collsim::validation {
namespace {

std::uint64_t bytes_sent(const goal::Schedule& schedule) {
  std::uint64_t bytes = 0;
  for (goal::RankId r = 0; r < schedule.num_ranks(); ++r) {
    const goal::RankOps ops = schedule.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
      if (ops.kind(i) == goal::OpKind::Send) bytes += ops.size(i);
  }
  return bytes;
}

// 5 us plus 10 ps for every byte any rank sends: far slower than the links, so that the wire
// floor never binds and the time is linear in the size everywhere.
class LinearSimulator final : public ScheduleSimulator {
 public:
  std::optional<SimulatedSchedule> simulate(const topo::Topology&, const goal::Schedule& schedule,
                                            const FabricSettings& fabric) override {
    fabrics.push_back(fabric);
    SimulatedSchedule s;
    s.makespan = SimTime::ps(5'000'000 + 10 * static_cast<std::int64_t>(bytes_sent(schedule)));
    s.events = 7;
    return s;
  }
  std::vector<FabricSettings> fabrics;
};

// Log 12: allreduce on 2 A100s of one node, 128, 256 and 512 MiB, one thread driving both.
struct Log12 {
  LogFile log = testing::read_log("12");
  ValidationRequest request;
  Log12() {
    request.algorithm = "ring";
    request.protocol = "Simple";
  }
  ValidationSetup setup() const { return resolve_setup(log.runs.at(0), request); }
};

TEST(RunValidation, ComparesEverySizeWithTheSimulatedTimeAndNcclTestsFormulas) {
  Log12 l;
  LinearSimulator sim;
  const RunValidation v = validate_run(l.log.runs[0], 0, l.setup(), l.request, sim);
  ASSERT_EQ(v.sizes.size(), 3u);
  for (const SizeComparison& c : v.sizes) {
    // A ring allreduce over 2 ranks sends 2(n-1)/n * S per rank: 2S in all.
    const double expected_us = 5.0 + 10e-6 * 2.0 * static_cast<double>(c.bytes);
    EXPECT_NEAR(c.collective.microseconds(), expected_us, 1e-6 * expected_us) << c.bytes;
    EXPECT_EQ(c.simulated, c.collective);  // far above 2 GPUs x 4.25 us of enqueueing
    EXPECT_DOUBLE_EQ(c.error, c.measured / c.simulated - 1.0);
    // nccl-tests' busbw of allreduce on 2 ranks: S/t * 2(n-1)/n = S/t.
    EXPECT_NEAR(c.simulated_busbw, static_cast<double>(c.bytes) / c.simulated.microseconds() / 1e3,
                1e-9 * c.simulated_busbw);
    EXPECT_EQ(c.path, collectives::ChunkPath::Ring);
    EXPECT_EQ(c.protocol, collectives::Protocol::Simple);
    EXPECT_FALSE(c.nvls);
    EXPECT_EQ(c.algorithm.rfind("ring Simple x", 0), 0u) << c.algorithm;
  }
  EXPECT_EQ(v.sizes[0].bytes, 128u << 20);
  EXPECT_EQ(v.sizes[0].measured, Duration::us(857.6));
  EXPECT_TRUE(v.skipped.empty());
  EXPECT_EQ(v.summary.large_sizes, 3u);
}

TEST(RunValidation, ExtrapolatesSizesAboveThePacketBudgetAlongTheLine) {
  Log12 l;
  // 64 packets of 32 KiB over 2 senders: everything above 1 MiB is extrapolated from 512 KiB
  // and 1 MiB (and 256 KiB checks that the line is straight).
  l.request.max_packets = 64;
  LinearSimulator sim;
  const RunValidation v = validate_run(l.log.runs[0], 0, l.setup(), l.request, sim);
  ASSERT_EQ(v.sizes.size(), 3u);
  EXPECT_EQ(sim.fabrics.size(), 3u);  // 256 KiB, 512 KiB and 1 MiB, once each for all three sizes
  for (const SizeComparison& c : v.sizes) {
    const double expected_us = 5.0 + 10e-6 * 2.0 * static_cast<double>(c.bytes);
    EXPECT_NEAR(c.collective.microseconds(), expected_us, 1e-6 * expected_us) << c.bytes;
    EXPECT_NE(c.algorithm.find("extrapolated from 512KiB and 1MiB"), std::string::npos) << c.algorithm;
    EXPECT_EQ(c.algorithm.find("not yet linear"), std::string::npos) << c.algorithm;
  }
}

TEST(RunValidation, ReportsProgressPerRowAndEventsPerSimulation) {
  Log12 l;
  LinearSimulator sim;
  std::uint64_t rows = 0, events = 0;
  validate_run(l.log.runs[0], 0, l.setup(), l.request, sim, [&](std::uint64_t r, std::uint64_t e) {
    rows += r;
    events += e;
  });
  EXPECT_EQ(rows, 3u);
  EXPECT_EQ(events, 7u * sim.fabrics.size());
}

TEST(RunValidation, ScalesPacketsAndSwitchThresholdsWithTheChunk) {
  const FabricSettings small = fabric_settings(4096, 0);
  EXPECT_EQ(small.header_bytes, 64u);
  EXPECT_EQ(small.pfc_xoff_bytes, 256u * 1024);
  EXPECT_EQ(small.pfc_xon_bytes, 128u * 1024);
  EXPECT_EQ(small.ecn_kmin_bytes, 100u * 1024);
  EXPECT_EQ(small.ecn_kmax_bytes, 400u * 1024);
  // 32 KiB packets: 8 times the bytes, the same number of packets.
  const FabricSettings large = fabric_settings(32768, 0);
  EXPECT_EQ(large.header_bytes, 512u);
  EXPECT_EQ(large.pfc_xoff_bytes, 8u * 256 * 1024);
  EXPECT_EQ(large.ecn_kmax_bytes, 8u * 400 * 1024);
  // A head's window of chunks that the switch must hold raises the pause threshold.
  EXPECT_EQ(fabric_settings(4096, 3u << 20).pfc_xoff_bytes, 3u << 20);
}

TEST(RunValidation, ARankWithoutTheResultComparesNothing) {
  struct Elsewhere final : ScheduleSimulator {
    std::optional<SimulatedSchedule> simulate(const topo::Topology&, const goal::Schedule&,
                                              const FabricSettings&) override {
      return std::nullopt;
    }
  } sim;
  Log12 l;
  EXPECT_TRUE(validate_run(l.log.runs[0], 0, l.setup(), l.request, sim).sizes.empty());
}

TEST(RunValidation, ASimulationThatDoesNotCompleteIsAnError) {
  struct Stalls final : ScheduleSimulator {
    std::optional<SimulatedSchedule> simulate(const topo::Topology&, const goal::Schedule&,
                                              const FabricSettings&) override {
      SimulatedSchedule s;
      s.complete = false;
      s.ops_completed = 3;
      s.ops_total = 10;
      s.why_incomplete = "; PFC deadlock: a -> b -> a";
      return s;
    }
  } sim;
  Log12 l;
  try {
    validate_run(l.log.runs[0], 0, l.setup(), l.request, sim);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the simulation of 134217728 B did not complete (3 of 10 ops; PFC deadlock: a -> b -> a)");
  }
}

TEST(RunValidation, RefusesAlgorithmsTheSystemCannotRun) {
  Log12 l;
  LinearSimulator sim;
  const auto option_of = [&](const char* algorithm, const char* protocol) -> std::string {
    l.request.algorithm = algorithm;
    l.request.protocol = protocol;
    try {
      validate_run(l.log.runs[0], 0, l.setup(), l.request, sim);
    } catch (const OptionError& e) {
      return e.option();
    }
    return "";
  };
  EXPECT_EQ(option_of("nvls", "auto"), "--algo");             // an A100 has no NVLS
  EXPECT_EQ(option_of("collnet_chain", "LL"), "--proto");     // CollNet runs Simple only
  EXPECT_EQ(option_of("collnet_chain", "auto"), "--algo");    // dgx-a100 has SHARP, but one node
  EXPECT_TRUE(sim.fabrics.empty());
}

}  // namespace
}  // namespace collsim::validation
