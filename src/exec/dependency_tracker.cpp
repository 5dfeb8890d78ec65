#include "collsim/exec/dependency_tracker.hpp"

namespace collsim::exec {

DependencyTracker::DependencyTracker(const goal::RankOps& ops) : ops_(ops.num_ops() + 1), unfinished_(ops.num_ops()) {
  const std::uint32_t n = ops.num_ops();
  for (goal::LocalOp i = 0; i < n; ++i) {
    ops_[i].pending_requires = static_cast<std::uint32_t>(ops.requires_of(i).size());
    ops_[i].pending_irequires = static_cast<std::uint32_t>(ops.irequires_of(i).size());
  }
  dependents_.resize(ops.num_requires() + ops.num_irequires());
  std::vector<std::uint32_t> scratch;
  ops_[n].first_dependent =
      reverse_dependencies(ops, dependents_.data(), scratch, [&](goal::LocalOp i, std::uint32_t first, std::uint32_t start, std::uint32_t) {
        ops_[i].first_dependent = first;
        ops_[i].first_start_dependent = start;
      });
}

}  // namespace collsim::exec
