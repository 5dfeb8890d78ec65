// What a run is simulated as: the request's choices over what the log says, and the option to
// blame when the two disagree or something cannot be derived.

#include <gtest/gtest.h>

#include "collsim/validation/option_error.hpp"
#include "collsim/validation/run_setup.hpp"
#include "log_fixture.hpp"

namespace collsim::validation {
namespace {

std::string option_blamed(const TestRun& run, const ValidationRequest& request) {
  try {
    resolve_setup(run, request);
  } catch (const OptionError& e) {
    return e.option();
  }
  return "";
}

TEST(RunSetup, TakesWhatTheLogSays) {
  const LogFile log = testing::read_log("25");  // 2 nodes x 4 H100, 4 x 200G each, INFO lines
  const ValidationSetup s = resolve_setup(log.runs.at(0), {});
  EXPECT_EQ(s.preset.name, "h100-4gpu-ib");
  EXPECT_EQ(s.preset_source.rfind("inferred", 0), 0u) << s.preset_source;
  EXPECT_EQ(s.collective, collectives::Collective::Allreduce);
  EXPECT_EQ(s.ranks, 8u);
  EXPECT_EQ(s.gpus_per_node, 4u);
  EXPECT_EQ(s.nodes, 2u);
  EXPECT_EQ(s.nics.count, 4u);
  EXPECT_EQ(s.channels_source, kChannelsFromLog);
  EXPECT_EQ(s.channels, static_cast<std::uint32_t>(*log.runs[0].info.coll_channels));
  EXPECT_EQ(s.protocol, "auto");
  EXPECT_FALSE(s.in_place);  // out-of-place is printed
}

TEST(RunSetup, TheRequestFixesWhatTheLogLeavesOpen) {
  const LogFile log = testing::read_log("12");  // 2 A100s, one thread (-g 2)
  ValidationRequest r;
  r.system = "dgx-h100";
  r.channels = 3;
  r.protocol = "LL128";
  r.column = "in-place";
  const ValidationSetup s = resolve_setup(log.runs.at(0), r);
  EXPECT_EQ(s.preset.name, "dgx-h100");
  EXPECT_EQ(s.preset_source, "--system");
  EXPECT_EQ(s.channels, 3u);
  EXPECT_EQ(s.channels_source, "--channels");
  EXPECT_EQ(s.protocol, "LL128");
  EXPECT_EQ(s.protocol_source, "--proto");
  EXPECT_TRUE(s.in_place);
  EXPECT_EQ(s.gpus_per_thread, 2u);
}

TEST(RunSetup, BlamesTheOptionThatContradictsTheLogOrCannotBeMet) {
  const TestRun run = testing::read_log("12").runs.at(0);  // 2 ranks, 2 GPUs on one node
  ValidationRequest r;
  r.ranks = 4;
  EXPECT_EQ(option_blamed(run, r), "--ranks");
  r = {};
  r.gpus_per_node = 1;
  EXPECT_EQ(option_blamed(run, r), "--gpus-per-node");
  r = {};
  r.gpus_per_thread = 1;  // the header says nGpus 2
  EXPECT_EQ(option_blamed(run, r), "--gpus-per-thread");
  r = {};
  r.system = "no-such-system";
  EXPECT_EQ(option_blamed(run, r), "--system");
}

// An allreduce log of `hosts` servers with `gpus` GPUs named `gpu` each and one 1 MiB row,
// without NCCL INFO lines.
LogFile log_of(std::uint32_t hosts, std::uint32_t gpus, const std::string& gpu) {
  std::string text =
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n#\n# Using devices\n";
  for (std::uint32_t r = 0; r < hosts * gpus; ++r)
    text += "#  Rank " + std::to_string(r) + " Group  0 Pid " + std::to_string(1000 + r) + " on node" +
            std::to_string(r / gpus) + " device  " + std::to_string(r % gpus) + " [0000:00:00] NVIDIA " + gpu + "\n";
  text +=
      "#\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "     1048576        262144     float     sum      -1   100.0   10.49   10.49      0   100.0   10.49   10.49      0\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 10.49\n";
  return parse_nccl_tests_log(text, "job.log");
}

TEST(RunSetup, AJobOnPartOfANodeGetsTwoChannelsPerNicItUses) {
  // Two nodes, one H100 of each, and no INFO line: on dgx-h100 that GPU's own NIC alone, and
  // NCCL's search gives it 2 channels (one, duplicated).
  ValidationRequest r;
  r.system = "dgx-h100";
  const ValidationSetup s = resolve_setup(log_of(2, 1, "H100 80GB HBM3").runs.at(0), r);
  EXPECT_EQ(s.ranks, 2u);
  EXPECT_EQ(s.gpus_per_node, 1u);
  EXPECT_EQ(s.nodes, 2u);
  EXPECT_EQ(s.nics.count, 1u);
  EXPECT_EQ(s.channels, 2u);
  EXPECT_EQ(s.channels_source, "2 per NIC of the job's 1 (of 8)");
}

TEST(RunSetup, TraysOfOneNvlinkDomainAreOneNode) {
  // 4 GB200 trays of 4 GPUs: device lines show 4 hosts, but the NVL72 rack's NVLink joins
  // them, so the 16 GPUs are one node, as NCCL's MNNVL sees them.
  const ValidationSetup rack = resolve_setup(log_of(4, 4, "GB200").runs.at(0), {});
  EXPECT_EQ(rack.preset.name, "gb200-nvl72");
  EXPECT_EQ(rack.gpus_per_node, 16u);
  EXPECT_EQ(rack.nodes, 1u);
  // Trays of GB300 in separate NVLink domains stay nodes of 4.
  ValidationRequest r;
  r.system = "gb300-4gpu-rdma";
  const ValidationSetup trays = resolve_setup(log_of(4, 4, "GB300").runs.at(0), r);
  EXPECT_EQ(trays.gpus_per_node, 4u);
  EXPECT_EQ(trays.nodes, 4u);
}

}  // namespace
}  // namespace collsim::validation
