#include "collsim/goal/dependency_analysis.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collsim::goal {

namespace {

template <typename Visit>
void for_each_prerequisite(const RankOps& rank, LocalOp i, Visit&& visit) {
  for (std::uint32_t p : rank.requires_of(i)) visit(p, false);
  for (std::uint32_t p : rank.irequires_of(i)) visit(p, true);
}

// Successor lists of the rank in CSR form (the schedule stores predecessors only).
struct Successors {
  std::vector<std::uint32_t> offset;
  std::vector<std::uint32_t> target;
};

Successors successors_of(const RankOps& rank) {
  const std::uint32_t n = rank.num_ops();
  Successors s;
  s.offset.assign(std::size_t{n} + 1, 0);
  for (LocalOp i = 0; i < n; ++i) for_each_prerequisite(rank, i, [&](std::uint32_t p, bool) { ++s.offset[p + 1]; });
  for (std::uint32_t i = 1; i <= n; ++i) s.offset[i] += s.offset[i - 1];
  s.target.resize(s.offset[n]);
  std::vector<std::uint32_t> cursor(s.offset.begin(), s.offset.end() - 1);
  for (LocalOp i = 0; i < n; ++i) for_each_prerequisite(rank, i, [&](std::uint32_t p, bool) { s.target[cursor[p]++] = i; });
  return s;
}

}  // namespace

bool dependencies_point_backward(const RankOps& rank) {
  for (LocalOp i = 0; i < rank.num_ops(); ++i) {
    for (std::uint32_t p : rank.requires_of(i))
      if (p >= i) return false;
    for (std::uint32_t p : rank.irequires_of(i))
      if (p >= i) return false;
  }
  return true;
}

std::optional<std::vector<LocalOp>> topological_order(const RankOps& rank) {
  const std::uint32_t n = rank.num_ops();
  std::vector<LocalOp> order;
  order.reserve(n);
  if (dependencies_point_backward(rank)) {
    for (LocalOp i = 0; i < n; ++i) order.push_back(i);
    return order;
  }
  const Successors succ = successors_of(rank);
  std::vector<std::uint32_t> waiting(n);
  for (LocalOp i = 0; i < n; ++i) {
    waiting[i] = static_cast<std::uint32_t>(rank.requires_of(i).size() + rank.irequires_of(i).size());
    if (waiting[i] == 0) order.push_back(i);
  }
  // `order` doubles as the work queue: everything before `next` has been released.
  for (std::size_t next = 0; next < order.size(); ++next) {
    const LocalOp v = order[next];
    for (std::uint32_t k = succ.offset[v]; k < succ.offset[v + 1]; ++k)
      if (--waiting[succ.target[k]] == 0) order.push_back(succ.target[k]);
  }
  if (order.size() != n) return std::nullopt;
  return order;
}

std::vector<CycleStep> find_dependency_cycle(const RankOps& rank) {
  if (topological_order(rank)) return {};
  // Kahn's algorithm leaves exactly the ops on or behind a cycle, each with a prerequisite
  // that is also left; walking prerequisites from any of them must revisit an op.
  const std::uint32_t n = rank.num_ops();
  const Successors succ = successors_of(rank);
  std::vector<std::uint32_t> waiting(n);
  std::vector<LocalOp> queue;
  for (LocalOp i = 0; i < n; ++i) {
    waiting[i] = static_cast<std::uint32_t>(rank.requires_of(i).size() + rank.irequires_of(i).size());
    if (waiting[i] == 0) queue.push_back(i);
  }
  for (std::size_t next = 0; next < queue.size(); ++next)
    for (std::uint32_t k = succ.offset[queue[next]]; k < succ.offset[queue[next] + 1]; ++k)
      if (--waiting[succ.target[k]] == 0) queue.push_back(succ.target[k]);

  constexpr std::uint32_t kUnvisited = 0xFFFFFFFFu;
  std::vector<std::uint32_t> position(n, kUnvisited);
  std::vector<CycleStep> path;
  LocalOp v = 0;
  while (waiting[v] == 0) ++v;
  while (position[v] == kUnvisited) {
    position[v] = static_cast<std::uint32_t>(path.size());
    LocalOp next = v;
    bool start_dep = false;
    bool found = false;
    for_each_prerequisite(rank, v, [&](std::uint32_t p, bool start) {
      if (!found && waiting[p] != 0) {
        next = p;
        start_dep = start;
        found = true;
      }
    });
    path.push_back({v, start_dep});
    v = next;
  }
  return {path.begin() + position[v], path.end()};
}

std::uint32_t longest_dependency_chain(const RankOps& rank) {
  const auto order = topological_order(rank);
  if (!order) throw std::invalid_argument("rank " + std::to_string(rank.rank()) + " has a dependency cycle");
  std::vector<std::uint32_t> depth(rank.num_ops(), 1);
  std::uint32_t longest = 0;
  for (LocalOp v : *order) {
    for_each_prerequisite(rank, v, [&](std::uint32_t p, bool) { depth[v] = std::max(depth[v], depth[p] + 1); });
    longest = std::max(longest, depth[v]);
  }
  return longest;
}

}  // namespace collsim::goal
