#pragma once
// Simulating one GOAL schedule, whatever produced it: the options every simulating command
// shares (`run`, `workload --run`, `replay`), the run itself in packet or loggops mode, and
// its summary (human, JSON, HDF5 op times).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collsim/exec/fabric_executor.hpp"
#include "collsim/exec/simulation.hpp"
#include "collsim/reuse/alone_timing_table.hpp"
#include "collsim/net/fidelity.hpp"
#include "collsim/goal/schedule_stream.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/topo/topology.hpp"
#include "compute_options.hpp"
#include "fabric_options.hpp"
#include "preset_paths.hpp"
#include "observe_options.hpp"
#include "parallel_context.hpp"
#include "run_record.hpp"
#include "collsim/workload/workload_spec.hpp"
#include "run_watch.hpp"

namespace collsim::cli {

struct SimulationCliOptions {
  std::string topology;
  std::string placement = "linear";
  std::string placement_file;
  std::uint64_t placement_seed = 1;
  std::string network = "packet";        // packet, flow, loggops
  std::string fidelity;                  // --fidelity: per kind of link, over --network's model
  std::string scale_up = "packet";       // packet, or message: see exec::ScaleUpMessages
  std::vector<std::string> host_set;     // name=value
  std::vector<std::string> loggops_set;  // name=value
  bool json = false;
  std::string summary;
  std::string ops;
  bool record_op_times = false;          // also without --ops (a command that reads the times)
  std::string fast_forward = "off";      // --fast-forward, as workload::parse_fast_forward reads it
  bool lowers_collectives = false;       // the command lowers collectives (fast-forward may reuse them)
  bool reports_stragglers = false;       // the command reruns without each straggler (--straggler-report)
  FabricCliOptions fabric;
  ObserveCliOptions observe;
  ComputeCliOptions compute;

  void add_to(CLI::App& cmd);
  // Checks what can be checked before anything is loaded; throws CLI::ValidationError.
  // `topology_needed`: packet mode needs one unless the command supplies a default.
  void check(bool topology_needed = true) const;
  std::string placement_name() const { return placement_file.empty() ? placement : placement_file; }
  // --fast-forward, checked by check().
  workload::FastForward fast_forwards() const;
  // A topology's links carry the messages (packet or flow mode), not LogGOPS.
  bool has_fabric() const { return network != "loggops"; }
  // Some links run the flow model; some run packets (fabric modes only).
  bool uses_flows() const;
  bool uses_packets() const;
  // The fabric's parameters, with the trains of --fast-forward steady or contended.
  net::FabricParams fabric_params() const;
  // Which model each link runs on `topology` (--network's, then --fidelity's); throws
  // CLI::ValidationError when --fidelity names a kind of link the topology lacks.
  net::Fidelity fidelity_of(const topo::Topology& t) const;

 private:
  // --network's model on every link, before --fidelity.
  net::Fidelity network_fidelity() const;
  // --network's model per link with --fidelity over it; nothing in LogGOPS mode or when
  // --fidelity does not parse (check() reports that).
  std::optional<net::Fidelity> declared_fidelity() const;
};

// The progress line and status endpoint of one simulation of `schedule`; keep it until the
// command's output is written (it may linger for --status-linger when destroyed).
std::unique_ptr<RunWatch> watch_simulation(const SimulationCliOptions& o, ParallelContext& parallel,
                                           const topo::Topology& topology, const goal::Schedule& schedule);

// Simulates `schedule` (on `topology` in packet mode) on every rank of `parallel`. Returns the
// run on the root rank, nothing elsewhere. Op times are recorded for --ops, --hdf5 or
// record_op_times; flows and link samples for --hdf5. `watch` (optional) hears progress.
// `placement`: where the ranks run instead of --placement's (not owned).
std::optional<exec::SimulationRun> simulate_schedule(const SimulationCliOptions& o, const topo::Topology& topology,
                                                 const goal::Schedule& schedule, ParallelContext& parallel,
                                                 RunWatch* watch = nullptr, const exec::Placement* placement = nullptr);
// With --link-down or --switch-down: the same simulation on the fabric intact, for what the
// failures cost; nothing without them (and, as above, on ranks other than the first).
std::optional<exec::SimulationRun> simulate_without_faults(const SimulationCliOptions& o, const topo::Topology& topology,
                                                           const goal::Schedule& schedule, ParallelContext& parallel);

// The same on a schedule that arrives in pieces (a workload step lowered on the fly): in
// LogGOPS mode on the root rank only, on a fabric on every rank of `parallel`, each asking the
// stream for its own hosts' ranks only. The run on the root rank, nothing elsewhere. No op
// times: `on_finished` hears them (ps), on the rank that ran the op.
std::optional<exec::SimulationRun> simulate_streamed(const SimulationCliOptions& o, const topo::Topology& topology,
                                                     goal::ScheduleStream& stream, ParallelContext& parallel,
                                                     RunWatch* watch, exec::OpFinished on_finished);

// A table of collectives timed alone on the network this run of `ranks` ranks would use (see
// reuse::AloneTimingTable): on its fabric, or in the LogGOPS model.
std::unique_ptr<reuse::AloneTimingTable> alone_timing_table(const SimulationCliOptions& o, const topo::Topology& topology,
                                                            std::uint32_t ranks);

// The summary keys every simulating command reports; commands add their own.
nlohmann::json run_summary_json(const SimulationCliOptions& o, const topo::Topology& t, const goal::Schedule& schedule,
                                const std::string& description, const exec::SimulationRun& run);
// Makespan, slowest and fastest rank, ops, messages, fabric totals, events and wall time;
// `without_faults`: the makespan of the same run on an intact fabric, for the failures' cost.
void print_run_human(const SimulationCliOptions& o, const topo::Topology& t, const goal::Schedule& schedule,
                     const std::string& description, const exec::SimulationRun& run,
                     std::optional<SimTime> without_faults = std::nullopt);
// Why a lossless run with `drops` packets dropped despite PFC hangs, in one sentence.
std::string drops_despite_pfc(std::uint64_t drops);
// Blocked ops and unmatched messages on stderr.
void report_incomplete(const exec::SimulationRun& run);
// --summary (the given JSON), --ops (HDF5 op times) and --hdf5 (everything recorded, with
// what the command knows of its schedule).
void write_run_files(const SimulationCliOptions& o, const topo::Topology& topology, const goal::Schedule& schedule,
                     const exec::SimulationRun& run, const nlohmann::json& summary,
                     const ScheduleAnnotations& annotations = {});

// Where each rank runs (--placement, --placement-file); CLI::ValidationError when it cannot.
exec::Placement place(const SimulationCliOptions& o, std::uint32_t ranks, std::uint32_t hosts);

}  // namespace collsim::cli
