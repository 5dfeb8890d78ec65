#pragma once
// A LogGOPS run's times (whole nanoseconds; kNever for an op that never started or ended) as
// the step report takes them.

#include <cstdint>
#include <optional>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/workload/role_timeline.hpp"

namespace collsim::workload::testing {

inline std::vector<std::optional<SimTime>> op_times(const std::vector<std::uint64_t>& ns) {
  std::vector<std::optional<SimTime>> out;
  for (std::uint64_t t : ns) {
    if (t == exec::kNever) out.emplace_back();
    else out.emplace_back(SimTime::ns(static_cast<std::int64_t>(t)));
  }
  return out;
}

inline std::vector<SimTime> finish_times(const std::vector<std::uint64_t>& ns) {
  std::vector<SimTime> out;
  for (std::uint64_t t : ns) out.push_back(SimTime::ns(static_cast<std::int64_t>(t)));
  return out;
}

// For LogGOPSStreamOptions::on_finished: each op's busy time into `timelines`.
inline auto hear_into(RoleTimelines& timelines) {
  return [&timelines](goal::RankId rank, std::uint8_t role, std::uint64_t start, std::uint64_t end) {
    timelines.add(rank, static_cast<OpRole>(role), SimTime::ns(static_cast<std::int64_t>(start)),
                  SimTime::ns(static_cast<std::int64_t>(end)));
  };
}

}  // namespace collsim::workload::testing
