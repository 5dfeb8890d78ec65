#pragma once
// Where the time of a simulated step goes, on the rank that finishes last: compute, then
// communication that no compute hides (per parallel dimension; PP includes the pipeline
// bubble, which is time spent waiting for the neighbouring stage), then idle time.

#include <array>
#include <cstdint>
#include <span>

#include "collsim/workload/role_timeline.hpp"
#include "collsim/workload/step_lowering.hpp"

namespace collsim::workload {

struct StepReport {
  std::int64_t iteration_ps = 0;
  goal::RankId critical_rank = 0;
  std::int64_t compute_ps = 0;                              // on the critical rank
  std::array<std::int64_t, kDimensions> exposed_comm_ps{};  // on the critical rank
  std::int64_t idle_ps = 0;                                 // neither compute nor communication
  double mfu = 0;                                           // model FLOPs / (iteration × GPUs × peak)
  std::array<double, kDimensions> bytes_per_rank{};         // mean over ranks, bytes sent per iteration
};

// `start_ps` / `end_ps`: per global op of step.schedule, -1 for an op that never ran;
// `rank_finish_ps`: per rank, when the simulator says it finished (which may be after its
// last op ended: LogGOPS keeps the cpu busy with the overhead of a send already handed over).
// compute + Σ exposed + idle = iteration on the critical rank; where several dimensions
// communicate at once and nothing computes, they share the time equally (each share rounded
// down to whole ps, the rest going to idle).
StepReport analyse_step(const WorkloadSpec& w, const LoweredStep& step, std::span<const std::int64_t> start_ps,
                        std::span<const std::int64_t> end_ps, std::span<const std::int64_t> rank_finish_ps);

// The same from what a streamed run keeps: each rank's busy time by role. Depends only on
// when each role was busy, so it gives the same report as the op times it was built from.
StepReport analyse_step(const WorkloadSpec& w, const StepTotals& totals, const RoleTimelines& timelines,
                        std::span<const std::int64_t> rank_finish_ps);

}  // namespace collsim::workload
