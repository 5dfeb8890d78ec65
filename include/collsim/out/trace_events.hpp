#pragma once
// A run as a timeline that Perfetto (ui.perfetto.dev) and chrome://tracing open: the Trace
// Event Format's JSON object form. A process per simulated rank, a thread per stream (cpu),
// every op a complete ("X") slice named by what it is, each collective a slice on the rank's
// "collectives" thread, each message an arrow from its send's start to its receive's end, and
// counter tracks of the busiest links' utilisation and queues. Times are in microseconds.
//
// Bounded: past `max_op_slices` op slices, only the ops of evenly spaced ranks (rank 0 and
// every k-th) are written (collectives of every rank still are), and the file says so in
// "otherData" ("ranks_with_ops", "ranks_with_ops_every").

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "collsim/out/run_results.hpp"

namespace collsim::out {

struct TraceLimits {
  std::uint64_t max_op_slices = 250'000;  // ~45 MB of JSON
  std::uint32_t link_tracks = 8;  // busiest link directions with counter tracks
};

nlohmann::json trace_events(const RunResults& results, const TraceLimits& limits = {});
// Throws std::runtime_error naming the file when it cannot be written.
void write_trace_events(const std::string& path, const RunResults& results, const TraceLimits& limits = {});

}  // namespace collsim::out
