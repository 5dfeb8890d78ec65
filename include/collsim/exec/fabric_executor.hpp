#pragma once
// GOAL on the packet-level fabric: every host runs the ranks placed on it; their messages
// become flows of the host transport (eager, or rendezvous with a request and a
// clear-to-send over the fabric).

#include "collsim/exec/execution.hpp"
#include "collsim/exec/placement.hpp"
#include "collsim/exec/simulation.hpp"
#include <functional>

#include "collsim/exec/stream_order_error.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/goal/schedule_stream.hpp"
#include "collsim/net/fabric.hpp"

namespace collsim::exec {

struct FabricRunOptions {
  bool record_op_times = false;
  bool record_flows = false;
};

// Collective over the transport's ranks; every rank passes the same arguments. A monitor in
// `options` counts finished ops as its work.
SimulationRun run_on_fabric(const topo::Topology& topology, const net::FabricParams& fabric, pdes::Transport& transport,
                        const net::FabricOptions& options, const goal::Schedule& schedule, const Placement& placement,
                        const PacketHostParams& host, const FabricRunOptions& run_options = {});

// The same run on a schedule that arrives in pieces (goal::ScheduleStream): every simulator
// rank asks the stream for the pieces of its own hosts' ranks only, as they near the end of
// what they hold, and forgets ops once done; same results as run_on_fabric() on the whole
// schedule. No op times or flows are kept (`on_finished` hears the ops). Throws
// StreamOrderError when the stream breaks its promise, std::invalid_argument as run_on_fabric().
SimulationRun run_stream_on_fabric(const topo::Topology& topology, const net::FabricParams& fabric,
                               pdes::Transport& transport, const net::FabricOptions& options,
                               goal::ScheduleStream& stream, const Placement& placement, const PacketHostParams& host,
                               OpFinished on_finished = {});

}  // namespace collsim::exec
