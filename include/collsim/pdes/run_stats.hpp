#pragma once
// What a run measured about itself.

#include <cstdint>
#include <vector>

#include "collsim/common/sim_time.hpp"

namespace collsim::pdes {

struct RankStats {
  std::uint64_t events = 0;         // events processed
  std::uint64_t remote_sent = 0;    // events sent to other ranks
  std::uint64_t lps = 0;            // LPs owned
  double wall_s = 0;                // in run()
  double sync_s = 0;                // of which exchanging events and agreeing on windows
  std::uint64_t max_queue = 0;      // largest number of pending events
  // Most events held at once, pending or waiting in a channel (the pool's slots), each
  // kStoredEventBytes: what in-flight packets cost.
  std::uint64_t stored_events = 0;
};

struct RunStats {
  std::uint32_t ranks = 1;
  std::uint64_t events = 0;
  std::uint64_t windows = 0;        // synchronisation windows (1 on a single rank)
  std::uint64_t remote_events = 0;  // events that crossed ranks
  // Over every window, the most events one rank processed in it: the events a run waits for
  // even with free synchronisation (all of them on one rank).
  std::uint64_t critical_events = 0;
  SimTime lookahead = SimTime::infinity();
  SimTime end_time;                 // time of the last event processed
  double wall_s = 0;                // slowest rank
  double events_per_s = 0;          // events / wall_s
  // Share of all ranks' wall time spent synchronising rather than processing events.
  double sync_fraction = 0;
  // Events on the busiest rank over the mean: 1 is perfect balance.
  double imbalance = 1;
  std::vector<RankStats> per_rank;  // on rank 0; empty elsewhere
};

}  // namespace collsim::pdes
