#pragma once
// What simulating a schedule gives, whatever network model ran it: the executor's result,
// the kernel's counters and, on a fabric, the network's.

#include <cstdint>
#include <vector>

#include "collsim/exec/execution.hpp"
#include "collsim/net/fabric.hpp"
#include "collsim/pdes/run_stats.hpp"

namespace collsim::exec {

struct SimulationRun {
  RunResult result;        // complete on rank 0; elsewhere only the collective totals
  pdes::RunStats stats;
  net::FabricTotals totals;               // zero under LogGOPS
  net::LinkSamples link_samples;          // on rank 0, when FabricOptions::sample_interval is set
  std::vector<std::uint64_t> link_bytes;  // on rank 0: see net::Fabric::link_bytes()
  std::vector<net::FlowEnd> given_up;     // on rank 0: see net::Fabric::given_up()
};

}  // namespace collsim::exec
