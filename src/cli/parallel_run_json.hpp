#pragma once
// How a run spread over the simulator's ranks, as JSON: what bench/pdes_projection.py reads to
// project the wall time on more cores than this machine has.

#include <nlohmann/json.hpp>

#include "collsim/pdes/run_stats.hpp"

namespace collsim::cli {

// ranks, windows, critical_events, remote_events, imbalance, lookahead_ps, the bytes of a stored
// event and of a queue entry, and per_rank (events, remote_sent, lps, wall_s, sync_s, max_queue,
// stored_events). Only rank 0 has per_rank entries.
nlohmann::json parallel_run_json(const pdes::RunStats& s);

}  // namespace collsim::cli
