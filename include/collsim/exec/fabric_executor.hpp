#pragma once
// GOAL on the packet-level fabric: every host runs the ranks placed on it; their messages
// become flows of the host transport (eager, or rendezvous with a request and a
// clear-to-send over the fabric).

#include "collsim/exec/execution.hpp"
#include "collsim/exec/placement.hpp"
#include "collsim/goal/schedule.hpp"
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

}  // namespace collsim::exec
