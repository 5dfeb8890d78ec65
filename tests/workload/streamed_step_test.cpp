// A step lowered on the fly and simulated as a stream (StepStream + simulate_loggops_stream,
// the report from RoleTimelines) gives exactly what lowering the whole step first gives, for
// the presets (or smaller variants of them), while holding only part of the step at once.

#include <gtest/gtest.h>

#include <string>

#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/exec/loggops_stream.hpp"
#include "collsim/workload/parallel_layout.hpp"
#include "collsim/workload/pipeline_schedule.hpp"
#include "collsim/workload/role_timeline.hpp"
#include "collsim/workload/step_lowering.hpp"
#include "collsim/workload/step_report.hpp"
#include "collsim/workload/step_stream.hpp"
#include "collsim/workload/workload_loader.hpp"
#include "workload/loggops_step_times.hpp"
#include "workload/workload_test_util.hpp"

namespace collsim::workload {
namespace {

// What `collsim workload` derives for a cluster of 8-GPU servers: NVLink inside (300 ns,
// 4 ps/B), 100 Gb/s InfiniBand between (2 us, 80 ps/B), no host overheads, and ops that wait
// for the end of the compute they depend on.
exec::LogGOPSParams cluster_params() {
  exec::LogGOPSParams p;
  p.causal = 1;
  p.o = p.g = p.G = p.O = 0;
  p.L = 2000;
  p.G_ps = 80;
  p.ranks_per_node = 8;
  p.L_intra = 300;
  p.G_intra_ps = 4;
  return p;
}

struct Outcome {
  exec::LogGOPSResult run;
  StepReport report;
  StepTotals totals;
  std::uint64_t ops = 0;
  std::uint64_t peak_live = 0;
};

Outcome whole(const WorkloadSpec& w, const LoweringOptions& lowering, const exec::LogGOPSParams& params) {
  const LoweredStep step = lower_step(w, lowering);
  exec::LogGOPSOptions options;
  options.record_op_times = true;
  Outcome out;
  out.run = exec::simulate_loggops(step.schedule, params, options);
  out.report = analyse_step(w, step, testing::op_times(out.run.op_start), testing::op_times(out.run.op_end),
                            testing::finish_times(out.run.rank_finish));
  out.totals = step;
  out.ops = step.schedule.num_ops();
  out.peak_live = out.ops;
  return out;
}

Outcome streamed(const WorkloadSpec& w, const LoweringOptions& lowering, const exec::LogGOPSParams& params) {
  StepStream stream(w, lowering);
  RoleTimelines timelines(stream.num_ranks());
  exec::LogGOPSStreamOptions options;
  options.on_finished = testing::hear_into(timelines);
  exec::LogGOPSStreamResult r = exec::simulate_loggops_stream(stream, params, options);
  stream.finish();
  Outcome out;
  out.run = std::move(r.run);
  out.report = analyse_step(w, stream.totals(), timelines, testing::finish_times(out.run.rank_finish));
  out.totals = stream.totals();
  out.ops = r.ops_total;
  out.peak_live = r.peak_live_ops;
  return out;
}

// Everything both report, compared exactly.
void expect_same(const Outcome& a, const Outcome& b) {
  EXPECT_TRUE(a.run.complete);
  EXPECT_TRUE(b.run.complete);
  EXPECT_EQ(a.ops, b.ops);
  EXPECT_EQ(a.run.ops_completed, b.run.ops_completed);
  EXPECT_EQ(a.run.rank_finish, b.run.rank_finish);
  EXPECT_EQ(a.run.makespan, b.run.makespan);
  EXPECT_EQ(a.run.events, b.run.events);
  EXPECT_EQ(a.run.loggopsim_events, b.run.loggopsim_events);
  EXPECT_EQ(a.run.messages, b.run.messages);
  EXPECT_EQ(a.run.bytes, b.run.bytes);
  EXPECT_EQ(a.totals.compute_ns, b.totals.compute_ns);
  EXPECT_EQ(a.totals.bytes_sent, b.totals.bytes_sent);
  EXPECT_EQ(a.report.iteration, b.report.iteration);
  EXPECT_EQ(a.report.critical_rank, b.report.critical_rank);
  EXPECT_EQ(a.report.compute, b.report.compute);
  EXPECT_EQ(a.report.exposed_comm, b.report.exposed_comm);
  EXPECT_EQ(a.report.idle, b.report.idle);
  EXPECT_EQ(a.report.mfu, b.report.mfu);
  EXPECT_EQ(a.report.bytes_per_rank, b.report.bytes_per_rank);
}

WorkloadSpec preset(const std::string& name) {
  return load_workload(std::string(COLLSIM_WORKLOAD_PRESETS) + "/" + name + ".yaml");
}

LoweringOptions eight_per_node() {
  LoweringOptions o;
  o.gpus_per_node = 8;
  return o;
}

TEST(StreamedStep, Gpt3XlPresetGivesTheSameStep) {
  const WorkloadSpec w = preset("gpt3_1.3b");
  const Outcome a = whole(w, eight_per_node(), cluster_params());
  const Outcome b = streamed(w, eight_per_node(), cluster_params());
  expect_same(a, b);
  // Every dimension but EP communicates, and the pipeline leaves a bubble.
  EXPECT_GT(a.report.exposed_comm[static_cast<std::size_t>(Dimension::PP)], SimTime::zero());
  EXPECT_LT(b.peak_live, b.ops);
}

TEST(StreamedStep, SmallerMixtralWithExpertParallelismGivesTheSameStep) {
  // The preset's TP 2 + SP, DP 16 with EP 8 and ZeRO-1, with 4 layers, sequence 1024 and 2
  // micro-batches (the whole preset: `collsim workload mixtral_8x7b` and the CLI test).
  WorkloadSpec w = preset("mixtral_8x7b");
  w.model.transformer->layers = 4;
  w.model.transformer->seq = 1024;
  w.training.global_batch = 2 * w.training.micro_batch * w.parallel.dp;
  const Outcome a = whole(w, eight_per_node(), cluster_params());
  const Outcome b = streamed(w, eight_per_node(), cluster_params());
  expect_same(a, b);
  EXPECT_GT(a.totals.bytes_sent[0][static_cast<std::size_t>(Dimension::EP)], 0u);
}

TEST(StreamedStep, SmallerResNetGivesTheSameStep) {
  // The preset's layer list and bucketed all-reduce, on DP 8.
  WorkloadSpec w = preset("resnet50");
  w.training.global_batch = w.training.global_batch / w.parallel.dp * 8;
  w.parallel.dp = 8;
  const Outcome a = whole(w, eight_per_node(), cluster_params());
  expect_same(a, streamed(w, eight_per_node(), cluster_params()));
}

TEST(StreamedStep, SmallerLlama3GivesTheSameStep) {
  // The preset's TP 8 + SP, GQA, PP 4 interleaved and ZeRO-1, with 2 chunks of one layer per
  // stage (8 layers), sequence 2048, on DP 2 with 4 micro-batches.
  WorkloadSpec w = preset("llama3_70b");
  w.model.transformer->layers = 8;
  w.model.transformer->seq = 2048;
  w.parallel.virtual_stages = 2;
  w.parallel.dp = 2;
  w.training.global_batch = 4 * w.training.micro_batch * w.parallel.dp;
  const Outcome a = whole(w, eight_per_node(), cluster_params());
  expect_same(a, streamed(w, eight_per_node(), cluster_params()));
}

TEST(StreamedStep, ZeroThreeGathersThatRunAheadGiveTheSameStep) {
  // ZeRO-3 gathers each layer's parameters on the DP stream, chained to the previous gather
  // only: the pieces still wait on the previous piece's gather, so the stream stays exact.
  WorkloadSpec w = testing::tiny_transformer(2, 2, 2, 4);
  w.parallel.zero = DpSharding::Zero3;
  const Outcome a = whole(w, {}, cluster_params());
  expect_same(a, streamed(w, {}, cluster_params()));
}

TEST(StreamedStep, HoldsAFractionOfALongStep) {
  // 64 micro-batches on one GPU: one piece per pass, 129 in all; the window never needs more
  // than a few passes' ops.
  const WorkloadSpec w = testing::tiny_transformer(1, 1, 1, 64);
  const Outcome a = whole(w, {}, cluster_params());
  const Outcome b = streamed(w, {}, cluster_params());
  expect_same(a, b);
  EXPECT_LT(b.peak_live * 20, b.ops);
}

TEST(StreamedStep, HoldsAWideDpRingsBucketsOneOrTwoAtATime) {
  // DP 16 in a ring, ZeRO-1, 32 layers whose gradients each fill a bucket: the one backward
  // pass launches 34 reduce-scatters, and the optimizer step 34 all-gathers, each 15 steps of
  // three or two ops per rank: most of the step's ops. Lowered with the pass and the step,
  // all of them would be held at once; as pieces of their own, a couple at a time.
  WorkloadSpec w = testing::tiny_transformer(1, 1, 16, 1);
  w.model.transformer->layers = 32;
  w.parallel.zero = DpSharding::Zero1;
  w.parallel.bucket_bytes = 16 << 10;
  const Outcome a = whole(w, {}, cluster_params());
  const Outcome b = streamed(w, {}, cluster_params());
  expect_same(a, b);
  EXPECT_GT(a.totals.bytes_sent[0][static_cast<std::size_t>(Dimension::DP)], 0u);
  EXPECT_LT(b.peak_live * 10, b.ops);
}

}  // namespace
}  // namespace collsim::workload

namespace collsim::workload {
namespace {

// What a stream says of the peers still to come (ScheduleStream::later_peers, which a parallel
// run's promises read) covers every peer of the pieces that follow, and once the pipeline
// actions are done it is the DP group alone.
void expect_later_peers_cover_the_rest(const WorkloadSpec& w) {
  StepStream stream(w, eight_per_node());
  const ParallelLayout layout(w.parallel);
  for (goal::RankId r = 0; r < stream.num_ranks(); ++r) {
    std::vector<std::vector<goal::RankId>> said;  // after each piece
    std::vector<std::vector<goal::RankId>> named;  // by each piece
    goal::SchedulePiece piece;
    for (bool more = true; more;) {
      piece.clear();
      more = stream.next_piece(r, piece);
      std::vector<goal::RankId> peers;
      for (const goal::Op& op : piece.ops)
        if (op.kind != goal::OpKind::Calc) peers.push_back(op.peer);
      named.push_back(peers);
      std::vector<goal::RankId> later;
      ASSERT_TRUE(stream.later_peers(r, later));
      said.push_back(later);
    }
    for (std::size_t k = 0; k < said.size(); ++k)
      for (std::size_t j = k + 1; j < named.size(); ++j)
        for (const goal::RankId peer : named[j])
          EXPECT_NE(std::find(said[k].begin(), said[k].end(), peer), said[k].end())
              << "rank " << r << ": piece " << j << " names rank " << peer << ", not said after piece " << k;
    EXPECT_TRUE(said.back().empty()) << "rank " << r;
  }
  // The last pipeline action of rank 0 leaves only its DP group's buckets and gathers.
  std::vector<goal::RankId> dp = layout.dp_group(0);
  dp.erase(std::remove(dp.begin(), dp.end(), 0u), dp.end());
  std::sort(dp.begin(), dp.end());
  StepStream again(w, eight_per_node());
  goal::SchedulePiece piece;
  const std::size_t actions = pipeline_actions(w.parallel.schedule, w.parallel.pp, 0,
                                               static_cast<std::uint32_t>(w.micro_batches()),
                                               w.parallel.schedule == PipelineSchedule::Interleaved ? w.parallel.virtual_stages : 1)
                                  .size();
  for (std::size_t k = 0; k < actions; ++k) {
    piece.clear();
    again.next_piece(0, piece);
  }
  std::vector<goal::RankId> later;
  again.later_peers(0, later);
  EXPECT_EQ(later, dp);
}

TEST(StreamedStep, LaterPeersCoverThePiecesThatFollow) {
  expect_later_peers_cover_the_rest(preset("gpt3_1.3b"));
  WorkloadSpec w = preset("mixtral_8x7b");
  w.model.transformer->layers = 2;
  w.model.transformer->seq = 512;
  w.training.global_batch = 2 * w.training.micro_batch * w.parallel.dp;
  expect_later_peers_cover_the_rest(w);
}

}  // namespace
}  // namespace collsim::workload

namespace collsim::workload {
namespace {

TEST(StreamedStep, RanksOfAPipelineStageAreBusyTogether) {
  const WorkloadSpec w = preset("gpt3_1.3b");  // TP 2, DP 4, PP 2: ranks 0-7 stage 0
  StepStream stream(w, eight_per_node());
  for (goal::RankId r = 0; r < stream.num_ranks(); ++r) EXPECT_EQ(stream.busy_together(r), r < 8 ? 1u : 2u);
}

}  // namespace
}  // namespace collsim::workload
