#include "collsim/workload/step_lowering.hpp"

#include <algorithm>
#include <stdexcept>

#include "rank_program.hpp"

namespace collsim::workload {

namespace {

// Into the whole step's builder, with each op's role in LoweredStep::role.
class BuilderStepSink final : public lowering::StepSink {
 public:
  BuilderStepSink(goal::ScheduleBuilder& builder, LoweredStep& out, goal::RankId rank)
      : StepSink(out.bytes_sent[rank]), builder_(builder), out_(out) {}
  void add_requires(goal::LocalOp d, goal::LocalOp p) override { builder_.add_requires(d, p); }
  void add_irequires(goal::LocalOp d, goal::LocalOp p) override { builder_.add_irequires(d, p); }

 private:
  goal::LocalOp put(const goal::Op& op, OpRole role) override {
    out_.role.push_back(role);
    return builder_.add(op);
  }
  goal::ScheduleBuilder& builder_;
  LoweredStep& out_;
};

// Counts one rank's ops and edges, keeping nothing.
class CountingStepSink final : public lowering::StepSink {
 public:
  CountingStepSink(std::array<std::uint64_t, kDimensions>& bytes_sent, StepSize& size)
      : StepSink(bytes_sent), size_(size) {}
  void add_requires(goal::LocalOp, goal::LocalOp) override { ++size_.edges; }
  void add_irequires(goal::LocalOp, goal::LocalOp) override { ++size_.edges; }
  std::uint64_t dp_ops() const { return dp_ops_; }

 private:
  goal::LocalOp put(const goal::Op&, OpRole role) override {
    ++size_.ops;
    if (role == OpRole::DP) ++dp_ops_;
    return next_op();
  }
  StepSize& size_;
  std::uint64_t dp_ops_ = 0;
};

}  // namespace

StepSize estimate_step_size(const WorkloadSpec& w, const LoweringOptions& options) {
  const ModelCosts costs = model_costs(w);  // validates
  if (options.gpus_per_node == 0) throw std::invalid_argument("workload: gpus_per_node must be at least 1");
  const ParallelLayout layout(w.parallel);
  const std::uint64_t per_stage = layout.world() / w.parallel.pp;
  StepSize total;
  for (std::uint32_t stage = 0; stage < w.parallel.pp; ++stage) {
    StepSize one;
    std::array<std::uint64_t, kDimensions> bytes_sent{};
    std::uint64_t compute_ns = 0, reused = 0;
    CountingStepSink sink(bytes_sent, one);
    lowering::RankProgram program(w, costs, layout, options, layout.on_stage(0, stage), sink, compute_ns, reused);
    std::uint64_t ops_before = 0, dp_before = 0, largest_dp = 0, largest_other = 0;
    while (program.emit_next()) {
      const std::uint64_t dp = sink.dp_ops() - dp_before;
      largest_dp = std::max(largest_dp, dp);
      largest_other = std::max(largest_other, one.ops - ops_before - dp);
      ops_before = one.ops;
      dp_before = sink.dp_ops();
    }
    total.ops += one.ops * per_stage;
    total.edges += one.edges * per_stage;
    total.largest_pieces_ops += (largest_dp + largest_other) * per_stage;
  }
  return total;
}

LoweredStep lower_step(const WorkloadSpec& w, const LoweringOptions& options) {
  const ModelCosts costs = model_costs(w);  // validates
  if (options.gpus_per_node == 0) throw std::invalid_argument("workload: gpus_per_node must be at least 1");
  const ParallelLayout layout(w.parallel);
  const std::uint32_t world = layout.world();
  LoweredStep out;
  lowering::start_totals(w, costs, world, out);
  lowering::CollectiveSpans spans{out.collectives, out.collective_names};
  goal::ScheduleBuilder builder(world);
  for (goal::RankId r = 0; r < world; ++r) {
    builder.begin_rank(r);
    BuilderStepSink sink(builder, out, r);
    lowering::RankProgram program(w, costs, layout, options, r, sink, out.compute_ns[r], out.collectives_reused[r], &spans);
    while (program.emit_next()) {
    }
    builder.end_rank();
  }
  out.schedule = builder.finish();
  return out;
}

}  // namespace collsim::workload
