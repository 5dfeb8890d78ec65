#include "run_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "collective_options.hpp"
#include "duration_option.hpp"
#include "collsim/collectives/generate.hpp"
#include "collsim/common/units.hpp"
#include "collsim/exec/fabric_executor.hpp"
#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/out/op_times_file.hpp"
#include "collsim/topo/loader.hpp"
#include "fabric_options.hpp"
#include "parallel_context.hpp"

namespace collsim::cli {
namespace {

struct RunOptions {
  std::string topology;
  std::string schedule;
  CollectiveCliOptions collective;
  std::string placement = "linear";
  std::string placement_file;
  std::uint64_t placement_seed = 1;
  std::string network = "packet";
  std::vector<std::string> host_set;  // name=value
  std::vector<std::string> loggops_set;  // name=value
  bool json = false;
  std::string summary;
  std::string ops;
  FabricCliOptions fabric;
};

exec::PacketHostParams host_params(const RunOptions& o) {
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
        p.control_bytes = std::stoull(value, &used);
      } else {
        throw CLI::ValidationError("--host-set", "unknown host parameter '" + name + "' (o, O, S, control_bytes)");
      }
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::logic_error&) {
      throw CLI::ValidationError("--host-set", "bad value '" + value + "' for " + name);
    }
  }
  if (p.o_ns < 0 || p.O_ns_per_byte < 0) throw CLI::ValidationError("--host-set", "o and O must not be negative");
  if (p.control_bytes == 0) throw CLI::ValidationError("--host-set", "control_bytes must be positive");
  return p;
}

struct Loaded {
  goal::Schedule schedule;
  std::string description;
};

Loaded load_or_generate(const RunOptions& o, const topo::Topology& t) {
  if (!o.schedule.empty()) return {goal::load_schedule(o.schedule), o.schedule};
  CollectiveCliOptions c = o.collective;
  if (c.ranks == 0 && c.group.empty()) c.ranks = t.num_hosts();
  const coll::Plan plan = c.plan();
  return {coll::generate(plan), std::string(coll::to_string(plan.collective)) + " " + plan.algorithm + " (" +
                                    std::string(coll::to_string(plan.protocol)) + ", " + std::to_string(plan.channels) +
                                    " channel(s)) of " + format_byte_size(plan.bytes) + " on " + std::to_string(plan.n) +
                                    " ranks"};
}

exec::Placement place(const RunOptions& o, std::uint32_t ranks, std::uint32_t hosts) {
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

nlohmann::json summary_json(const RunOptions& o, const topo::Topology& t, const Loaded& l, const exec::FabricRun& run) {
  const exec::RunResult& r = run.result;
  const pdes::RunStats& s = run.stats;
  return {
      {"complete", r.complete},
      {"schedule", l.description},
      {"topology", t.name()},
      {"network", o.network},
      {"placement", o.placement_file.empty() ? o.placement : o.placement_file},
      {"ranks", l.schedule.num_ranks()},
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

void print_human(const topo::Topology& t, const Loaded& l, const exec::FabricRun& run, const RunOptions& o) {
  const exec::RunResult& r = run.result;
  const pdes::RunStats& s = run.stats;
  auto us = [](std::int64_t ps) { return static_cast<double>(ps) / 1e6; };
  std::size_t slowest = 0, fastest = 0;
  for (std::size_t i = 0; i < r.rank_finish_ps.size(); ++i) {
    if (r.rank_finish_ps[i] > r.rank_finish_ps[slowest]) slowest = i;
    if (r.rank_finish_ps[i] < r.rank_finish_ps[fastest]) fastest = i;
  }
  std::cout << std::fixed << std::setprecision(3);
  std::cout << "schedule      " << l.description << ", " << r.ops_total << " ops\n"
            << "network       "
            << (o.network == "loggops" ? std::string("loggops (LogGOPSim's message-level model)")
                                       : "packet on " + t.name() + " (" + std::to_string(t.num_hosts()) +
                                             " hosts), placement " + (o.placement_file.empty() ? o.placement : o.placement_file))
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

void report_incomplete(const exec::RunResult& r) {
  constexpr std::size_t kShown = 1000;
  std::cerr << "collsim: the run did not complete: " << r.ops_total - r.ops_completed << " op(s) never finished, "
            << r.unmatched.size() << " message(s) never received\n";
  for (std::size_t i = 0; i < r.blocked.size() && i < kShown; ++i) std::cerr << "  blocked   " << r.blocked[i] << "\n";
  if (r.blocked.size() > kShown)
    std::cerr << "  ... and " << r.blocked.size() - kShown << " more blocked ops (all in --summary)\n";
  for (std::size_t i = 0; i < r.unmatched.size() && i < kShown; ++i) std::cerr << "  unmatched " << r.unmatched[i] << "\n";
  if (r.unmatched.size() > kShown) std::cerr << "  ... and " << r.unmatched.size() - kShown << " more unmatched\n";
}

exec::LogGOPSParams loggops_params(const RunOptions& o) {
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

// The message-level mode: LogGOPSim's model, sequential, on the first rank only.
exec::FabricRun run_loggops(const goal::Schedule& schedule, const exec::LogGOPSParams& params, bool record) {
  exec::LogGOPSOptions options;
  options.record_op_times = record;
  const auto t0 = std::chrono::steady_clock::now();
  const exec::LogGOPSResult l = exec::simulate_loggops(schedule, params, options);
  exec::FabricRun run;
  exec::RunResult& r = run.result;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.complete = l.complete;
  r.makespan_ps = static_cast<std::int64_t>(l.makespan) * 1000;
  for (std::uint64_t t : l.rank_finish) r.rank_finish_ps.push_back(static_cast<std::int64_t>(t) * 1000);
  r.ops_total = schedule.num_ops();
  r.ops_completed = l.ops_completed;
  r.messages = l.messages;
  r.bytes = l.bytes;
  r.events = l.events;
  r.events_per_s = r.wall_s > 0 ? static_cast<double>(l.events) / r.wall_s : 0.0;
  run.stats.events = l.events;
  run.stats.wall_s = r.wall_s;
  run.stats.events_per_s = r.events_per_s;
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

void run_run_command(const RunOptions& o) {
  if (o.schedule.empty() == o.collective.collective.empty())
    throw CLI::ValidationError("--schedule/--coll", "give exactly one of --schedule FILE and --coll NAME");
  if (o.network != "packet" && o.network != "loggops")
    throw CLI::ValidationError("--network", "unknown network model '" + o.network + "' (packet, loggops)");
  if (o.network == "packet" && o.topology.empty()) throw CLI::ValidationError("--topology", "is required in packet mode");
  const exec::LogGOPSParams loggops = loggops_params(o);
  const net::FabricParams params = o.fabric.params();
  const net::FabricOptions options = o.fabric.options();
  const exec::PacketHostParams host = host_params(o);

  ParallelContext parallel;
  bool complete = true;
  const int rc = parallel.guarded([&] {
    const topo::Topology t = o.topology.empty() ? topo::Topology{} : topo::load_topology(o.topology);
    const Loaded loaded = load_or_generate(o, t);
    exec::FabricRun run;
    if (o.network == "loggops") {
      if (!parallel.is_root()) return;
      run = run_loggops(loaded.schedule, loggops, !o.ops.empty());
    } else {
      const exec::Placement placement = place(o, loaded.schedule.num_ranks(), t.num_hosts());
      exec::FabricRunOptions run_options;
      run_options.record_op_times = !o.ops.empty();
      run = exec::run_on_fabric(t, params, parallel.transport(), options, loaded.schedule, placement, host, run_options);
      if (!parallel.is_root()) return;
    }
    complete = run.result.complete;
    const nlohmann::json j = summary_json(o, t, loaded, run);
    if (!o.summary.empty()) {
      std::ofstream out(o.summary);
      out << j.dump(2) << "\n";
      if (!out) throw std::runtime_error("cannot write " + o.summary);
    }
    if (!o.ops.empty()) out::write_op_times_hdf5(o.ops, loaded.schedule, run.result.op_times);
    if (o.json) {
      std::cout << j.dump(2) << std::endl;
    } else {
      print_human(t, loaded, run, o);
    }
    if (!complete) report_incomplete(run.result);
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
  if (!complete) throw CLI::RuntimeError(2);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a GOAL schedule (a file, or a collective lowered on the fly) on a fabric");
  cmd->add_option("--topology", o->topology, "Topology file (topologies/*.yaml); packet mode")->check(CLI::ExistingFile);
  cmd->add_option("--schedule", o->schedule, "GOAL schedule (.goal, .bin, .goalb)")->check(CLI::ExistingFile);
  o->collective.add_to(*cmd, "--coll");
  cmd->add_option("--placement", o->placement, "Ranks on hosts: linear, round-robin, packed, random")->capture_default_str();
  cmd->add_option("--placement-file", o->placement_file, "One line per rank: 'host' or 'rank host'")->check(CLI::ExistingFile);
  cmd->add_option("--placement-seed", o->placement_seed, "Seed of the random placement")->capture_default_str();
  cmd->add_option("--network", o->network, "Network model: packet, or loggops (LogGOPSim's message-level model)")
      ->capture_default_str();
  cmd->add_option("--loggops-set", o->loggops_set, "LogGOPS parameter name=value (L, o, g, G, O, S; LogGOPSim's defaults)");
  cmd->add_option("--host-set", o->host_set, "Host cost name=value: o (ns per message), O (ns per byte), S (eager limit), control_bytes");
  cmd->add_flag("--json", o->json, "Print the summary as JSON");
  cmd->add_option("--summary", o->summary, "Write the JSON summary to this file");
  cmd->add_option("--ops", o->ops, "Write every op's start and end time to this HDF5 file");
  o->fabric.add_to(*cmd);
  cmd->callback([o] { run_run_command(*o); });
}

}  // namespace collsim::cli
