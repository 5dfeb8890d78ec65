// Error arithmetic, the summary split at 1 MiB, the preset check, nccl-tests' formulas, and
// the calibration file.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "collsim/common/input_error.hpp"
#include "collsim/validation/bandwidth_formulas.hpp"
#include "collsim/validation/comparison.hpp"
#include "collsim/validation/model_parameters.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::validation {
namespace {

using collectives::Collective;

TEST(Formulas, BusbwFactors) {
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Allreduce, 8), 14.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Allgather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::ReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::AllToAll, 16), 15.0 / 16);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::SendRecv, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Broadcast, 8), 1.0);
}

TEST(Formulas, Log05LastRowByHand) {
  // 8589934592 B in 196284 us: 43.76279 GB/s (printed 43.76), x 15/16 = 41.02761 (printed 41.03).
  EXPECT_NEAR(algbw_gbps(8589934592, Duration::us(196284)), 43.76279, 1e-5);
  EXPECT_NEAR(busbw_gbps(Collective::AllToAll, 16, 8589934592, Duration::us(196284)), 41.02761, 1e-5);
  EXPECT_NEAR(time_from_busbw(Collective::AllToAll, 16, 8589934592, 41.02761).microseconds(), 196284, 1);
}

TEST(Formulas, RanksFromRatio) {
  EXPECT_EQ(ranks_from_ratio(Collective::Allreduce, 1.875), 16u);  // 2*15/16
  EXPECT_EQ(ranks_from_ratio(Collective::Allgather, 0.875), 8u);
  EXPECT_FALSE(ranks_from_ratio(Collective::Allreduce, 2.5));
  EXPECT_FALSE(ranks_from_ratio(Collective::SendRecv, 1.0));
}

TEST(Formulas, Counts) {
  EXPECT_EQ(element_bytes("float"), 4u);
  EXPECT_EQ(element_bytes("bfloat16"), 2u);
  EXPECT_EQ(element_bytes("double"), 8u);
  EXPECT_FALSE(element_bytes("quaternion"));
  EXPECT_EQ(expected_count(Collective::AllToAll, 16, 1024, 4), 16u);  // log 05's first row
  EXPECT_EQ(expected_count(Collective::Allreduce, 16, 1024, 4), 256u);
}

SizeComparison at(std::uint64_t bytes, double error) {
  SizeComparison s;
  s.bytes = bytes;
  s.error = error;
  s.measured_busbw = 100;
  s.simulated_busbw = 100 * (1 + error);
  return s;
}

TEST(Comparison, ErrorIsTheTimeRatio) {
  // 10% faster in simulation: busbw 1/0.9 - 1 = +11.1% higher.
  EXPECT_NEAR(busbw_error(Duration::us(100), Duration::us(90)), 1.0 / 0.9 - 1, 1e-12);
  EXPECT_NEAR(busbw_error(Duration::us(100), Duration::us(125)), -0.2, 1e-12);
}

TEST(Comparison, SummarySplitsAtOneMiB) {
  const ErrorSummary e = summarize({at(1 << 19, 0.3), at(1 << 19, -0.1), at(1 << 20, 0.05), at(1 << 21, -0.2),
                                    at(1 << 22, 0.1)});
  EXPECT_EQ(e.small_sizes, 2u);
  EXPECT_EQ(e.large_sizes, 3u);
  EXPECT_DOUBLE_EQ(e.median_abs_small, 0.2);  // of 0.3 and 0.1
  EXPECT_DOUBLE_EQ(e.max_abs_small, 0.3);
  EXPECT_DOUBLE_EQ(e.median_abs_large, 0.1);  // of 0.05, 0.2, 0.1
  EXPECT_DOUBLE_EQ(e.max_abs_large, 0.2);
  EXPECT_EQ(summarize({}).median_abs_large, -1);
}

TEST(Comparison, PresetCheckFlagsAFarSlowerRun) {
  // Log 11 run B: 2.8 GB/s measured where the preset gives ~24.5.
  std::vector<SizeComparison> b;
  for (int i = 0; i < 3; ++i) {
    SizeComparison s = at(1ull << (30 + i), 0);
    s.measured_busbw = 2.8;
    s.simulated_busbw = 24.5;
    b.push_back(s);
  }
  const PresetConsistency c = check_against_preset(b);
  EXPECT_FALSE(c.consistent);
  EXPECT_NE(c.reason.find("measured busbw is 11%"), std::string::npos) << c.reason;
  EXPECT_TRUE(check_against_preset({at(1 << 20, -0.3)}).consistent);
}

class CalibrationFile : public ::testing::Test {
 protected:
  test_support::ScratchDir scratch;
  std::string path = scratch / "calibration.yaml";
  void write(const std::string& text) { scratch.write("calibration.yaml", text); }
};

TEST_F(CalibrationFile, RoundTrip) {
  Calibration c;
  c.system = "dgx-h100";
  c.trained_on = {"a.log", "b.log"};
  c.parameters.gpu_link_efficiency = 0.8;
  c.parameters.nic_efficiency = 0.9;
  c.parameters.launch = Duration::us(12.5);
  c.parameters.nvls_efficiency = 0.6;
  c.parameters.net_latency = Duration::us(3.5);
  c.parameters.host_issue = Duration::us(5.0);
  c.parameters.simple_launch = Duration::us(27.5);
  c.parameters.simple_step = Duration::us(0.25);
  c.parameters.ll128_network_efficiency = 0.8;
  write_calibration(path, c);
  const Calibration r = read_calibration(path);
  EXPECT_EQ(r.system, "dgx-h100");
  EXPECT_EQ(r.trained_on, c.trained_on);
  EXPECT_DOUBLE_EQ(r.parameters.gpu_link_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(r.parameters.nic_efficiency, 0.9);
  EXPECT_EQ(r.parameters.launch, Duration::us(12.5));
  EXPECT_FALSE(r.parameters.step);  // written as -1
  EXPECT_DOUBLE_EQ(r.parameters.nvls_efficiency, 0.6);
  EXPECT_EQ(r.parameters.net_latency, Duration::us(3.5));
  EXPECT_EQ(r.parameters.host_issue, Duration::us(5.0));
  EXPECT_EQ(r.parameters.simple_launch, Duration::us(27.5));
  EXPECT_EQ(r.parameters.simple_step, Duration::us(0.25));
  EXPECT_DOUBLE_EQ(r.parameters.ll128_network_efficiency, 0.8);
}

TEST_F(CalibrationFile, Errors) {
  write("system: dgx-h100\nparameters:\n  gpu_link_efficency: 0.8\n");
  try {
    read_calibration(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":3:3: unknown parameter 'gpu_link_efficency'"), std::string::npos) << e.what();
  }
  write("system: dgx-h100\nparameters:\n  host_issue_us: -3\n");
  EXPECT_THROW(read_calibration(path), InputError);
  write("system: dgx-h100\nparameters:\n  simple_step_us: -0.5\n");
  EXPECT_THROW(read_calibration(path), InputError);
  write("system: dgx-h100\nparameters:\n  nic_efficiency: 7\n");
  EXPECT_THROW(read_calibration(path), InputError);
  write("parameters:\n  nic_efficiency: 0.9\n");
  EXPECT_THROW(read_calibration(path), InputError);
  EXPECT_THROW(read_calibration(path + ".missing"), InputError);
}

}  // namespace
}  // namespace collsim::validation
