#pragma once
// Several jobs' schedules as one: job j's rank r is rank first_rank[j] + r of the whole, its
// peers shifted alike, and each rank starts with a calc of its job's start time that every op
// without prerequisites waits for. Jobs never exchange messages (their ranks are disjoint), so
// each matches its own messages as it would alone.

#include <cstdint>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/goal/schedule.hpp"

namespace collsim::jobs {

struct MergedJobs {
  goal::Schedule schedule;
  std::vector<goal::RankId> first_rank;  // per job, and the total at the end
};

// Throws std::invalid_argument when a start time is not whole nanoseconds (a calc's unit).
MergedJobs merge_jobs(const std::vector<const goal::Schedule*>& jobs, const std::vector<SimTime>& starts);

}  // namespace collsim::jobs
