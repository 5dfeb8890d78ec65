#pragma once
// Counts that describe a schedule at a glance (`collsim goal stats`).

#include <cstdint>

#include "collsim/goal/schedule.hpp"

namespace collsim::goal {

struct ScheduleStats {
  std::uint32_t num_ranks = 0;
  std::uint64_t ops = 0;
  std::uint64_t sends = 0;
  std::uint64_t recvs = 0;
  std::uint64_t calcs = 0;
  std::uint64_t requires_edges = 0;
  std::uint64_t irequires_edges = 0;
  std::uint64_t bytes_sent = 0;      // sum of send sizes
  std::uint64_t bytes_received = 0;  // sum of recv sizes
  std::uint64_t calc_ns = 0;         // sum of calc durations
  std::uint64_t wildcard_recvs = 0;  // recvs from any source or with any tag
  std::uint64_t max_ops_per_rank = 0;
  std::uint32_t max_cpu = 0;
  std::uint32_t max_nic = 0;
  // Ops on the longest chain of requires/irequires edges within one rank: a lower bound on
  // the number of ops that must run one after another, before any message is counted.
  std::uint32_t longest_chain_ops = 0;
};

// Throws std::invalid_argument if a rank has a dependency cycle.
ScheduleStats compute_stats(const Schedule& schedule);

}  // namespace collsim::goal
