#pragma once
// Order and cycles of one rank's dependency graph (requires and irequires edges alike:
// both delay the start of the dependent op, so a cycle of either kind is a deadlock).

#include <cstdint>
#include <optional>
#include <vector>

#include "collsim/goal/schedule.hpp"

namespace collsim::goal {

// One step of a cycle: `op` depends on the next step's op (the last on the first).
struct CycleStep {
  LocalOp op;
  bool start_dependency;  // true: `irequires`, false: `requires`
};

// True when every edge points to an earlier op, which rules out cycles in one pass.
bool dependencies_point_backward(const RankOps& rank);

// A topological order of the rank's ops, or nothing when the graph has a cycle.
std::optional<std::vector<LocalOp>> topological_order(const RankOps& rank);

// One dependency cycle, or an empty vector when there is none.
std::vector<CycleStep> find_dependency_cycle(const RankOps& rank);

// Number of ops on the longest dependency chain of the rank (0 for a rank without ops).
// Throws std::invalid_argument if the rank has a cycle.
std::uint32_t longest_dependency_chain(const RankOps& rank);

}  // namespace collsim::goal
