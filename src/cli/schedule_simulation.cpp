#include "schedule_simulation.hpp"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "collsim/common/units.hpp"
#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/exec/loggops_stream.hpp"
#include "collsim/out/op_times_file.hpp"
#include "collsim/out/run_results.hpp"
#include "duration_option.hpp"
#include "loggops_from_topology.hpp"

namespace collsim::cli {
namespace {

exec::PacketHostParams host_params(const SimulationCliOptions& o) {
  exec::PacketHostParams p;
  for (const std::string& kv : o.host_set) {
    const auto [name, value] = parse_assignment_option("--host-set", kv);
    try {
      std::size_t used = 0;
      if (name == "o") {
        p.o_ns = std::stoll(value, &used);
      } else if (name == "O") {
        p.O_ns_per_byte = std::stod(value, &used);
      } else if (name == "S") {
        const auto b = parse_byte_size(value);
        if (!b) throw std::invalid_argument(value);
        p.eager_limit_bytes = *b;
        used = value.size();
      } else if (name == "control_bytes") {
        if (value.find('-') != std::string::npos) throw std::invalid_argument(value);  // stoull wraps "-1"
        p.control_bytes = std::stoull(value, &used);
      } else {
        throw CLI::ValidationError("--host-set", "unknown host parameter '" + name + "' (o, O, S, control_bytes)");
      }
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::logic_error&) {
      throw CLI::ValidationError("--host-set", "bad value '" + value + "' for " + name);
    }
  }
  // Beyond these a message's cost passes the end of simulated time (2^63 ps) and wraps.
  if (p.o_ns < 0 || p.o_ns > 1'000'000'000'000) throw CLI::ValidationError("--host-set", "o must be 0..10^12 ns");
  if (!(p.O_ns_per_byte >= 0 && p.O_ns_per_byte <= 1e6)) throw CLI::ValidationError("--host-set", "O must be 0..10^6 ns per byte");
  if (p.control_bytes == 0 || p.control_bytes > 65535) throw CLI::ValidationError("--host-set", "control_bytes must be 1..65535");
  return p;
}

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

// The counters of a LogGOPS run, as the packet mode reports them.
exec::FabricRun fabric_run_of(const exec::LogGOPSResult& l, std::uint64_t ops_total, double wall_s) {
  exec::FabricRun run;
  exec::RunResult& r = run.result;
  r.wall_s = wall_s;
  r.complete = l.complete;
  r.makespan_ps = static_cast<std::int64_t>(l.makespan) * 1000;
  for (std::uint64_t t : l.rank_finish) r.rank_finish_ps.push_back(static_cast<std::int64_t>(t) * 1000);
  r.ops_total = ops_total;
  r.ops_completed = l.ops_completed;
  r.messages = l.messages;
  r.bytes = l.bytes;
  r.events = l.events;
  r.events_per_s = r.wall_s > 0 ? static_cast<double>(l.events) / r.wall_s : 0.0;
  run.stats.events = l.events;
  run.stats.wall_s = r.wall_s;
  run.stats.events_per_s = r.events_per_s;
  return run;
}

// The message-level mode: LogGOPSim's model, sequential, on the first rank only.
exec::FabricRun run_loggops(const goal::Schedule& schedule, const exec::LogGOPSParams& params, bool record,
                            pdes::RunMonitor* monitor) {
  exec::LogGOPSOptions options;
  options.record_op_times = record;
  options.monitor = monitor;
  const auto t0 = std::chrono::steady_clock::now();
  const exec::LogGOPSResult l = exec::simulate_loggops(schedule, params, options);
  exec::FabricRun run =
      fabric_run_of(l, schedule.num_ops(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  exec::RunResult& r = run.result;
  for (const exec::BlockedOp& b : l.blocked) {
    const goal::RankOps ops = schedule.rank(b.rank);
    std::string why(exec::to_string(b.reason));
    for (goal::LocalOp p : b.unfinished_requires) why += ", op " + std::to_string(p) + " unfinished";
    for (goal::LocalOp p : b.unstarted_irequires) why += ", op " + std::to_string(p) + " not started";
    r.blocked.push_back("rank " + std::to_string(b.rank) + " " + exec::describe_op(b.op, ops.op(b.op)) + ": " + why);
  }
  for (const exec::UnmatchedMessage& m : l.unmatched)
    r.unmatched.push_back("rank " + std::to_string(m.to) + ": message from rank " + std::to_string(m.from) + " tag " +
                          std::to_string(m.tag) + " (" + exec::describe_op(m.send, schedule.rank(m.from).op(m.send)) +
                          " of rank " + std::to_string(m.from) + ") was never received");
  if (record) {
    for (goal::RankId rank = 0; rank < schedule.num_ranks(); ++rank) {
      const goal::RankOps ops = schedule.rank(rank);
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        const std::uint64_t g = ops.first_global_op() + i;
        auto ps = [](std::uint64_t ns) { return ns == exec::kNever ? std::int64_t{-1} : static_cast<std::int64_t>(ns) * 1000; };
        r.op_times.push_back({rank, i, ps(l.op_start[g]), ps(l.op_end[g])});
      }
    }
  }
  return run;
}

}  // namespace

std::optional<exec::FabricRun> simulate_stream(const SimulationCliOptions& o, goal::ScheduleStream& stream,
                                               ParallelContext& parallel, RunWatch* watch,
                                               exec::LogGOPSStreamOptions options) {
  const exec::LogGOPSParams params = loggops_params(o);
  if (!parallel.is_root()) return std::nullopt;
  options.monitor = watch;
  const auto t0 = std::chrono::steady_clock::now();
  const exec::LogGOPSStreamResult l = exec::simulate_loggops_stream(stream, params, options);
  exec::FabricRun run = fabric_run_of(l.run, l.ops_total,
                                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  exec::RunResult& r = run.result;
  r.peak_live_ops = l.peak_live_ops;
  // The ops themselves are gone from memory by now: what the window kept of them.
  for (const exec::BlockedOp& b : l.run.blocked)
    r.blocked.push_back("rank " + std::to_string(b.rank) + " " +
                        exec::describe_op(b.op, goal::Op{b.kind, b.peer, b.tag, b.size, 0, 0}) + ": " +
                        std::string(exec::to_string(b.reason)));
  if (l.run.num_blocked > l.run.blocked.size())
    r.blocked.push_back(std::to_string(l.run.num_blocked - l.run.blocked.size()) +
                        " more op(s) never reached (their prerequisites never finished)");
  for (const exec::UnmatchedMessage& m : l.run.unmatched)
    r.unmatched.push_back("rank " + std::to_string(m.to) + ": message from rank " + std::to_string(m.from) + " tag " +
                          std::to_string(m.tag) + " (" + std::to_string(m.size) + " bytes, op " + std::to_string(m.send) +
                          " of rank " + std::to_string(m.from) + ") was never received");
  return run;
}

nlohmann::json run_summary_json(const SimulationCliOptions& o, const topo::Topology& t, const goal::Schedule& schedule,
                                const std::string& description, const exec::FabricRun& run) {
  const exec::RunResult& r = run.result;
  const pdes::RunStats& s = run.stats;
  return {
      {"complete", r.complete},
      {"schedule", description},
      {"topology", t.name()},
      {"network", o.network},
      {"scale_up", o.network == "packet" ? o.scale_up : "-"},
      {"placement", o.placement_name()},
      {"ranks", schedule.num_ranks()},
      {"makespan_ps", r.makespan_ps},
      {"rank_finish_ps", r.rank_finish_ps},
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
      {"packets_forwarded", run.totals.packets_forwarded},
      {"drops", run.totals.drops},
      {"ecn_marks", run.totals.ecn_marks},
      {"pfc_pauses", run.totals.pfc_pauses},
      {"blocked", r.blocked},
      {"unmatched", r.unmatched},
  };
}

void print_run_human(const SimulationCliOptions& o, const topo::Topology& t, const goal::Schedule&,
                     const std::string& description, const exec::FabricRun& run) {
  const exec::RunResult& r = run.result;
  const pdes::RunStats& s = run.stats;
  auto us = [](std::int64_t ps) { return static_cast<double>(ps) / 1e6; };
  std::size_t slowest = 0, fastest = 0;
  for (std::size_t i = 0; i < r.rank_finish_ps.size(); ++i) {
    if (r.rank_finish_ps[i] > r.rank_finish_ps[slowest]) slowest = i;
    if (r.rank_finish_ps[i] < r.rank_finish_ps[fastest]) fastest = i;
  }
  std::cout << std::fixed << std::setprecision(3);
  std::cout << "schedule      " << description << ", " << r.ops_total << " ops\n"
            << "network       "
            << (o.network == "loggops" ? std::string("loggops (LogGOPSim's message-level model)")
                                       : "packet on " + t.name() + " (" + std::to_string(t.num_hosts()) +
                                             " hosts), placement " + o.placement_name() +
                                             (o.scale_up == "message" ? ", scale-up as messages" : ""))
            << "\n"
            << "makespan      " << us(r.makespan_ps) << " us";
  if (!r.rank_finish_ps.empty())
    std::cout << " (slowest rank " << slowest << ": " << us(r.rank_finish_ps[slowest]) << " us, fastest rank "
              << fastest << ": " << us(r.rank_finish_ps[fastest]) << " us)";
  std::cout << "\n"
            << "completed     " << r.ops_completed << " of " << r.ops_total << " ops; " << r.messages << " messages, "
            << r.bytes << " bytes\n"
            << "";
  if (o.network == "packet")
    std::cout << "fabric        " << run.totals.packets_forwarded << " packet-hops, drops " << run.totals.drops
              << ", ECN marks " << run.totals.ecn_marks << ", PFC pauses " << run.totals.pfc_pauses << "\n";
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

void report_incomplete(const exec::FabricRun& run) {
  constexpr std::size_t kShown = 1000;
  const exec::RunResult& r = run.result;
  std::cerr << "collsim: the run did not complete: " << r.ops_total - r.ops_completed << " op(s) never finished, "
            << r.unmatched.size() << " message(s) never received\n";
  if (!r.pfc_deadlock.empty()) std::cerr << "  PFC deadlock, a cycle of paused ports: " << r.pfc_deadlock << "\n";
  if (run.totals.drops_despite_pfc > 0)
    std::cerr << "  " << drops_despite_pfc(run.totals.drops_despite_pfc)
              << " (give the topology's switches a larger buffer, or a lower --set pfc_xoff_bytes=...)\n";
  for (std::size_t i = 0; i < r.blocked.size() && i < kShown; ++i) std::cerr << "  blocked   " << r.blocked[i] << "\n";
  if (r.blocked.size() > kShown)
    std::cerr << "  ... and " << r.blocked.size() - kShown << " more blocked ops (all in --summary)\n";
  for (std::size_t i = 0; i < r.unmatched.size() && i < kShown; ++i) std::cerr << "  unmatched " << r.unmatched[i] << "\n";
  if (r.unmatched.size() > kShown) std::cerr << "  ... and " << r.unmatched.size() - kShown << " more unmatched\n";
}


std::unique_ptr<RunWatch> watch_simulation(const SimulationCliOptions& o, ParallelContext& parallel,
                                           const topo::Topology& topology, const goal::Schedule& schedule) {
  return std::make_unique<RunWatch>(o.observe, parallel.is_root(), parallel.transport().size(),
                                    o.network == "packet" ? &topology : nullptr, "ops", schedule.num_ops());
}

std::optional<exec::FabricRun> simulate_schedule(const SimulationCliOptions& o, const topo::Topology& topology,
                                                 const goal::Schedule& schedule, ParallelContext& parallel,
                                                 RunWatch* watch) {
  const bool keep = !o.observe.hdf5.empty();
  const bool record = o.record_op_times || !o.ops.empty() || keep;
  if (o.network == "loggops") {
    const exec::LogGOPSParams params = loggops_params(o);
    if (!parallel.is_root()) return std::nullopt;
    return run_loggops(schedule, params, record, watch);
  }
  const exec::Placement placement = place(o, schedule.num_ranks(), topology.num_hosts());
  exec::FabricRunOptions run_options;
  run_options.record_op_times = record;
  run_options.record_flows = keep;
  net::FabricOptions fabric_options = o.fabric.options();
  fabric_options.monitor = watch;
  if (keep) {
    fabric_options.sample_interval = o.observe.sample_period();
    fabric_options.max_samples = o.observe.max_samples;
  }
  exec::PacketHostParams host = host_params(o);
  if (o.scale_up == "message") host.scale_up = scale_up_messages(topology, o.fabric.params());
  exec::FabricRun run = exec::run_on_fabric(topology, o.fabric.params(), parallel.transport(), fabric_options,
                                            schedule, placement, host, run_options);
  if (!parallel.is_root()) return std::nullopt;
  return run;
}

bool packet_stream_fits(const SimulationCliOptions& o, const topo::Topology& topology, std::uint32_t ranks) {
  for (const auto& on : place(o, ranks, topology.num_hosts()).ranks_on)
    if (on.size() > exec::kMaxStreamedRanksPerHost) return false;
  return true;
}

std::optional<exec::FabricRun> simulate_packet_stream(const SimulationCliOptions& o, const topo::Topology& topology,
                                                      goal::ScheduleStream& stream, ParallelContext& parallel,
                                                      RunWatch* watch, exec::StreamOpFinished on_finished) {
  const exec::Placement placement = place(o, stream.num_ranks(), topology.num_hosts());
  net::FabricOptions fabric_options = o.fabric.options();
  fabric_options.monitor = watch;
  exec::PacketHostParams host = host_params(o);
  if (o.scale_up == "message") host.scale_up = scale_up_messages(topology, o.fabric.params());
  exec::FabricRun run = exec::run_stream_on_fabric(topology, o.fabric.params(), parallel.transport(), fabric_options,
                                                   stream, placement, host, std::move(on_finished));
  if (!parallel.is_root()) return std::nullopt;
  return run;
}

void write_run_files(const SimulationCliOptions& o, const topo::Topology& topology, const goal::Schedule& schedule,
                     const exec::FabricRun& run, const nlohmann::json& summary,
                     const ScheduleAnnotations& annotations) {
  if (!o.summary.empty()) {
    std::ofstream out(o.summary);
    out << summary.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + o.summary);
  }
  if (!o.ops.empty()) out::write_op_times_hdf5(o.ops, schedule, run.result.op_times);
  if (!o.observe.hdf5.empty()) {
    nlohmann::json configuration = fabric_configuration(o.fabric, o.observe);
    configuration.update({{"topology", o.topology},
                          {"network", o.network},
      {"scale_up", o.network == "packet" ? o.scale_up : "-"},
                          {"placement", o.placement_name()},
                          {"placement_seed", o.placement_seed},
                          {"host_set", o.host_set},
                          {"loggops_set", o.loggops_set},
                          {"summary", summary}});
    out::write_run_results_hdf5(
        o.observe.hdf5,
        results_of(o.network == "packet" ? &topology : nullptr, schedule, run, annotations, configuration));
  }
}

void SimulationCliOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--topology", topology, "Topology file (topologies/*.yaml); packet mode")->check(CLI::ExistingFile);
  cmd.add_option("--placement", placement, "Ranks on hosts: linear, round-robin, packed, random")->capture_default_str();
  cmd.add_option("--placement-file", placement_file, "One line per rank: 'host' or 'rank host'")->check(CLI::ExistingFile);
  cmd.add_option("--placement-seed", placement_seed, "Seed of the random placement")
      ->capture_default_str()
      ->check(whole_number(UINT64_MAX));
  cmd.add_option("--network", network, "Network model: packet, or loggops (LogGOPSim's message-level model)")
      ->capture_default_str();
  cmd.add_option("--scale-up", scale_up,
                 "Packet mode: how messages inside a server travel: packet, or message (rendezvous data as one "
                 "delay per port instead of NVLink packets: much faster, approximate; see the README)")
      ->capture_default_str();
  cmd.add_option("--loggops-set", loggops_set, "LogGOPS parameter name=value (L, o, g, G, O, S; LogGOPSim's defaults)");
  cmd.add_option("--host-set", host_set, "Host cost name=value: o (ns per message), O (ns per byte), S (eager limit), control_bytes");
  cmd.add_flag("--json", json, "Print the summary as JSON");
  cmd.add_option("--summary", summary, "Write the JSON summary to this file");
  cmd.add_option("--ops", ops, "Write every op's start and end time to this HDF5 file");
  fabric.add_to(cmd);
  observe.add_to(cmd);
}

void SimulationCliOptions::check(bool topology_needed) const {
  if (network != "packet" && network != "loggops")
    throw CLI::ValidationError("--network", "unknown network model '" + network + "' (packet, loggops)");
  if (scale_up != "packet" && scale_up != "message")
    throw CLI::ValidationError("--scale-up", "unknown model '" + scale_up + "' (packet, message)");
  if (network == "packet" && topology_needed && topology.empty())
    throw CLI::ValidationError("--topology", "is required in packet mode");
  // What one model has no use for is refused rather than ignored without a word.
  if (network == "loggops") {
    const SimulationCliOptions defaults;
    std::string packet_only = fabric.first_given();
    if (packet_only.empty() && !placement_file.empty()) packet_only = "--placement-file";
    if (packet_only.empty() && placement != defaults.placement) packet_only = "--placement";
    if (packet_only.empty() && !host_set.empty()) packet_only = "--host-set";
    if (packet_only.empty() && scale_up != defaults.scale_up) packet_only = "--scale-up";
    if (!packet_only.empty())
      throw CLI::ValidationError(packet_only, "applies to --network packet only (LogGOPS has no fabric, hosts or end time)");
  } else if (!loggops_set.empty()) {
    throw CLI::ValidationError("--loggops-set", "applies to --network loggops only");
  }
  (void)loggops_params(*this);
  (void)fabric.params();
  (void)fabric.options();
  (void)host_params(*this);
  observe.check();
  check_output_path("--summary", summary);
  check_output_path("--ops", ops);
}

}  // namespace collsim::cli
