#pragma once
// Where the time of a simulated step goes, on the rank that finishes last: compute, then
// communication that no compute hides (per parallel dimension; PP includes the pipeline
// bubble, which is time spent waiting for the neighbouring stage), then idle time.

#include <array>
#include <optional>
#include <span>

#include "collsim/common/sim_time.hpp"
#include "collsim/workload/role_timeline.hpp"
#include "collsim/workload/step_lowering.hpp"

namespace collsim::workload {

struct StepReport {
  SimTime iteration;
  goal::RankId critical_rank = 0;
  SimTime compute;                                   // on the critical rank
  std::array<SimTime, kDimensions> exposed_comm{};   // on the critical rank
  SimTime idle;                                      // neither compute nor communication
  double mfu = 0;                                    // model FLOPs / (iteration × GPUs × peak)
  std::array<double, kDimensions> bytes_per_rank{};  // mean over ranks, bytes sent per iteration
};

// `start` / `end`: per global op of step.schedule, empty for an op that never started or
// never ended; `rank_finish`: per rank, when the simulator says it finished (which may be
// after its last op ended: LogGOPS keeps the cpu busy with the overhead of a send already
// handed over). compute + Σ exposed + idle = iteration on the critical rank; where several
// dimensions communicate at once and nothing computes, they share the time equally (each
// share rounded down to whole ps, the rest going to idle).
StepReport analyse_step(const WorkloadSpec& w, const LoweredStep& step, std::span<const std::optional<SimTime>> start,
                        std::span<const std::optional<SimTime>> end, std::span<const SimTime> rank_finish);

// The same from what a streamed run keeps: each rank's busy time by role. Depends only on
// when each role was busy, so it gives the same report as the op times it was built from.
StepReport analyse_step(const WorkloadSpec& w, const StepTotals& totals, const RoleTimelines& timelines,
                        std::span<const SimTime> rank_finish);

}  // namespace collsim::workload
