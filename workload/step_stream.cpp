#include "collsim/workload/step_stream.hpp"

#include <stdexcept>

#include "rank_program.hpp"

namespace collsim::workload {

namespace {

// Into the piece being filled (set for each call of next_piece), each op labelled by role.
class PieceStepSink final : public lowering::StepSink {
 public:
  using StepSink::StepSink;
  void fill(goal::SchedulePiece* piece) { piece_ = piece; }
  void add_requires(goal::LocalOp d, goal::LocalOp p) override { piece_->requires_edges.emplace_back(d, p); }
  void add_irequires(goal::LocalOp d, goal::LocalOp p) override { piece_->irequires_edges.emplace_back(d, p); }

 private:
  goal::LocalOp put(const goal::Op& op, OpRole role) override {
    piece_->ops.push_back(op);
    piece_->labels.push_back(static_cast<std::uint8_t>(role));
    return next_op();
  }
  goal::SchedulePiece* piece_ = nullptr;
};

}  // namespace

// What every rank's program reads: kept in one place, as the programs hold references.
struct StepStream::Shared {
  WorkloadSpec w;
  LoweringOptions options;
  ModelCosts costs;
  ParallelLayout layout;
  Shared(const WorkloadSpec& spec, const LoweringOptions& o)
      : w(spec), options(o), costs(model_costs(w)), layout(w.parallel) {}  // model_costs validates
};

struct StepStream::Rank {
  PieceStepSink sink;
  lowering::RankProgram program;
  Rank(const Shared& s, goal::RankId r, StepTotals& totals)
      : sink(totals.bytes_sent[r]), program(s.w, s.costs, s.layout, s.options, r, sink, totals.compute_ns[r], totals.collectives_reused[r]) {}
};

StepStream::StepStream(const WorkloadSpec& w, const LoweringOptions& options) {
  shared_ = std::make_unique<Shared>(w, options);
  if (options.gpus_per_node == 0) throw std::invalid_argument("workload: gpus_per_node must be at least 1");
  const std::uint32_t world = shared_->layout.world();
  lowering::start_totals(shared_->w, shared_->costs, world, totals_);
  ranks_.reserve(world);
  started_.assign(world, 0);
  for (goal::RankId r = 0; r < world; ++r) ranks_.push_back(std::make_unique<Rank>(*shared_, r, totals_));
}

StepStream::~StepStream() = default;

std::uint32_t StepStream::num_ranks() const { return static_cast<std::uint32_t>(ranks_.size()); }

bool StepStream::next_piece(goal::RankId r, goal::SchedulePiece& piece) {
  if (r >= ranks_.size()) throw std::out_of_range("StepStream: no rank " + std::to_string(r));
  Rank& rank = *ranks_[r];
  started_[r] = 1;
  rank.sink.fill(&piece);
  const bool more = rank.program.emit_next();
  rank.sink.fill(nullptr);
  ops_emitted_ += piece.ops.size();
  return more;
}

bool StepStream::later_peers(goal::RankId r, std::vector<goal::RankId>& peers) const {
  if (r >= ranks_.size()) throw std::out_of_range("StepStream: no rank " + std::to_string(r));
  ranks_[r]->program.later_peers(peers);
  return true;
}

std::uint32_t StepStream::busy_together(goal::RankId r) const {
  if (r >= ranks_.size()) throw std::out_of_range("StepStream: no rank " + std::to_string(r));
  return shared_->layout.coordinates(r).stage + 1;
}

void StepStream::finish() {
  goal::SchedulePiece scratch;
  for (goal::RankId r = 0; r < num_ranks(); ++r) {
    do scratch.clear();
    while (next_piece(r, scratch));
  }
}

void StepStream::finish_started() {
  goal::SchedulePiece scratch;
  for (goal::RankId r = 0; r < num_ranks(); ++r) {
    if (!started_[r]) continue;
    do scratch.clear();
    while (next_piece(r, scratch));
  }
}

}  // namespace collsim::workload
