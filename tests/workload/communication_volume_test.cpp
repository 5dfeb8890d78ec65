// Bytes each GPU sends per iteration, per parallel dimension, against the closed forms of
// reference/traces.md for ring collectives (all-reduce 2(n-1)/n·S, all-gather and
// reduce-scatter (n-1)/n·S) and point-to-point pipeline messages.

#include <gtest/gtest.h>

#include "collsim/collectives/generate.hpp"
#include "collsim/workload/model_costs.hpp"
#include "collsim/workload/step_lowering.hpp"
#include "workload/workload_test_util.hpp"

namespace collsim::workload {
namespace {

using testing::kTinyActivation;
using testing::tiny_transformer;

double sent(const LoweredStep& s, goal::RankId r, Dimension d) {
  return static_cast<double>(s.bytes_sent[r][static_cast<std::size_t>(d)]);
}

TEST(CommunicationVolume, TensorParallelAllReducesTheActivationFourTimesPerLayer) {
  const std::uint32_t t = 4, L = 4, m = 4;
  const LoweredStep s = lower_step(tiny_transformer(t, 1, 1, m), {});
  // Per micro-batch: forward 2 per layer + the embedding's; backward 2 per layer + the output
  // layer's: (4L + 2) all-reduces of A, each 2(t-1)/t·A per GPU.
  const double expected = m * (4.0 * L + 2) * 2.0 * (t - 1) / t * kTinyActivation;
  for (goal::RankId r = 0; r < t; ++r) {
    EXPECT_DOUBLE_EQ(sent(s, r, Dimension::TP), expected) << "rank " << r;
    EXPECT_EQ(sent(s, r, Dimension::PP) + sent(s, r, Dimension::DP) + sent(s, r, Dimension::EP), 0.0);
  }
}

TEST(CommunicationVolume, RecomputationRepeatsTheForwardAllReduces) {
  const std::uint32_t t = 2, L = 4, m = 2;
  WorkloadSpec w = tiny_transformer(t, 1, 1, m);
  w.training.recompute = true;
  const LoweredStep s = lower_step(w, {});
  EXPECT_DOUBLE_EQ(sent(s, 0, Dimension::TP), m * (6.0 * L + 2) * 2.0 * (t - 1) / t * kTinyActivation);
}

TEST(CommunicationVolume, SequenceParallelismTurnsAllReducesIntoGathersAndScatters) {
  const std::uint32_t t = 4, L = 4, m = 2;
  WorkloadSpec w = tiny_transformer(t, 1, 1, m);
  w.parallel.sp = true;
  const LoweredStep s = lower_step(w, {});
  // Forward: embedding RS, per layer 2 AG + 2 RS, output layer AG; backward: output layer
  // RS, per layer 4 AG + 2 RS. 10L + 3 collectives of (t-1)/t·A each.
  EXPECT_DOUBLE_EQ(sent(s, 0, Dimension::TP), m * (10.0 * L + 3) * (t - 1) / t * kTinyActivation);
}

TEST(CommunicationVolume, PipelineStagesSendTheActivationForwardAndItsGradientBack) {
  const std::uint32_t p = 4, m = 8;
  const LoweredStep s = lower_step(tiny_transformer(1, p, 1, m), {});
  for (goal::RankId stage = 0; stage < p; ++stage) {
    const double hops = (stage + 1 < p ? 1 : 0) + (stage > 0 ? 1 : 0);
    EXPECT_DOUBLE_EQ(sent(s, stage, Dimension::PP), hops * m * kTinyActivation) << "stage " << stage;
  }
}

TEST(CommunicationVolume, SequenceParallelPipelineMessagesAreOneTensorShard) {
  const std::uint32_t t = 2, p = 2, m = 4;
  WorkloadSpec w = tiny_transformer(t, p, 1, m);
  w.parallel.sp = true;
  const LoweredStep s = lower_step(w, {});
  EXPECT_DOUBLE_EQ(sent(s, 0, Dimension::PP), m * kTinyActivation / t);
}

TEST(CommunicationVolume, DataParallelAllReducesEveryGradientOnce) {
  const std::uint32_t d = 4;
  WorkloadSpec w = tiny_transformer(1, 1, d, 2);
  const ModelCosts c = model_costs(w);
  std::uint64_t params = c.embedding.dense_params + c.head.dense_params;
  for (const LayerCosts& l : c.layers) params += l.dense_params;
  for (std::uint64_t bucket : {std::uint64_t{1} << 40, std::uint64_t{1} << 20}) {
    w.parallel.bucket_bytes = bucket;
    const LoweredStep s = lower_step(w, {});
    // FP32 gradients, 2(d-1)/d of them per GPU; a ring block rounds down to whole bytes, so
    // allow a byte per block and bucket.
    const double expected = 2.0 * (d - 1) / d * 4.0 * params;
    for (goal::RankId r = 0; r < d; ++r) EXPECT_NEAR(sent(s, r, Dimension::DP), expected, 64.0) << "bucket " << bucket;
  }
}

TEST(CommunicationVolume, ShardedOptimizerScattersGradientsAndGathersParameters) {
  const std::uint32_t d = 4;
  WorkloadSpec w = tiny_transformer(1, 1, d, 2);
  w.parallel.zero = DpSharding::Zero1;
  const ModelCosts c = model_costs(w);
  std::uint64_t params = c.embedding.dense_params + c.head.dense_params;
  for (const LayerCosts& l : c.layers) params += l.dense_params;
  const LoweredStep s = lower_step(w, {});
  // Reduce-scatter of FP32 gradients, then all-gather of BF16 parameters.
  const double expected = (d - 1.0) / d * (4.0 + 2.0) * params;
  EXPECT_NEAR(sent(s, 0, Dimension::DP), expected, 64.0);
}

TEST(CommunicationVolume, ExpertParallelismExchangesTokensFourTimesPerMoeLayer) {
  const std::uint32_t e = 2, d = 4, m = 2, L = 4, k = 2;
  WorkloadSpec w = tiny_transformer(1, 1, d, m);
  w.model.transformer->experts = 4;
  w.model.transformer->top_k = k;
  w.parallel.ep = e;
  const LoweredStep s = lower_step(w, {});
  // Dispatch and combine forward and backward: 4 all-to-alls of b·s·k·h·B per MoE layer,
  // of which (e-1)/e leaves the GPU.
  EXPECT_DOUBLE_EQ(sent(s, 0, Dimension::EP), m * L * 4.0 * (e - 1) / e * k * kTinyActivation);
}

TEST(CommunicationVolume, NoParallelismButDataIsPlainDataParallelism) {
  // TP = PP = EP = 1: compute, then one all-reduce of all gradients (one bucket), identical
  // to the collective module's ring all-reduce of that size.
  WorkloadSpec w = tiny_transformer(1, 1, 4, 2);
  w.parallel.bucket_bytes = std::uint64_t{1} << 40;
  const LoweredStep s = lower_step(w, {});
  std::uint64_t sends = 0, recvs = 0;
  for (goal::RankId r = 0; r < 4; ++r) {
    const goal::RankOps ops = s.schedule.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      const OpRole role = s.role[ops.first_global_op() + i];
      EXPECT_TRUE(role == OpRole::Compute || role == OpRole::DP);
      if (ops.op(i).kind == goal::OpKind::Send) ++sends;
      if (ops.op(i).kind == goal::OpKind::Recv) ++recvs;
    }
  }
  // The same all-reduce from the collectives module directly: FP32 gradients of every parameter.
  const ModelCosts c = model_costs(w);
  std::uint64_t params = c.embedding.dense_params + c.head.dense_params;
  for (const LayerCosts& l : c.layers) params += l.dense_params;
  collectives::CollectiveSpec spec;
  spec.algorithm = "ring";
  spec.num_ranks = 4;
  spec.bytes = 4 * params;
  spec.protocol = collectives::Protocol::Simple;
  const goal::Schedule alone = collectives::generate(spec);
  std::uint64_t alone_sends = 0, alone_recvs = 0, alone_bytes = 0;
  for (goal::RankId r = 0; r < 4; ++r) {
    const goal::RankOps ops = alone.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      if (ops.op(i).kind == goal::OpKind::Send) {
        ++alone_sends;
        alone_bytes += ops.op(i).size;
      }
      if (ops.op(i).kind == goal::OpKind::Recv) ++alone_recvs;
    }
  }
  EXPECT_GT(alone_sends, 0u);
  EXPECT_EQ(sends, alone_sends);
  EXPECT_EQ(recvs, alone_recvs);
  double dp_bytes = 0;
  for (goal::RankId r = 0; r < 4; ++r) dp_bytes += sent(s, r, Dimension::DP);
  EXPECT_EQ(dp_bytes, static_cast<double>(alone_bytes));
}

}  // namespace
}  // namespace collsim::workload
