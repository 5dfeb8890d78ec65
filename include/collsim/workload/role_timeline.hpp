#pragma once
// When each rank was busy with what: per rank and OpRole, the union of its ops' [start, end)
// intervals, merged as they come. What the step report needs of a run's op times, in memory
// that grows with the gaps between busy periods rather than with the ops.
//
// Every op of a run comes through add(), from every rank in turn, so it must not miss the
// cache: the latest interval of each rank and role sits in one small array, which nearly
// every op only extends; the closed intervals behind it are touched when an op starts
// before the latest interval (a receive posted early) or after a gap.

#include <array>
#include <cstdint>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/goal/op.hpp"
#include "collsim/workload/step_lowering.hpp"

namespace collsim::workload {

struct BusyInterval {
  SimTime start, end;  // end > start
};

// A rank's time over a step: computing (whether or not it also communicates), and
// communicating in any dimension while not computing.
struct RankActivity {
  SimTime computing;
  SimTime communicating;
};

class RoleTimelines {
 public:
  explicit RoleTimelines(std::uint32_t num_ranks) : ranks_(num_ranks), latest_(std::size_t{num_ranks} * kRoles) {}

  // An op of `rank` with `role` ran over [start, end); nothing when end <= start.
  void add(goal::RankId rank, OpRole role, SimTime start, SimTime end);
  // Disjoint, not touching, ascending.
  const std::vector<BusyInterval>& busy(goal::RankId rank, OpRole role) const;
  RankActivity activity(goal::RankId rank) const;
  std::uint32_t num_ranks() const { return static_cast<std::uint32_t>(ranks_.size()); }
  std::uint64_t num_intervals() const;

 private:
  static constexpr std::size_t kRoles = 1 + kDimensions;
  BusyInterval& latest(goal::RankId rank, OpRole role) const {
    return latest_[std::size_t{rank} * kRoles + static_cast<std::size_t>(role)];
  }
  std::vector<BusyInterval>& closed(goal::RankId rank, OpRole role) const {
    return ranks_[rank][static_cast<std::size_t>(role)];
  }

  // Closed intervals, all before the latest one and not touching it. busy() moves the latest
  // interval in (so that callers see one list): both are mutable for that alone.
  mutable std::vector<std::array<std::vector<BusyInterval>, kRoles>> ranks_;
  mutable std::vector<BusyInterval> latest_;  // empty (end == start) when none
};

}  // namespace collsim::workload
