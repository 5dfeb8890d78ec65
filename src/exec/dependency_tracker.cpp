#include "collsim/exec/dependency_tracker.hpp"

namespace collsim::exec {
namespace {

// Reverse edges as CSR: for each prerequisite, the ops that name it, in op order.
void reverse(const goal::RankOps& ops, bool start_edges, std::vector<std::uint32_t>& begin,
             std::vector<std::uint32_t>& dependents) {
  const std::uint32_t n = ops.num_ops();
  begin.assign(n + 1, 0);
  for (goal::LocalOp i = 0; i < n; ++i)
    for (std::uint32_t p : start_edges ? ops.irequires_of(i) : ops.requires_of(i)) ++begin[p + 1];
  for (std::uint32_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  dependents.resize(begin[n]);
  std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
  for (goal::LocalOp i = 0; i < n; ++i)
    for (std::uint32_t p : start_edges ? ops.irequires_of(i) : ops.requires_of(i)) dependents[fill[p]++] = i;
}

}  // namespace

DependencyTracker::DependencyTracker(const goal::RankOps& ops)
    : state_(ops.num_ops(), OpState::Waiting),
      pending_requires_(ops.num_ops()),
      pending_irequires_(ops.num_ops()),
      unfinished_(ops.num_ops()) {
  for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
    pending_requires_[i] = static_cast<std::uint32_t>(ops.requires_of(i).size());
    pending_irequires_[i] = static_cast<std::uint32_t>(ops.irequires_of(i).size());
  }
  reverse(ops, false, finish_begin_, finish_dependents_);
  reverse(ops, true, start_begin_, start_dependents_);
}

}  // namespace collsim::exec
