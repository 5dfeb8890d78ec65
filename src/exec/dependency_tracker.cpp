#include "collsim/exec/dependency_tracker.hpp"

namespace collsim::exec {

// Reverse edges as one CSR array: for each prerequisite, the ops that require it, then the
// ops that irequire it, each in op order.
DependencyTracker::DependencyTracker(const goal::RankOps& ops) : ops_(ops.num_ops() + 1), unfinished_(ops.num_ops()) {
  const std::uint32_t n = ops.num_ops();
  std::vector<std::uint32_t> finish_count(n, 0), start_count(n, 0);
  for (goal::LocalOp i = 0; i < n; ++i) {
    ops_[i].pending_requires = static_cast<std::uint32_t>(ops.requires_of(i).size());
    ops_[i].pending_irequires = static_cast<std::uint32_t>(ops.irequires_of(i).size());
    for (std::uint32_t p : ops.requires_of(i)) ++finish_count[p];
    for (std::uint32_t p : ops.irequires_of(i)) ++start_count[p];
  }
  std::uint32_t next = 0;
  for (goal::LocalOp i = 0; i < n; ++i) {
    ops_[i].first_dependent = next;
    next += finish_count[i];
    ops_[i].first_start_dependent = next;
    next += start_count[i];
  }
  ops_[n].first_dependent = next;
  dependents_.resize(next);
  // Filling in op order keeps each list in op order.
  for (goal::LocalOp i = 0; i < n; ++i) {
    finish_count[i] = ops_[i].first_dependent;
    start_count[i] = ops_[i].first_start_dependent;
  }
  for (goal::LocalOp i = 0; i < n; ++i) {
    for (std::uint32_t p : ops.requires_of(i)) dependents_[finish_count[p]++] = i;
    for (std::uint32_t p : ops.irequires_of(i)) dependents_[start_count[p]++] = i;
  }
}

}  // namespace collsim::exec
