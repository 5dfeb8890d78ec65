// How calibrate moves the parameters after a pass: which parameter each size informs, and the
// step each kind of parameter takes, on passes whose errors are set by hand.

#include <gtest/gtest.h>

#include "collsim/validation/calibration_fit.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {
namespace {

RunValidation run_on(std::uint32_t nodes, std::uint32_t gpus_per_node) {
  RunValidation v;
  v.setup.preset = *find_system_preset("dgx-h100");
  v.setup.nodes = nodes;
  v.setup.gpus_per_node = gpus_per_node;
  v.setup.ranks = nodes * gpus_per_node;
  v.setup.nics = node_nics(v.setup.preset, gpus_per_node);
  return v;
}

SizeComparison size(std::uint64_t bytes, double measured_us, double simulated_us,
                    collectives::ChunkPath path = collectives::ChunkPath::Ring, collectives::Protocol protocol = collectives::Protocol::Simple) {
  SizeComparison s;
  s.bytes = bytes;
  s.measured = Duration::us(measured_us);
  s.simulated = s.collective = Duration::us(simulated_us);
  s.path = path;
  s.protocol = protocol;
  return s;
}

TEST(CalibrationFit, EachSizeInformsTheParameterThatLimitsIt) {
  const ModelParameters p;
  const RunValidation one_node = run_on(1, 8), two_nodes = run_on(2, 8);
  EXPECT_EQ(informs(one_node, size(1 << 30, 100, 90), p), Informs::GpuLinkEfficiency);
  SizeComparison nvls = size(1 << 30, 100, 90, collectives::ChunkPath::Other);
  nvls.nvls = true;
  EXPECT_EQ(informs(one_node, nvls, p), Informs::NvlsEfficiency);
  // 8 x 400G (50 GB/s each) is less than a GPU's 450 GB/s of NVLink: the NICs limit.
  EXPECT_EQ(informs(two_nodes, size(1 << 30, 100, 90), p), Informs::NicEfficiency);
  EXPECT_EQ(informs(two_nodes, size(1 << 30, 100, 90, collectives::ChunkPath::Tree, collectives::Protocol::LL128), p),
            Informs::Ll128NetworkEfficiency);
  EXPECT_EQ(informs(one_node, size(1024, 20, 15), p), Informs::Launch);
  EXPECT_EQ(informs(two_nodes, size(1024, 20, 15), p), Informs::NetLatency);
  EXPECT_EQ(informs(one_node, size(8 << 20, 100, 90), p), Informs::SimpleLatency);
  EXPECT_EQ(informs(one_node, size(8 << 20, 100, 90, collectives::ChunkPath::Tree), p), Informs::Nothing);
  // A thread driving 8 GPUs reports small sizes above the collective: its enqueueing.
  RunValidation threaded = run_on(1, 8);
  threaded.setup.gpus_per_thread = 8;
  SizeComparison held = size(1024, 40, 34);
  held.collective = Duration::us(12);
  EXPECT_EQ(informs(threaded, held, p), Informs::HostIssue);
}

TEST(CalibrationFit, AStepMovesEfficienciesByTheTimeRatioAndLatenciesByTheDifference) {
  RunValidation one_node = run_on(1, 8);
  one_node.sizes = {size(1 << 30, 100, 80), size(2u << 30, 200, 160), size(1024, 12, 10)};
  RunValidation two_nodes = run_on(2, 8);
  two_nodes.sizes = {size(1 << 30, 100, 90), size(1024, 20, 14)};
  ModelParameters p;
  CalibrationFit fit;
  fit.step({one_node, two_nodes}, p);
  EXPECT_DOUBLE_EQ(p.gpu_link_efficiency, 0.8);   // simulated / measured
  EXPECT_DOUBLE_EQ(p.nic_efficiency, 0.9);
  ASSERT_TRUE(p.launch);
  EXPECT_DOUBLE_EQ(p.launch->microseconds(), 6.6 + 2);  // LL's base latency until fitted, + 2 us
  // A 2-node ring allreduce crosses the network 2 x (2 - 1) times: 6 us over 2 crossings.
  EXPECT_DOUBLE_EQ(p.net_latency.microseconds(), 3.0);
  EXPECT_DOUBLE_EQ(p.ll128_network_efficiency, 1.0);  // nothing informed it
}

TEST(CalibrationFit, RunsInconsistentWithTheirPresetAreNotFitted) {
  RunValidation v = run_on(1, 8);
  v.sizes = {size(1 << 30, 100, 10)};
  v.preset_check.consistent = false;
  ModelParameters p;
  CalibrationFit().step({v}, p);
  EXPECT_DOUBLE_EQ(p.gpu_link_efficiency, 1.0);
}

TEST(CalibrationFit, TheNetworkLatencyTakesTheSecantStepOnceTwoPassesTriedIt) {
  // The residual falls twice as fast as the latency rises: 10 - 2 L. A full step from 0
  // overshoots to 10; the secant through both lands on the root, 5.
  SecantLatency s;
  EXPECT_DOUBLE_EQ(s.next(Duration::zero(), Duration::us(10)).microseconds(), 10);
  EXPECT_DOUBLE_EQ(s.next(Duration::us(10), Duration::us(10 - 2 * 10)).microseconds(), 5);
}

TEST(CalibrationFit, SaysWhatTheLastPassStillMoved) {
  ModelParameters a, b;
  EXPECT_EQ(unsettled(a, b), "");
  b.nic_efficiency = 0.9;
  b.net_latency = Duration::us(0.05);  // within a tenth of a microsecond
  EXPECT_EQ(unsettled(a, b), "nic_efficiency 1.000 -> 0.900");
  EXPECT_DOUBLE_EQ(median({3, 1, 2, 10}), 2.5);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{}), 0.0);
  EXPECT_DOUBLE_EQ(median({Duration::us(3), Duration::us(1)}).microseconds(), 2.0);
}

}  // namespace
}  // namespace collsim::validation
