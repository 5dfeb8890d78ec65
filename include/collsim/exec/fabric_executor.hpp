#pragma once
// GOAL on the packet-level fabric: every host runs the ranks placed on it; their messages
// become flows of the host transport (eager, or rendezvous with a request and a
// clear-to-send over the fabric).

#include "collsim/exec/execution.hpp"
#include "collsim/exec/placement.hpp"
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

struct FabricRun {
  RunResult result;        // complete on rank 0; elsewhere only the collective totals
  pdes::RunStats stats;
  net::FabricTotals totals;
  net::LinkSamples link_samples;          // on rank 0, when FabricOptions::sample_interval is set
  std::vector<std::uint64_t> link_bytes;  // on rank 0: see net::Fabric::link_bytes()
};

// Collective over the transport's ranks; every rank passes the same arguments. A monitor in
// `options` counts finished ops as its work.
FabricRun run_on_fabric(const topo::Topology& topology, const net::FabricParams& fabric, pdes::Transport& transport,
                        const net::FabricOptions& options, const goal::Schedule& schedule, const Placement& placement,
                        const PacketHostParams& host, const FabricRunOptions& run_options = {});

// A callback that hears each op of a streamed run as it finishes: its rank, its piece's
// label, and when it started and ended (ps).
using StreamOpFinished =
    std::function<void(goal::RankId rank, std::uint8_t label, std::uint64_t start_ps, std::uint64_t end_ps)>;

// The same run on a schedule that arrives in pieces (goal::ScheduleStream): every simulator
// rank asks the stream for the pieces of its own hosts' ranks only, as they near the end of
// what they hold, and forgets ops once done; same results as run_on_fabric() on the whole
// schedule. No op times or flows are kept (`on_finished` hears the ops); at most
// kMaxStreamedRanksPerHost ranks per host (their slots travel in 7 bits of a flow's label). Throws StreamOrderError when the
// stream breaks its promise, std::invalid_argument as run_on_fabric().
inline constexpr std::uint32_t kMaxStreamedRanksPerHost = 128;
FabricRun run_stream_on_fabric(const topo::Topology& topology, const net::FabricParams& fabric,
                               pdes::Transport& transport, const net::FabricOptions& options,
                               goal::ScheduleStream& stream, const Placement& placement, const PacketHostParams& host,
                               StreamOpFinished on_finished = {});

}  // namespace collsim::exec
