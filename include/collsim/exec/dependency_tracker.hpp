#pragma once
// One rank's GOAL DAG at run time: which ops may start, given which have started and
// finished. `requires` waits for the other op to finish, `irequires` for it to start.
// Shared by every execution mode; the timing model decides when ready ops actually run.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "collsim/goal/schedule.hpp"

namespace collsim::exec {

enum class OpState : std::uint8_t { Waiting, Ready, Started, Finished };

// One rank's dependency edges reversed, as one CSR: for each op, the ops that require it
// (released when it finishes), then the ops that irequire it (released when it starts), each
// in op order, written to `dependents` (num_requires() + num_irequires() entries). Calls
// lists(i, first, first_start, end) with where op i's two lists begin and where the second
// ends; returns where the last op's ends. `scratch` is working space, reused across ranks.
template <typename Lists>
std::uint32_t reverse_dependencies(const goal::RankOps& ops, std::uint32_t* dependents,
                                   std::vector<std::uint32_t>& scratch, Lists&& lists) {
  const std::uint32_t n = ops.num_ops();
  const goal::RankOps::Rows req = ops.requires_rows(), ireq = ops.irequires_rows();
  // Counts, then where each op's next dependent goes: [0, n) for requires, [n, 2n) irequires.
  scratch.assign(2 * std::size_t{n}, 0);
  std::uint32_t* finish_next = scratch.data();
  std::uint32_t* start_next = scratch.data() + n;
  // Bounds are read into locals: the stores below are to uint32_t too, so the compiler would
  // otherwise load them again after every store.
  const std::uint32_t num_requires = req.offset[n], num_irequires = ireq.offset[n];
  for (std::uint32_t k = 0; k < num_requires; ++k) ++finish_next[req.target[k]];
  for (std::uint32_t k = 0; k < num_irequires; ++k) ++start_next[ireq.target[k]];
  std::uint32_t next = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t finishing = finish_next[i], starting = start_next[i];
    finish_next[i] = next;
    start_next[i] = next + finishing;
    lists(i, next, next + finishing, next + finishing + starting);
    next += finishing + starting;
  }
  // Filling in op order keeps each list in op order.
  std::uint32_t req_end = req.offset[0], ireq_end = ireq.offset[0];
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t req_begin = req_end, ireq_begin = ireq_end;
    req_end = req.offset[i + 1];
    ireq_end = ireq.offset[i + 1];
    for (std::uint32_t k = req_begin; k < req_end; ++k) dependents[finish_next[req.target[k]]++] = i;
    for (std::uint32_t k = ireq_begin; k < ireq_end; ++k) dependents[start_next[ireq.target[k]]++] = i;
  }
  return next;
}

class DependencyTracker {
 public:
  explicit DependencyTracker(const goal::RankOps& ops);

  std::uint32_t num_ops() const { return static_cast<std::uint32_t>(ops_.size() - 1); }
  OpState state(goal::LocalOp i) const { return ops_[i].state; }
  std::uint32_t unfinished() const { return unfinished_; }
  // Calls finished(d) for each op d that requires op i, then started(d) for each that
  // irequires it, in index order; changes nothing.
  template <typename F, typename G>
  void for_each_dependent(goal::LocalOp i, F&& finished, G&& started) const {
    for (std::uint32_t k = ops_[i].first_dependent; k < ops_[i].first_start_dependent; ++k) finished(dependents_[k]);
    for (std::uint32_t k = ops_[i].first_start_dependent; k < ops_[i + 1].first_dependent; ++k) started(dependents_[k]);
  }
  // Prerequisites op i still waits for (to finish / to start).
  std::uint32_t waiting_requires(goal::LocalOp i) const { return ops_[i].pending_requires; }
  std::uint32_t waiting_irequires(goal::LocalOp i) const { return ops_[i].pending_irequires; }

  // Calls ready(i) for every op without prerequisites, in index order, and marks them Ready.
  template <typename F>
  void for_initially_ready(F&& ready) {
    for (goal::LocalOp i = 0; i < num_ops(); ++i)
      if (ops_[i].pending_requires == 0 && ops_[i].pending_irequires == 0) {
        ops_[i].state = OpState::Ready;
        ready(i);
      }
  }

  // Marks op i started; calls ready(j) for each dependent this makes ready, in index order
  // of the dependents as listed.
  template <typename F>
  void start(goal::LocalOp i, F&& ready) {
    ops_[i].state = OpState::Started;
    const std::uint32_t end = ops_[i + 1].first_dependent;
    for (std::uint32_t k = ops_[i].first_start_dependent; k < end; ++k) {
      const goal::LocalOp d = dependents_[k];
      Record& op = ops_[d];
      if (--op.pending_irequires == 0 && op.pending_requires == 0) {
        op.state = OpState::Ready;
        ready(d);
      }
    }
  }

  template <typename F>
  void finish(goal::LocalOp i, F&& ready) {
    // A rank's ops finish roughly in order, while the runs of thousands of ranks interleave:
    // too many streams for the hardware to prefetch, so ask for the lines a few ops ahead.
    __builtin_prefetch(ops_.data() + std::min<std::size_t>(i + 6, ops_.size() - 1));
    __builtin_prefetch(dependents_.data() + std::min<std::size_t>(ops_[i].first_dependent + 16, dependents_.size()));
    ops_[i].state = OpState::Finished;
    --unfinished_;
    const std::uint32_t end = ops_[i].first_start_dependent;
    for (std::uint32_t k = ops_[i].first_dependent; k < end; ++k) {
      const goal::LocalOp d = dependents_[k];
      Record& op = ops_[d];
      if (--op.pending_requires == 0 && op.pending_irequires == 0) {
        op.state = OpState::Ready;
        ready(d);
      }
    }
  }

 private:
  // Everything about one op in one record, so that releasing a dependent touches one cache
  // line rather than one per array. Op i's dependents are dependents_[first_dependent,
  // first_start_dependent) (they require it: waiting for it to finish), then
  // [first_start_dependent, ops_[i + 1].first_dependent) (they irequire it); a last record
  // closes the list of the last op.
  struct Record {
    std::uint32_t pending_requires = 0;
    std::uint32_t pending_irequires = 0;
    std::uint32_t first_dependent = 0;
    std::uint32_t first_start_dependent = 0;
    OpState state = OpState::Waiting;
  };
  std::vector<Record> ops_;
  std::vector<std::uint32_t> dependents_;
  std::uint32_t unfinished_ = 0;
};

}  // namespace collsim::exec
