#pragma once
// A training step lowered on demand, piece by piece, for a run that never holds the whole
// schedule (exec::simulate_loggops_stream): the same ops, dependencies and totals as
// lower_step(), in pieces of one pipeline action per rank (then the last gradient buckets
// and the optimizer step). Each op's label is its OpRole.

#include <cstdint>
#include <memory>
#include <vector>

#include "collsim/goal/schedule_stream.hpp"
#include "collsim/workload/step_lowering.hpp"

namespace collsim::workload {

class StepStream final : public goal::ScheduleStream {
 public:
  // Throws std::invalid_argument for an inconsistent workload, as lower_step() does.
  StepStream(const WorkloadSpec& w, const LoweringOptions& options);
  ~StepStream() override;

  std::uint32_t num_ranks() const override;
  bool next_piece(goal::RankId r, goal::SchedulePiece& piece) override;
  bool later_peers(goal::RankId r, std::vector<goal::RankId>& peers) const override;
  // The rank's pipeline stage (+ 1): every stage's GPUs run the same program in each replica.
  std::uint32_t busy_together(goal::RankId r) const override;

  // compute_ns and bytes_sent count the pieces handed over so far: all of them once every
  // rank's stream has ended (see finish()).
  const StepTotals& totals() const { return totals_; }
  // Runs what is left of every rank's program without keeping it, so that the totals are
  // complete even when a run stopped early.
  void finish();
  // The same for the ranks asked for at least once only: a simulator rank of a parallel run
  // asks for its own hosts' ranks, and completes their totals (see started()).
  void finish_started();
  bool started(goal::RankId r) const { return started_[r] != 0; }
  // A rank's totals as another simulator rank counted them.
  void set_rank_totals(goal::RankId r, std::uint64_t compute_ns, const std::array<std::uint64_t, kDimensions>& bytes,
                       std::uint64_t collectives_reused) {
    totals_.compute_ns[r] = compute_ns;
    totals_.bytes_sent[r] = bytes;
    totals_.collectives_reused[r] = collectives_reused;
  }
  std::uint64_t ops_emitted() const { return ops_emitted_; }

 private:
  struct Rank;
  StepTotals totals_;
  struct Shared;
  std::unique_ptr<Shared> shared_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  std::vector<std::uint8_t> started_;
  std::uint64_t ops_emitted_ = 0;
};

}  // namespace collsim::workload
