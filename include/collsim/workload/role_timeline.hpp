#pragma once
// When each rank was busy with what: per rank and OpRole, the union of its ops' [start, end)
// intervals, merged as they come. What the step report needs of a run's op times, in memory
// that grows with the gaps between busy periods rather than with the ops.

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
  explicit RoleTimelines(std::uint32_t num_ranks) : ranks_(num_ranks) {}

  // An op of `rank` with `role` ran over [start, end); nothing when end <= start.
  void add(goal::RankId rank, OpRole role, SimTime start, SimTime end);
  // Disjoint, not touching, ascending.
  const std::vector<BusyInterval>& busy(goal::RankId rank, OpRole role) const {
    return ranks_[rank][static_cast<std::size_t>(role)];
  }
  RankActivity activity(goal::RankId rank) const;
  std::uint32_t num_ranks() const { return static_cast<std::uint32_t>(ranks_.size()); }
  std::uint64_t num_intervals() const;

 private:
  std::vector<std::array<std::vector<BusyInterval>, 1 + kDimensions>> ranks_;
};

}  // namespace collsim::workload
