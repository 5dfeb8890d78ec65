#pragma once
// Builds a Schedule rank by rank, in rank order. Used by every producer of GOAL: the
// readers, the collective algorithms and the workload and trace lowerings.

#include <cstdint>
#include <utility>
#include <vector>

#include "collsim/goal/schedule.hpp"

namespace collsim::goal {

class ScheduleBuilder {
 public:
  explicit ScheduleBuilder(std::uint32_t num_ranks);

  // Capacity hints; over-estimates only reserve address space.
  void reserve(std::uint64_t ops, std::uint64_t edges);

  // Starts the next rank; ranks come in order 0..num_ranks-1.
  void begin_rank(RankId rank);
  // Adds an op to the current rank and returns its rank-local index. Throws
  // std::invalid_argument for an op no reader would accept (peer out of range, a wildcard
  // where none is allowed, a size above kMaxSize, a calc with a nic).
  LocalOp add(const Op& op);
  // `dependent` may start only after `prerequisite` finished / started.
  void add_requires(LocalOp dependent, LocalOp prerequisite);
  void add_irequires(LocalOp dependent, LocalOp prerequisite);
  // Closes the current rank.
  void end_rank();

  RankId current_rank() const { return current_; }
  std::uint32_t ops_in_current_rank() const { return ops_in_rank_; }
  // The rank just closed by end_rank(), e.g. to look for dependency cycles while the
  // producer still knows the ops' names. Valid until the next call that adds to the builder.
  RankOps last_rank();

  // All ranks must have been closed.
  Schedule finish();

 private:
  using Edge = std::pair<std::uint32_t, std::uint32_t>;  // (dependent, prerequisite)
  void check_edge(LocalOp dependent, LocalOp prerequisite) const;
  static void append_rows(std::vector<Edge>& edges, std::uint32_t num_ops,
                          std::vector<std::uint32_t>& offset, std::vector<std::uint32_t>& target,
                          std::vector<std::uint64_t>& begin);

  ScheduleArrays a_;
  ScheduleColumns last_columns_;  // what last_rank() views
  RankId current_ = 0;
  bool in_rank_ = false;
  RankId ranks_done_ = 0;
  std::uint32_t ops_in_rank_ = 0;
  std::vector<Edge> requires_edges_;
  std::vector<Edge> irequires_edges_;
};

}  // namespace collsim::goal
