#pragma once
// One rank's GOAL DAG at run time: which ops may start, given which have started and
// finished. `requires` waits for the other op to finish, `irequires` for it to start.
// Shared by every execution mode; the timing model decides when ready ops actually run.

#include <cstdint>
#include <span>
#include <vector>

#include "collsim/goal/schedule.hpp"

namespace collsim::exec {

enum class OpState : std::uint8_t { Waiting, Ready, Started, Finished };

class DependencyTracker {
 public:
  explicit DependencyTracker(const goal::RankOps& ops);

  std::uint32_t num_ops() const { return static_cast<std::uint32_t>(state_.size()); }
  OpState state(goal::LocalOp i) const { return state_[i]; }
  std::uint32_t unfinished() const { return unfinished_; }
  // Prerequisites op i still waits for (to finish / to start).
  std::uint32_t waiting_requires(goal::LocalOp i) const { return pending_requires_[i]; }
  std::uint32_t waiting_irequires(goal::LocalOp i) const { return pending_irequires_[i]; }

  // Calls ready(i) for every op without prerequisites, in index order, and marks them Ready.
  template <typename F>
  void for_initially_ready(F&& ready) {
    for (goal::LocalOp i = 0; i < num_ops(); ++i)
      if (pending_requires_[i] == 0 && pending_irequires_[i] == 0) {
        state_[i] = OpState::Ready;
        ready(i);
      }
  }

  // Marks op i started; calls ready(j) for each dependent this makes ready, in index order
  // of the dependents as listed.
  template <typename F>
  void start(goal::LocalOp i, F&& ready) {
    state_[i] = OpState::Started;
    for (std::uint32_t k = start_begin_[i]; k < start_begin_[i + 1]; ++k) {
      const goal::LocalOp d = start_dependents_[k];
      if (--pending_irequires_[d] == 0 && pending_requires_[d] == 0) {
        state_[d] = OpState::Ready;
        ready(d);
      }
    }
  }

  template <typename F>
  void finish(goal::LocalOp i, F&& ready) {
    state_[i] = OpState::Finished;
    --unfinished_;
    for (std::uint32_t k = finish_begin_[i]; k < finish_begin_[i + 1]; ++k) {
      const goal::LocalOp d = finish_dependents_[k];
      if (--pending_requires_[d] == 0 && pending_irequires_[d] == 0) {
        state_[d] = OpState::Ready;
        ready(d);
      }
    }
  }

 private:
  std::vector<OpState> state_;
  std::vector<std::uint32_t> pending_requires_, pending_irequires_;
  std::vector<std::uint32_t> finish_begin_, finish_dependents_;  // reverse `requires` edges, CSR
  std::vector<std::uint32_t> start_begin_, start_dependents_;    // reverse `irequires` edges, CSR
  std::uint32_t unfinished_ = 0;
};

}  // namespace collsim::exec
