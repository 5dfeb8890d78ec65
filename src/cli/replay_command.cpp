#include "replay_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <nlohmann/json.hpp>

#include "collsim/collectives/collective.hpp"
#include "collsim/common/units.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/topo/loader.hpp"
#include "collsim/traces/replay_lowering.hpp"
#include "collsim/traces/trace_format.hpp"
#include "duration_option.hpp"
#include "energy_output.hpp"
#include "fault_report.hpp"
#include "schedule_simulation.hpp"

namespace collsim::cli {
namespace {

struct ReplayOptions {
  std::vector<std::string> traces;
  std::string comm_groups;
  std::uint32_t ranks = 0;  // --ranks: one rank's Chakra trace run by this many ranks
  std::string emit_goal;
  bool ctrl_deps = false;
  bool no_timestamps = false;
  std::string compute = "duration";
  double peak_tflops = 0.0;
  std::string mem_bw;
  // How collectives are lowered.
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::uint32_t channels = 1;
  std::string chunk;
  std::string reduce_bw = "200GB/s";
  std::int64_t launch_ns = -1;
  std::int64_t step_ns = -1;
  SimulationCliOptions sim;
  EnergyOptions energy;
};

collectives::CollectiveSpec collective_shape(const ReplayOptions& o) {
  collectives::CollectiveSpec spec;
  spec.algorithm = o.algorithm;
  const auto p = collectives::protocol_from_name(o.protocol);
  if (!p) throw CLI::ValidationError("--proto", "unknown protocol '" + o.protocol + "' (LL, LL128, Simple, auto)");
  spec.protocol = *p;
  if (o.channels == 0) throw CLI::ValidationError("--channels", "must be at least 1");
  spec.channels = o.channels;
  std::string error;
  if (!o.chunk.empty()) {
    const auto c = parse_byte_size(o.chunk, &error);
    if (!c || *c == 0) throw CLI::ValidationError("--chunk", c ? "must be at least 1 byte" : error);
    spec.chunk_bytes = *c;
  }
  const auto bw = parse_bandwidth(o.reduce_bw, &error);
  if (!bw) throw CLI::ValidationError("--reduce-bw", error);
  spec.reduce_bytes_per_ns = bw->bytes_per_second() / 1e9;
  spec.launch = latency_ns_option(o.launch_ns);
  spec.step = latency_ns_option(o.step_ns);
  return spec;
}

traces::TraceOptions trace_options(const ReplayOptions& o) {
  traces::TraceOptions t;
  t.comm_groups = o.comm_groups;
  t.symmetric_ranks = o.ranks;
  t.chakra.ctrl_deps = o.ctrl_deps;
  t.nccl.timestamps = !o.no_timestamps;
  if (o.compute == "roofline") {
    if (!(o.peak_tflops > 0) || o.mem_bw.empty())
      throw CLI::ValidationError("--compute", "roofline needs --peak-tflops and --mem-bw");
    std::string error;
    const auto bw = parse_bandwidth(o.mem_bw, &error);
    if (!bw) throw CLI::ValidationError("--mem-bw", error);
    t.chakra.compute.roofline = true;
    t.chakra.compute.flops_per_ns = o.peak_tflops * 1000.0;
    t.chakra.compute.bytes_per_ns = bw->bytes_per_second() / 1e9;
  } else if (o.compute != "duration") {
    throw CLI::ValidationError("--compute", "unknown compute model '" + o.compute + "' (duration, roofline)");
  }
  return t;
}

struct CollectiveTime {
  std::optional<SimTime> start;  // empty: no op started
  std::optional<SimTime> end;    // empty: some op never finished
};

std::vector<CollectiveTime> collective_times(const traces::LoweredReplay& lowered, const exec::RunResult& r) {
  const goal::Schedule& s = lowered.schedule;
  std::vector<CollectiveTime> out;
  for (const traces::LoweredCollective& c : lowered.collectives) {
    CollectiveTime t;
    bool finished = true;
    for (const traces::OpSpan& span : c.ops)
      for (goal::LocalOp op = span.begin; op < span.end; ++op) {
        const exec::OpTime& ot = r.op_times[s.rank(span.rank).first_global_op() + op];
        if (ot.start && (!t.start || *ot.start < *t.start)) t.start = ot.start;
        if (!ot.end) finished = false;
        t.end = std::max(t.end, ot.end);
      }
    if (!finished) t.end.reset();
    out.push_back(t);
  }
  return out;
}

// Empty when the collective did not finish.
std::optional<SimTime> duration(const CollectiveTime& t) {
  if (!t.start || !t.end) return std::nullopt;
  return *t.end - *t.start;
}

nlohmann::json collectives_json(const traces::LoweredReplay& lowered, const std::vector<CollectiveTime>& times) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < lowered.collectives.size(); ++i) {
    const traces::LoweredCollective& c = lowered.collectives[i];
    list.push_back({{"kind", c.kind},
                    {"algorithm", c.algorithm},
                    {"bytes", c.bytes},
                    {"ranks", c.ranks},
                    {"start_ps", exec::picoseconds_or_never(times[i].start)},
                    {"end_ps", exec::picoseconds_or_never(times[i].end)},
                    {"duration_ps", exec::picoseconds_or_never(duration(times[i]))},
                    {"origin", c.origin}});
  }
  return list;
}

// The collectives the failures of --link-down/--switch-down slowed: each one's duration with
// them against without, the longest delay first (one that never finished with them first of all).
struct SlowedCollective {
  std::size_t index;
  SimTime without;
  std::optional<SimTime> with;
  SimTime delay() const { return with ? *with - without : SimTime::infinity(); }
};

std::vector<SlowedCollective> slowed_collectives(const std::vector<CollectiveTime>& with,
                                                 const std::vector<CollectiveTime>& without) {
  std::vector<SlowedCollective> out;
  for (std::size_t i = 0; i < with.size(); ++i) {
    const std::optional<SimTime> a = duration(with[i]), b = duration(without[i]);
    if (b && (!a || *a > *b)) out.push_back({i, *b, a});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.delay() > y.delay(); });
  return out;
}

nlohmann::json slowed_json(const traces::LoweredReplay& lowered, const std::vector<SlowedCollective>& slowed) {
  nlohmann::json list = nlohmann::json::array();
  for (const SlowedCollective& c : slowed)
    list.push_back({{"collective", c.index},
                    {"kind", lowered.collectives[c.index].kind},
                    {"duration_without_faults_ps", c.without.picoseconds()},
                    {"duration_ps", exec::picoseconds_or_never(c.with)}});
  return {{"collectives_slowed", list}};
}

std::string slowed_line(const traces::LoweredReplay& lowered, const std::vector<SlowedCollective>& slowed) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << "              " << slowed.size() << " of "
      << lowered.collectives.size() << " collectives slowed";
  if (!slowed.empty()) {
    const SlowedCollective& c = slowed.front();
    out << ", most #" << c.index << " " << lowered.collectives[c.index].kind << ": ";
    if (c.with) out << static_cast<double>(c.without.picoseconds()) / 1e6 << " -> "
                    << static_cast<double>(c.with->picoseconds()) / 1e6 << " us";
    else out << "never finished";
  }
  out << "\n";
  return out.str();
}

void print_collectives(const traces::LoweredReplay& lowered, const std::vector<CollectiveTime>& times) {
  constexpr std::size_t kShown = 50;
  auto us = [](std::int64_t ps) { return static_cast<double>(ps) / 1e6; };
  std::cout << "collectives   " << lowered.collectives.size() << "\n"
            << "     #  kind            algorithm              bytes  ranks    start us      end us  duration us\n";
  for (std::size_t i = 0; i < lowered.collectives.size() && i < kShown; ++i) {
    const traces::LoweredCollective& c = lowered.collectives[i];
    std::cout << std::setw(6) << i << "  " << std::left << std::setw(14) << c.kind << "  " << std::setw(19) << c.algorithm
              << std::right << std::setw(10) << format_byte_size(c.bytes) << std::setw(7) << c.ranks.size();
    const std::optional<SimTime> took = duration(times[i]);
    std::cout << std::setw(12) << us(exec::picoseconds_or_never(times[i].start));
    if (!took) {
      std::cout << "  did not finish\n";
      continue;
    }
    std::cout << std::setw(12) << us(times[i].end->picoseconds()) << std::setw(13) << us(took->picoseconds()) << "\n";
  }
  if (lowered.collectives.size() > kShown)
    std::cout << "  ... and " << lowered.collectives.size() - kShown << " more (all of them with --json)\n";
}

// Every rank's part of every collective (and transfer) of the trace, for --hdf5: one name per
// collective, as its kind and where the trace has it.
ScheduleAnnotations annotations_of(const traces::LoweredReplay& lowered) {
  ScheduleAnnotations a;
  for (const traces::LoweredCollective& c : lowered.collectives) {
    const auto name = static_cast<std::uint32_t>(a.span_names.size());
    a.span_names.push_back(c.kind + (c.origin.empty() ? "" : " (" + c.origin + ")"));
    for (const traces::OpSpan& span : c.ops) a.spans.push_back({span.rank, name, span.begin, span.end});
  }
  return a;
}

void run_replay_command(const ReplayOptions& o) {
  o.sim.check();
  const collectives::CollectiveSpec shape = collective_shape(o);
  const traces::TraceOptions topts = trace_options(o);
  SimulationCliOptions sim = o.sim;
  sim.record_op_times = true;  // collective start and end come from their ops' times
  std::optional<energy::PowerModel> power;
  if (o.energy.enabled) {
    if (sim.topology.empty()) throw CLI::ValidationError("--energy", "needs the cluster's topology (--topology)");
    power = power_model(o.energy, o.energy.gpu);
  }

  ParallelContext parallel;
  bool complete = true;
  const int rc = parallel.guarded([&] {
    const topo::Topology t = sim.topology.empty() ? topo::Topology{} : topo::load_topology(sim.topology);
    const traces::ReplayProgram program = traces::read_traces(o.traces, topts);
    const traces::LoweredReplay lowered = traces::lower_replay(program, shape);
    if (!o.emit_goal.empty() && parallel.is_root()) {
      const auto format = goal::format_from_extension(o.emit_goal);
      goal::save_schedule(lowered.schedule, o.emit_goal, format.value_or(goal::ScheduleFormat::Text));
    }
    const auto watch = watch_simulation(sim, parallel, t, lowered.schedule);
    const std::optional<exec::SimulationRun> run = simulate_schedule(sim, t, lowered.schedule, parallel, watch.get());
    // The same replay on a fabric that does not fail, for what the failures cost each collective.
    const std::optional<exec::SimulationRun> intact = simulate_without_faults(sim, t, lowered.schedule, parallel);
    if (!run) return;
    complete = run->result.complete;
    const std::vector<CollectiveTime> times = collective_times(lowered, run->result);
    nlohmann::json j = run_summary_json(sim, t, lowered.schedule, program.description, *run);
    j["collectives"] = collectives_json(lowered, times);
    std::vector<SlowedCollective> slowed;
    if (intact) {
      slowed = slowed_collectives(times, collective_times(lowered, intact->result));
      j["faults"].update(fault_cost_json(complete ? std::optional(run->result.makespan) : std::nullopt,
                                         intact->result.makespan));
      j["faults"].update(slowed_json(lowered, slowed));
    }
    std::optional<energy::StepEnergy> used;
    if (power) {
      const exec::Placement placement = place(sim, lowered.schedule.num_ranks(), t.num_hosts());
      used = energy::account_step(t, *power, run->result.makespan,
                                  activity_from_ops(lowered.schedule, run->result.op_times, placement.host_of),
                                  run->link_bytes);
      j.update(energy_json(*used, *power, o.energy));
    }
    write_run_files(sim, t, lowered.schedule, *run, j, annotations_of(lowered));
    if (sim.json) {
      std::cout << j.dump(2) << std::endl;
    } else {
      print_run_human(sim, t, lowered.schedule, program.description, *run,
                      intact ? std::optional(intact->result.makespan) : std::nullopt);
      if (intact) std::cout << slowed_line(lowered, slowed);
      print_collectives(lowered, times);
      if (used) print_energy(*used, *power, o.energy);
    }
    if (!complete) report_incomplete(*run);
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
  if (!complete) throw CLI::RuntimeError(2);
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Replay traces (Chakra ET files <prefix>.<rank>.et, or NCCL INFO logs) as GOAL on a fabric");
  cmd->add_option("TRACE", o->traces, "Chakra rank files, their directory or prefix; or NCCL_DEBUG=INFO logs")
      ->required()
      ->expected(1, -1);
  cmd->add_option("--ranks", o->ranks,
                  "Chakra: run one rank's trace on this many ranks alike (collectives over the process groups it "
                  "names: all ranks, or as --comm-groups says)")
      ->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--comm-groups", o->comm_groups, "Chakra process groups: JSON {\"<pg_name>\": [ranks...]}")
      ->check(CLI::ExistingFile);
  cmd->add_option("--emit-goal", o->emit_goal, "Also write the lowered schedule (.goal, .bin, .goalb)");
  cmd->add_flag("--ctrl-deps", o->ctrl_deps, "Chakra: also order nodes on ctrl_deps (default: data_deps only)");
  cmd->add_option("--compute", o->compute, "Chakra COMP nodes: duration (as traced) or roofline")->capture_default_str();
  cmd->add_option("--peak-tflops", o->peak_tflops, "Roofline: peak TFLOP/s")->check(positive_real());
  cmd->add_option("--mem-bw", o->mem_bw, "Roofline: memory bandwidth (e.g. 2TB/s)");
  cmd->add_flag("--no-timestamps", o->no_timestamps, "NCCL logs: ignore timestamps (no compute gaps)");
  cmd->add_option("--algo", o->algorithm, "Collective algorithm, or auto (NCCL's tuning model)")->capture_default_str();
  cmd->add_option("--proto", o->protocol, "LL, LL128, Simple, or auto")->capture_default_str();
  cmd->add_option("--channels", o->channels, "Channels per collective")->capture_default_str();
  cmd->add_option("--chunk", o->chunk, "Data bytes per pipelined message (default: the protocol's)");
  cmd->add_option("--reduce-bw", o->reduce_bw, "Reduction bandwidth")->capture_default_str();
  cmd->add_option("--launch-ns", o->launch_ns, "Start-up latency per channel (default: the protocol's)");
  cmd->add_option("--step-ns", o->step_ns, "Latency before each send (default: the protocol's)");
  o->sim.add_to(*cmd);
  add_energy_options(*cmd, o->energy, true);
  cmd->callback([o] { run_replay_command(*o); });
}

}  // namespace collsim::cli
