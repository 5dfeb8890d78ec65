#include "schedule_simulation.hpp"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "collsim/common/units.hpp"
#include "collsim/exec/host_params.hpp"
#include "collsim/exec/simulation.hpp"
#include "collsim/net/fidelity.hpp"
#include "collsim/out/op_times_file.hpp"
#include "collsim/out/run_results.hpp"
#include "collsim/out/trace_events.hpp"
#include "duration_option.hpp"
#include "fault_report.hpp"
#include "loggops_from_topology.hpp"
#include "parallel_run_json.hpp"

namespace collsim::cli {
namespace {

exec::PacketHostParams host_params(const SimulationCliOptions& o) {
  exec::PacketHostParams p;
  for (const std::string& kv : o.host_set) {
    const auto [name, value] = parse_assignment_option("--host-set", kv);
    try {
      exec::host_parameters().set(p, name, value);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--host-set", e.what());
    }
  }
  return p;
}


exec::LogGOPSParams loggops_params(const SimulationCliOptions& o) {
  exec::LogGOPSParams p;
  for (const std::string& kv : o.loggops_set) {
    const auto [name, value] = parse_assignment_option("--loggops-set", kv);
    try {
      exec::set_loggops_param(p, name, value);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--loggops-set", e.what());
    }
  }
  return p;
}

}  // namespace

exec::Placement place(const SimulationCliOptions& o, std::uint32_t ranks, std::uint32_t hosts) {
  if (!o.placement_file.empty()) return exec::read_placement(o.placement_file, ranks, hosts);
  const auto method = exec::placement_method_from_name(o.placement);
  if (!method)
    throw CLI::ValidationError("--placement", "unknown placement '" + o.placement +
                                                  "' (linear, round-robin, packed, random; or --placement-file)");
  try {
    return exec::make_placement(*method, ranks, hosts, o.placement_seed);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--placement", e.what());
  }
}

nlohmann::json run_summary_json(const SimulationCliOptions& o, const topo::Topology& t, const goal::Schedule& schedule,
                                const std::string& description, const exec::SimulationRun& run) {
  const exec::RunResult& r = run.result;
  const pdes::RunStats& s = run.stats;
  std::vector<std::int64_t> rank_finish_ps;
  rank_finish_ps.reserve(r.rank_finish.size());
  for (SimTime finish : r.rank_finish) rank_finish_ps.push_back(finish.picoseconds());
  nlohmann::json j = {
      {"complete", r.complete},
      {"schedule", description},
      {"topology", t.name()},
      {"network", o.network},
      {"scale_up", o.has_fabric() ? o.scale_up : "-"},
      {"placement", o.placement_name()},
      {"ranks", schedule.num_ranks()},
      {"makespan_ps", r.makespan.picoseconds()},
      {"rank_finish_ps", rank_finish_ps},
      {"ops_total", r.ops_total},
      {"ops_completed", r.ops_completed},
      {"messages", r.messages},
      {"bytes", r.bytes},
      {"events", r.events},
      {"wall_s", r.wall_s},
      {"events_per_s", r.events_per_s},
      {"sim_ranks", s.ranks},
      {"windows", s.windows},
      {"sync_fraction", s.sync_fraction},
      {"pdes", parallel_run_json(s)},
      {"packets_forwarded", run.totals.packets_forwarded},
      {"drops", run.totals.drops},
      {"ecn_marks", run.totals.ecn_marks},
      {"pfc_pauses", run.totals.pfc_pauses},
      {"blocked", r.blocked},
      {"unmatched", r.unmatched},
  };
  if (o.uses_flows()) {
    j["fidelity"] = net::to_string(o.fidelity_of(t));
    j["flow_messages"] = run.totals.flow_messages;
    j["flow_rate_changes"] = run.totals.flow_rate_changes;
  }
  if (!o.has_fabric()) j["loggops"] = exec::to_string(loggops_params(o));
  if (o.fast_forward != "off") j["fast_forward"] = o.fast_forward;
  if (const auto v = o.compute.variation(schedule.num_ranks())) j.update(compute_variation_json(o.compute, *v));
  if (o.fabric.any_fault()) j.update(fault_json(o.fabric, t, run.totals, run.given_up));
  if (o.fast_forwards().steady) {
    j["data_packets"] = run.totals.data_packets;
    j["packets_in_trains"] = run.totals.packets_in_trains;
  }
  return j;
}

void print_run_human(const SimulationCliOptions& o, const topo::Topology& t, const goal::Schedule& schedule,
                     const std::string& description, const exec::SimulationRun& run,
                     std::optional<SimTime> without_faults) {
  const exec::RunResult& r = run.result;
  const pdes::RunStats& s = run.stats;
  auto us = [](SimTime time) { return to_duration(time).microseconds(); };
  std::size_t slowest = 0, fastest = 0;
  for (std::size_t i = 0; i < r.rank_finish.size(); ++i) {
    if (r.rank_finish[i] > r.rank_finish[slowest]) slowest = i;
    if (r.rank_finish[i] < r.rank_finish[fastest]) fastest = i;
  }
  std::cout << std::fixed << std::setprecision(3);
  std::cout << "schedule      " << description << ", " << r.ops_total << " ops\n"
            << "network       "
            << (o.network == "loggops" ? "loggops (LogGOPSim's message-level model: " + exec::to_string(loggops_params(o)) + ")"
                                       : o.network + " on " + t.name() + " (" + std::to_string(t.num_hosts()) +
                                             " hosts), placement " + o.placement_name() +
                                             (o.scale_up == "message" ? ", scale-up as messages" : "") +
                                             (o.fidelity.empty() ? "" : ", fidelity " + net::to_string(o.fidelity_of(t))))
            << "\n"
            << (o.compute.any() ? compute_variation_line(o.compute, *o.compute.variation(schedule.num_ranks())) + "\n"
                                : "")
            << "makespan      " << us(r.makespan) << " us";
  if (!r.rank_finish.empty())
    std::cout << " (slowest rank " << slowest << ": " << us(r.rank_finish[slowest]) << " us, fastest rank "
              << fastest << ": " << us(r.rank_finish[fastest]) << " us)";
  std::cout << "\n"
            << "completed     " << r.ops_completed << " of " << r.ops_total << " ops; " << r.messages << " messages, "
            << r.bytes << " bytes\n"
            << "";
  if (o.has_fabric()) {
    std::cout << "fabric        " << run.totals.packets_forwarded << " packet-hops, drops " << run.totals.drops
              << ", ECN marks " << run.totals.ecn_marks << ", PFC pauses " << run.totals.pfc_pauses;
    if (o.uses_flows())
      std::cout << "; " << run.totals.flow_messages << " messages as flows, re-rated " << run.totals.flow_rate_changes
                << " times";
    if (o.fast_forwards().steady)
      std::cout << "; " << run.totals.packets_in_trains << " of " << run.totals.data_packets
                << " data packets in trains (fast-forward " << (o.fast_forwards().contended ? "contended" : "steady") << ")";
    std::cout << "\n";
    if (o.fabric.any_fault()) std::cout << fault_lines(o.fabric, t, run.totals);
    if (without_faults && r.complete) std::cout << fault_cost_line(r.makespan, *without_faults);
  }
  std::cout << "simulation    " << s.events << " events in " << s.wall_s << " s (" << s.events_per_s / 1e6
            << " M events/s), " << s.ranks << " rank(s), " << s.windows << " windows, sync " << 100 * s.sync_fraction
            << " %" << std::endl;
}

// Lossless mode resends nothing: a packet a switch dropped below its pause threshold leaves
// its message waiting forever, which the blocked ops show only as their symptom.
std::string drops_despite_pfc(std::uint64_t drops) {
  return std::to_string(drops) +
         " packet(s) dropped despite PFC: a switch's buffer cannot hold what its ports take in up to their pause "
         "threshold and while the pause travels back";
}

void report_incomplete(const exec::SimulationRun& run) {
  constexpr std::size_t kShown = 1000;
  const exec::RunResult& r = run.result;
  std::cerr << "collsim: the run did not complete: " << r.ops_total - r.ops_completed << " op(s) never finished, "
            << r.unmatched.size() << " message(s) never received\n";
  if (!r.pfc_deadlock.empty()) std::cerr << "  PFC deadlock, a cycle of paused ports: " << r.pfc_deadlock << "\n";
  if (run.totals.drops_despite_pfc > 0)
    std::cerr << "  " << drops_despite_pfc(run.totals.drops_despite_pfc)
              << " (give the topology's switches a larger buffer, or a lower --set pfc_xoff_bytes=...)\n";
  report_given_up(std::cerr, run.given_up);
  for (std::size_t i = 0; i < r.blocked.size() && i < kShown; ++i) std::cerr << "  blocked   " << r.blocked[i] << "\n";
  if (r.blocked.size() > kShown)
    std::cerr << "  ... and " << r.blocked.size() - kShown << " more blocked ops (all in --summary)\n";
  for (std::size_t i = 0; i < r.unmatched.size() && i < kShown; ++i) std::cerr << "  unmatched " << r.unmatched[i] << "\n";
  if (r.unmatched.size() > kShown) std::cerr << "  ... and " << r.unmatched.size() - kShown << " more unmatched\n";
}


std::unique_ptr<RunWatch> watch_simulation(const SimulationCliOptions& o, ParallelContext& parallel,
                                           const topo::Topology& topology, const goal::Schedule& schedule) {
  return std::make_unique<RunWatch>(o.observe, parallel.is_root(), parallel.transport().size(),
                                    o.has_fabric() ? &topology : nullptr, "ops", schedule.num_ops());
}

namespace {

// What the chosen network model needs: the topology, its parameters and the placement for a
// fabric; LogGOPS's parameters otherwise.
exec::NetworkSetup network_setup(const SimulationCliOptions& o, const topo::Topology& topology,
                                 const exec::Placement* placement, RunWatch* watch) {
  exec::NetworkSetup setup;
  if (o.network == "loggops") {
    setup.backend = exec::Backend::LogGOPS;
    setup.loggops = loggops_params(o);
    setup.loggops_monitor = watch;
    return setup;
  }
  setup.topology = &topology;
  setup.fabric = o.fabric_params();
  setup.options = o.fabric.options();
  setup.options.fidelity = o.fidelity_of(topology);
  setup.options.link_changes = o.fabric.link_changes(topology);
  setup.options.link_faults = o.fabric.link_faults(topology);
  setup.options.monitor = watch;
  setup.placement = placement;
  setup.host = host_params(o);
  if (o.scale_up == "message") setup.host.scale_up = scale_up_messages(topology, setup.fabric);
  return setup;
}

}  // namespace

net::Fidelity SimulationCliOptions::network_fidelity() const {
  return net::uniform_fidelity(network == "flow" ? net::LinkModel::Flow : net::LinkModel::Packet);
}

std::optional<net::Fidelity> SimulationCliOptions::declared_fidelity() const {
  if (!has_fabric()) return std::nullopt;
  const net::Fidelity base = network_fidelity();
  try {
    return fidelity.empty() ? base : net::parse_fidelity(fidelity, base);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // check() says what is wrong with it
  }
}

bool SimulationCliOptions::uses_flows() const {
  const std::optional<net::Fidelity> f = declared_fidelity();
  return f && f->any_flow();
}

bool SimulationCliOptions::uses_packets() const {
  const std::optional<net::Fidelity> f = declared_fidelity();
  return f && !f->all(net::LinkModel::Flow);
}

net::FabricParams SimulationCliOptions::fabric_params() const {
  const workload::FastForward skip = fast_forwards();
  return fabric.params(skip.contended ? net::contended_trains() : skip.steady ? net::steady_trains() : net::FabricParams{});
}

net::Fidelity SimulationCliOptions::fidelity_of(const topo::Topology& t) const {
  const net::Fidelity base = network_fidelity();
  if (fidelity.empty()) return base;
  try {
    net::check_media_named(fidelity, t);
    return net::parse_fidelity(fidelity, base);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--fidelity", e.what());
  }
}

std::optional<exec::SimulationRun> simulate_without_faults(const SimulationCliOptions& o, const topo::Topology& topology,
                                                           const goal::Schedule& schedule, ParallelContext& parallel) {
  if (!o.fabric.any_fault()) return std::nullopt;
  SimulationCliOptions intact = o;
  intact.fabric.link_down.clear();
  intact.fabric.switch_down.clear();
  return simulate_schedule(intact, topology, schedule, parallel);
}

std::optional<exec::SimulationRun> simulate_schedule(const SimulationCliOptions& o, const topo::Topology& topology,
                                                     const goal::Schedule& schedule, ParallelContext& parallel,
                                                     RunWatch* watch, const exec::Placement* given) {
  const bool keep = o.observe.keeps_details();
  exec::RecordOptions record;
  record.op_times = o.record_op_times || !o.ops.empty() || keep;
  record.flows = keep && o.has_fabric();
  std::optional<exec::Placement> placement;
  if (o.has_fabric() && !given) placement = place(o, schedule.num_ranks(), topology.num_hosts());
  exec::NetworkSetup setup =
      network_setup(o, topology, given && o.has_fabric() ? given : placement ? &*placement : nullptr, watch);
  setup.compute = o.compute.variation(schedule.num_ranks());
  if (keep) {
    setup.options.sample_interval = o.observe.sample_period();
    setup.options.max_samples = o.observe.max_samples;
  }
  exec::SimulationRun run = exec::simulate(schedule, setup, parallel.transport(), record);
  if (!parallel.is_root()) return std::nullopt;
  return run;
}

std::optional<exec::SimulationRun> simulate_streamed(const SimulationCliOptions& o, const topo::Topology& topology,
                                                     goal::ScheduleStream& stream, ParallelContext& parallel,
                                                     RunWatch* watch, exec::OpFinished on_finished) {
  std::optional<exec::Placement> placement;
  if (o.has_fabric()) placement = place(o, stream.num_ranks(), topology.num_hosts());
  exec::NetworkSetup setup = network_setup(o, topology, placement ? &*placement : nullptr, watch);
  setup.compute = o.compute.variation(stream.num_ranks());
  exec::SimulationRun run = exec::simulate(stream, setup, parallel.transport(), std::move(on_finished));
  if (!parallel.is_root()) return std::nullopt;
  return run;
}

std::unique_ptr<reuse::AloneTimingTable> alone_timing_table(const SimulationCliOptions& o, const topo::Topology& topology,
                                                            std::uint32_t ranks) {
  if (!o.has_fabric()) return std::make_unique<reuse::AloneTimingTable>(network_setup(o, topology, nullptr, nullptr));
  const exec::Placement placement = place(o, ranks, topology.num_hosts());
  return std::make_unique<reuse::AloneTimingTable>(network_setup(o, topology, &placement, nullptr));
}

void write_run_files(const SimulationCliOptions& o, const topo::Topology& topology, const goal::Schedule& schedule,
                     const exec::SimulationRun& run, const nlohmann::json& summary,
                     const ScheduleAnnotations& annotations) {
  if (!o.summary.empty()) {
    std::ofstream out(o.summary);
    out << summary.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + o.summary);
  }
  if (!o.ops.empty()) out::write_op_times_hdf5(o.ops, schedule, run.result.op_times);
  if (o.observe.keeps_details()) {
    nlohmann::json configuration = fabric_configuration(o.fabric, o.observe);
    configuration.update({{"topology", o.topology},
                          {"network", o.network},
                          {"fidelity", o.has_fabric() ? net::to_string(o.fidelity_of(topology)) : "-"},
                          {"scale_up", o.has_fabric() ? o.scale_up : "-"},
                          {"fast_forward", o.fast_forward},
                          {"placement", o.placement_name()},
                          {"placement_seed", o.placement_seed},
                          {"host_set", o.host_set},
                          {"loggops_set", o.loggops_set},
                          {"summary", summary}});
    const out::RunResults results =
        results_of(o.has_fabric() ? &topology : nullptr, schedule, run, annotations, configuration);
    if (!o.observe.hdf5.empty()) out::write_run_results_hdf5(o.observe.hdf5, results);
    if (!o.observe.trace.empty()) out::write_trace_events(o.observe.trace, results);
  }
}

void SimulationCliOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--topology", topology, "Topology file, or a preset of topologies/ by name (fat_tree_k8); packet mode")
      ->transform(topology_file_or_preset());
  cmd.add_option("--placement", placement, "Ranks on hosts: linear, round-robin, packed, random")->capture_default_str();
  cmd.add_option("--placement-file", placement_file, "One line per rank: 'host' or 'rank host'")->check(CLI::ExistingFile);
  cmd.add_option("--placement-seed", placement_seed, "Seed of the random placement")
      ->capture_default_str()
      ->check(whole_number(UINT64_MAX));
  cmd.add_option("--network", network,
                 "Network model: packet, flow (each message a fluid at its max-min fair share of its path's links; "
                 "no queues), or loggops (LogGOPSim's message-level model)")
      ->capture_default_str();
  cmd.add_option("--fidelity", fidelity,
                 "Packet or flow per kind of link, over --network's: e.g. nvlink=flow (flows inside servers, packets "
                 "between them); kinds network, nvlink, pcie, scale-up, scale-out, all");
  cmd.add_option("--scale-up", scale_up,
                 "Packet mode: how messages inside a server travel: packet, or message (rendezvous data as one "
                 "delay per port instead of NVLink packets: much faster, approximate; see the README)")
      ->capture_default_str();
  cmd.add_option("--loggops-set", loggops_set, "LogGOPS parameter name=value (L, o, g, G, O, S; LogGOPSim's defaults). A whole number is in "
                 "LogGOPSim's unit (ns, ns per byte, bytes); fractions and units also go: L=3.7us, G=0.04 or G=0.04ns "
                 "or G=200Gbps (the gap per byte to the picosecond, in G and G_ps), S=64KiB");
  cmd.add_option("--host-set", host_set, "Host cost name=value: o (ns per message), O (ns per byte), S (eager limit), control_bytes");
  cmd.add_flag("--json", json, "Print the summary as JSON");
  cmd.add_option("--summary", summary, "Write the JSON summary to this file");
  cmd.add_option("--ops", ops, "Write every op's start and end time to this HDF5 file");
  cmd.add_option("--fast-forward", fast_forward,
                 std::string("What to skip: off (exact), steady or contended") +
                     (lowers_collectives ? ", collectives, or steady or contended and collectives joined by a comma" : "") +
                     ". steady: flows that have settled on packet links (settle_packets packets without a rate cut, "
                     "window shrink, PFC pause, ECN mark or wait behind another flow's packets) send trains of 15 "
                     "packets the fabric moves as one unit (train_bytes; the README gives its error); contended: "
                     "trains of 60 packets from a flow's first packet on, which stay trains where flows share "
                     "queues (waits, ECN marks and PFC pauses no longer send them back to packets; "
                     "trains_through_queues): far fewer events, less exact where queues decide (the README "
                     "gives its error)" +
                     (lowers_collectives ? "; collectives: a blocking TP or EP collective inside one server is "
                                           "simulated once alone, then each repeat is a barrier over its group and "
                                           "each member's time alone (default: the workload file's cluster.fast_forward)"
                                         : ""));
  fabric.add_to(cmd);
  observe.add_to(cmd);
  compute.add_to(cmd);
}

workload::FastForward SimulationCliOptions::fast_forwards() const {
  return workload::parse_fast_forward(fast_forward).value_or(workload::FastForward{});
}

void SimulationCliOptions::check(bool topology_needed) const {
  const std::optional<workload::FastForward> skip = workload::parse_fast_forward(fast_forward);
  if (!skip || (skip->collectives && !lowers_collectives))
    throw CLI::ValidationError("--fast-forward", "expected " + std::string(lowers_collectives ? workload::kFastForwardValues : "off, steady or contended") +
                                                     ", found '" + fast_forward + "'");
  if (skip->steady) {
    const std::string kind = skip->contended ? "contended" : "steady";
    if (!has_fabric()) throw CLI::ValidationError("--fast-forward", kind + " applies to --network packet only (LogGOPS has no packets)");
    if (declared_fidelity() && !uses_packets())
      throw CLI::ValidationError("--fast-forward", kind + " skips packets, but every link runs as flows here");
  }
  if (network != "packet" && network != "flow" && network != "loggops")
    throw CLI::ValidationError("--network", "unknown network model '" + network + "' (packet, flow, loggops)");
  if (scale_up != "packet" && scale_up != "message")
    throw CLI::ValidationError("--scale-up", "unknown model '" + scale_up + "' (packet, message)");
  if (has_fabric() && topology_needed && topology.empty())
    throw CLI::ValidationError("--topology", "is required in " + network + " mode");
  if (!fidelity.empty()) {
    try {
      (void)net::parse_fidelity(fidelity);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--fidelity", e.what());
    }
  }
  // What one model has no use for is refused rather than ignored without a word.
  if (network == "loggops") {
    const SimulationCliOptions defaults;
    std::string packet_only = fabric.first_given();
    if (packet_only.empty() && !placement_file.empty()) packet_only = "--placement-file";
    if (packet_only.empty() && placement != defaults.placement) packet_only = "--placement";
    if (packet_only.empty() && !host_set.empty()) packet_only = "--host-set";
    if (packet_only.empty() && scale_up != defaults.scale_up) packet_only = "--scale-up";
    if (packet_only.empty() && !fidelity.empty()) packet_only = "--fidelity";
    if (!packet_only.empty())
      throw CLI::ValidationError(packet_only, "applies to --network packet or flow only (LogGOPS has no fabric, hosts or end time)");
  } else if (!loggops_set.empty()) {
    throw CLI::ValidationError("--loggops-set", "applies to --network loggops only");
  }
  if (uses_flows() && scale_up == "message")
    throw CLI::ValidationError("--scale-up", "message stands in for NVLink packets; with flow links give nvlink=flow instead");
  (void)loggops_params(*this);
  (void)fabric_params();
  (void)fabric.options();
  (void)host_params(*this);
  observe.check();
  (void)compute.spec();
  if (compute.straggler_report && !reports_stragglers)
    throw CLI::ValidationError("--straggler-report", "is for run (export a workload step with -o and run it)");
  if (compute.straggler_report && !compute.any())
    throw CLI::ValidationError("--straggler-report", "needs stragglers, noise or stalls to measure (--slow-gpu, ...)");
  if (compute.any()) {
    if (fast_forwards().collectives)
      throw CLI::ValidationError("--fast-forward",
                                 "collectives reuses timings taken without the stragglers and noise of --slow-gpu "
                                 "and the like: give --fast-forward off (or steady)");
  }
  if (fabric.any_fault() && fast_forwards().collectives)
    throw CLI::ValidationError("--fast-forward", "collectives reuses timings taken on a fabric without the failures of "
                                                 "--link-down/--switch-down: give --fast-forward off (or steady)");
  check_output_path("--summary", summary);
  check_output_path("--ops", ops);
}

}  // namespace collsim::cli
