#pragma once
// PHOLD (Fujimoto 1990), the standard PDES benchmark: N LPs keep E events each in flight;
// an LP that receives an event sends one on, after lookahead + an exponential delay, to a
// uniformly random LP with probability `remote`, to itself otherwise. Which LP an event goes
// to depends only on the sender's random stream, never on the partitioning, so the run's
// checksum (a hash of every LP's ordered event history) is the same on any number of ranks.

#include <cstdint>

#include "collsim/pdes/event_queue.hpp"
#include "collsim/pdes/partition.hpp"
#include "collsim/pdes/run_stats.hpp"
#include "collsim/common/sim_time.hpp"
#include "collsim/pdes/transport.hpp"

namespace collsim::pdes_models {

struct PholdConfig {
  std::uint32_t lps = 1024;
  std::uint32_t events_per_lp = 16;
  double remote = 0.5;
  SimTime lookahead = SimTime::us(1);
  SimTime mean_delay = SimTime::ns(100);  // mean of the exponential part
  SimTime end = SimTime::ms(1);
  std::uint64_t seed = 1;
  pdes::PartitionMethod partition = pdes::PartitionMethod::Block;
  pdes::QueueKind queue = pdes::QueueKind::Wheel;
};

struct PholdResult {
  pdes::RunStats stats;
  std::uint64_t checksum = 0;  // on rank 0
};

// Collective over the transport's ranks. Throws std::invalid_argument for bad parameters.
PholdResult run_phold(const PholdConfig& config, pdes::Transport& transport);

}  // namespace collsim::pdes_models
