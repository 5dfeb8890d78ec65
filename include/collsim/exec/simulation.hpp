#pragma once
// Simulating a GOAL schedule, whole or arriving in pieces, on any network model, with one
// result type: the one entry point of `run`, `workload` and `replay`.
//
//   fabric   the executor on every host of a topology (run_on_fabric), its messages carried
//            per link by packets or flows (net::Fidelity): packet mode, flow mode and hybrids;
//            parallel over the transport's ranks;
//   loggops  LogGOPSim's message-level model (simulate_loggops), which is its own executor
//            (its ops start "in the past" as LogGOPSim's do, which no network model under an
//            event-driven executor can reproduce); on the first rank only.

#include <cstdint>
#include <functional>

#include "collsim/common/sim_time.hpp"
#include "collsim/exec/execution.hpp"
#include "collsim/exec/loggops_params.hpp"
#include "collsim/exec/placement.hpp"
#include "collsim/exec/simulation_run.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/goal/schedule_stream.hpp"
#include "collsim/net/fabric.hpp"
#include "collsim/pdes/transport.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::exec {

enum class Backend : std::uint8_t { Fabric, LogGOPS };

struct NetworkSetup {
  Backend backend = Backend::Fabric;
  // Fabric: the topology, its parameters, run options (fidelity, partition, end, monitor,
  // sampling), where the ranks run and what the hosts charge.
  const topo::Topology* topology = nullptr;
  net::FabricParams fabric;
  net::FabricOptions options;
  const Placement* placement = nullptr;
  PacketHostParams host;
  // LogGOPS.
  LogGOPSParams loggops;
  pdes::RunMonitor* loggops_monitor = nullptr;  // the fabric's is options.monitor
  // Either model: how calcs depart from their scheduled times; null: as scheduled.
  std::shared_ptr<const ComputeVariation> compute;
};

struct RecordOptions {
  bool op_times = false;  // RunResult::op_times
  bool flows = false;     // RunResult::flows (fabric only)
};

// Hears each op of a streamed run as it finishes: its rank, its piece's label, when it
// started and ended (whatever the model).
using OpFinished = std::function<void(goal::RankId rank, std::uint8_t label, SimTime start, SimTime end)>;

// Collective over the transport's ranks. The result is complete on rank 0 (LogGOPS: empty
// elsewhere). Throws std::invalid_argument for what the backend refuses.
SimulationRun simulate(const goal::Schedule& schedule, const NetworkSetup& setup, pdes::Transport& transport,
                       const RecordOptions& record = {});
// The same on a schedule that arrives in pieces: no op times or flows; `on_finished` hears
// each op, on the simulator rank that ran it. Throws StreamOrderError when the stream breaks
// its promise.
SimulationRun simulate(goal::ScheduleStream& stream, const NetworkSetup& setup, pdes::Transport& transport,
                       OpFinished on_finished);

}  // namespace collsim::exec
