// The workload YAML: presets load, and every kind of mistake is an error naming the file,
// the line and what is wrong.

#include <gtest/gtest.h>

#include <filesystem>

#include "collsim/common/input_error.hpp"
#include "collsim/config/preset_file.hpp"
#include "collsim/workload/workload_loader.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::workload {
namespace {

const std::string kValid = R"(name: small
model:
  layers: 4
  hidden: 256
  heads: 8
  seq: 128
  vocab: 1024
training:
  global_batch: 8
  micro_batch: 1
parallelism:
  tp: 2
  pp: 2
  dp: 2
device:
  preset: H100
)";

// The file lives as long as the expression that reads it (`load_workload(write(text))`).
test_support::ScratchFile write(const std::string& text) { return {"workload.yaml", text}; }

// The error for `text` with `from` replaced by `to`.
std::string error_of(const std::string& from, const std::string& to) {
  std::string text = kValid;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  try {
    load_workload(write(text));
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << to;
  return {};
}

TEST(WorkloadLoader, ReadsAValidFile) {
  const WorkloadSpec w = load_workload(write(kValid));
  EXPECT_EQ(w.world(), 8u);
  EXPECT_EQ(w.micro_batches(), 4u);
  EXPECT_EQ(w.device.name, "H100");
  ASSERT_TRUE(w.model.transformer);
  EXPECT_EQ(w.model.transformer->hidden, 256u);
}

TEST(WorkloadLoader, TheSmallestFileTakesTheDocumentedDefaults) {
  const WorkloadSpec w = load_workload(write("model: {layers: 2, hidden: 1024, heads: 16, seq: 512, vocab: 32000}\n"
                                             "parallelism: {dp: 8, pp: 2}\n"));
  // One micro-batch of 1 per data-parallel replica; an H100; no cluster named.
  EXPECT_EQ(w.training.micro_batch, 1u);
  EXPECT_EQ(w.training.global_batch, 8u);
  EXPECT_FALSE(w.training.recompute);
  EXPECT_EQ(w.device.name, "H100");
  EXPECT_TRUE(w.cluster.topology.empty());
  // A micro-batch given without a global batch: still one per replica.
  EXPECT_EQ(load_workload(write("model: {layers: 2, hidden: 1024, heads: 16, seq: 512, vocab: 32000}\n"
                                "training: {micro_batch: 4}\nparallelism: {dp: 8}\n"))
                .training.global_batch,
            32u);
}

TEST(WorkloadLoader, EveryPresetLoads) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(COLLSIM_WORKLOAD_PRESETS)) {
    const WorkloadSpec w = load_workload(e.path().string());
    EXPECT_FALSE(w.cluster.topology.empty()) << e.path() << " names no default cluster";
    ++n;
  }
  EXPECT_GE(n, 4);
}

TEST(WorkloadLoader, FastForwardIsOffOrCollectives) {
  EXPECT_EQ(load_workload(write(kValid)).cluster.fast_forward, "off");
  std::string text = kValid + "cluster:\n  fast_forward: collectives\n";
  EXPECT_EQ(load_workload(write(text)).cluster.fast_forward, "collectives");
  text = kValid + "cluster:\n  fast_forward: steady,collectives\n";
  EXPECT_EQ(load_workload(write(text)).cluster.fast_forward, "steady,collectives");
  text = kValid + "cluster:\n  fast_forward: contended,collectives\n";
  EXPECT_EQ(load_workload(write(text)).cluster.fast_forward, "contended,collectives");
  const std::string e = error_of("device:", "cluster:\n  fast_forward: sometimes\ndevice:");
  EXPECT_NE(e.find(":16:17: key 'fast_forward': expected off, steady, contended, collectives, steady,collectives or contended,collectives, found 'sometimes'"),
            std::string::npos)
      << e;
}

TEST(WorkloadLoader, FastForwardKinds) {
  const auto contended = parse_fast_forward("contended");
  ASSERT_TRUE(contended);
  EXPECT_TRUE(contended->steady);  // contended is steady, and more
  EXPECT_TRUE(contended->contended);
  EXPECT_FALSE(contended->collectives);
  const auto steady = parse_fast_forward("collectives,steady");
  ASSERT_TRUE(steady);
  EXPECT_TRUE(steady->steady && steady->collectives && !steady->contended);
  EXPECT_EQ(parse_fast_forward("off"), FastForward{});
  // Named twice, or steady beside contended (which includes it), or unknown.
  for (const char* bad : {"steady,contended", "contended,steady", "collectives,collectives", "contended,", "fast", ""})
    EXPECT_FALSE(parse_fast_forward(bad)) << bad;
}

TEST(WorkloadLoader, TensorParallelismMustDivideTheHeads) {
  const std::string e = error_of("tp: 2", "tp: 3");
  EXPECT_NE(e.find("TP = 3 does not divide the 8 attention heads"), std::string::npos) << e;
  EXPECT_NE(e.find(":11:"), std::string::npos) << e;  // the 'parallelism' section's line
}

TEST(WorkloadLoader, TheGpuCountMustBeTheProductOfTheDimensions) {
  const std::string e = error_of("device:", "cluster:\n  gpus: 16\ndevice:");
  EXPECT_NE(e.find("16 GPUs, but TP × PP × DP = 2 × 2 × 2 = 8"), std::string::npos) << e;
}

TEST(WorkloadLoader, MoreStagesThanLayersIsRefused) {
  const std::string e = error_of("pp: 2", "pp: 8");
  EXPECT_NE(e.find("8 pipeline stages (PP = 8) but only 4 layers"), std::string::npos) << e;
}

TEST(WorkloadLoader, TheBatchMustSplitIntoMicroBatches) {
  const std::string e = error_of("global_batch: 8", "global_batch: 7");
  EXPECT_NE(e.find("not a multiple of micro_batch × DP"), std::string::npos) << e;
}

TEST(WorkloadLoader, ExpertParallelismNeedsExperts) {
  const std::string e = error_of("dp: 2", "dp: 2\n  ep: 2");
  EXPECT_NE(e.find("needs a mixture-of-experts model"), std::string::npos) << e;
}

TEST(WorkloadLoader, UnknownKeysAndBadValuesNameTheirLine) {
  std::string e = error_of("  seq: 128", "  sequence: 128");
  EXPECT_NE(e.find(":6:3: unknown key 'sequence'"), std::string::npos) << e;
  e = error_of("preset: H100", "preset: V100");
  EXPECT_NE(e.find("unknown GPU 'V100'"), std::string::npos) << e;
  e = error_of("hidden: 256", "hidden: many");
  EXPECT_NE(e.find(":4:11: key 'hidden': expected a whole number"), std::string::npos) << e;
  e = error_of("  pp: 2", "  pp: 2\n  order: tp-tp-pp");
  EXPECT_NE(e.find("expected tp, dp and pp joined by"), std::string::npos) << e;
  e = error_of("  pp: 2", "  pp: 2\n  schedule: zigzag");
  EXPECT_NE(e.find("expected 1f1b or interleaved"), std::string::npos) << e;
  e = error_of("training:", "oops: [\ntraining:");
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;
}

TEST(WorkloadLoader, APresetNameOrAPathResolves) {
  EXPECT_EQ(config::resolve_preset("resnet50", COLLSIM_WORKLOAD_PRESETS, "workload").filename(), "resnet50.yaml");
  EXPECT_THROW(config::resolve_preset("no_such_model", COLLSIM_WORKLOAD_PRESETS, "workload"), InputError);
}

}  // namespace
}  // namespace collsim::workload
