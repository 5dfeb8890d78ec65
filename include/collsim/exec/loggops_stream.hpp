#pragma once
// The LogGOPS mode on a schedule that arrives in pieces (goal::ScheduleStream): the same
// model and the same results as simulate_loggops() on the whole schedule, in memory for the
// ops in flight only. Each rank holds a window of live ops: a rank's next piece is asked
// for when an op of its newest piece becomes ready, and ops leave the window once they and
// every op before them have finished (and a send's message has reached its receiver).
//
// Why the results are the same: an op is released by the last of its prerequisites to
// finish (or start), and the stream's promise (see schedule_stream.hpp) means that, when its
// piece arrives, some prerequisite has not yet started; so it is registered with every
// prerequisite it still waits for before any of them can release it, in the same order
// among that prerequisite's dependents (by op index) as in the whole schedule.

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>

#include "collsim/exec/loggops_params.hpp"
#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/exec/stream_order_error.hpp"
#include "collsim/goal/schedule_stream.hpp"
#include "collsim/pdes/run_monitor.hpp"

namespace collsim::exec {

struct LogGOPSStreamOptions {
  std::size_t max_reported_blocked = std::numeric_limits<std::size_t>::max();
  pdes::RunMonitor* monitor = nullptr;  // as LogGOPSOptions::monitor; not owned
  const ComputeVariation* compute = nullptr;  // as LogGOPSOptions::compute; not owned
  // Hears each op as it finishes: its rank, its piece's label, when it started and ended (ns;
  // the same times as LogGOPSResult::op_start / op_end).
  std::function<void(goal::RankId rank, std::uint8_t label, std::uint64_t start_ns, std::uint64_t end_ns)> on_finished;
};

struct LogGOPSStreamResult {
  // As simulate_loggops() gives it, without op times. A blocked op that never reached the
  // window (its piece was never asked for) is counted in num_blocked but not listed, and
  // blocked ops carry no lists of the prerequisites they wait for (the window keeps counts).
  LogGOPSResult run;
  std::uint64_t ops_total = 0;      // ops the stream handed over, to its end
  std::uint64_t peak_live_ops = 0;  // most ops held in the windows at once
};

// Throws std::invalid_argument for invalid parameters, an op to a rank that does not exist or
// a rank with 2^31 ops or more, and StreamOrderError (see above).
LogGOPSStreamResult simulate_loggops_stream(goal::ScheduleStream& stream, const LogGOPSParams& params,
                                            const LogGOPSStreamOptions& options = {});

}  // namespace collsim::exec
