#include "collsim/workload/step_lowering.hpp"

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

}  // namespace

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
