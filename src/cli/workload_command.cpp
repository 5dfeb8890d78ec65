#include "workload_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "collsim/common/input_error.hpp"
#include "collsim/common/memory_budget.hpp"
#include "collsim/common/units.hpp"
#include "collsim/config/preset_file.hpp"
#include "collsim/energy/step_energy.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/logging/logging.hpp"
#include "collsim/net/fidelity.hpp"
#include "collsim/pdes/transport.hpp"
#include "collsim/topo/loader.hpp"
#include "collsim/workload/parallel_layout.hpp"
#include "collsim/workload/role_timeline.hpp"
#include "collsim/workload/step_lowering.hpp"
#include "collsim/workload/step_report.hpp"
#include "collsim/workload/step_stream.hpp"
#include "collsim/workload/workload_loader.hpp"
#include "energy_output.hpp"
#include "loggops_from_topology.hpp"
#include "observe_options.hpp"
#include "preset_paths.hpp"
#include "schedule_simulation.hpp"

namespace collsim::cli {
namespace {

struct WorkloadOptions {
  std::string workload;
  std::string output;
  bool run = false;
  bool whole_step = false;
  SimulationCliOptions sim;
  EnergyOptions energy;
  std::optional<energy::PowerModel> power;  // with --energy
  CLI::Option* network_option = nullptr;
  CLI::Option* fast_forward_option = nullptr;
};

constexpr workload::Dimension kDims[] = {workload::Dimension::TP, workload::Dimension::PP, workload::Dimension::DP,
                                         workload::Dimension::EP};

void check_fits(const workload::WorkloadSpec& w, const topo::Topology& t, const std::string& file) {
  if (w.world() > t.num_hosts())
    throw InputError::in_file(file, "the workload needs " + std::to_string(w.world()) + " GPUs (TP " +
                                        std::to_string(w.parallel.tp) + " × PP " + std::to_string(w.parallel.pp) +
                                        " × DP " + std::to_string(w.parallel.dp) + ") but topology " + t.name() +
                                        " has " + std::to_string(t.num_hosts()) + " hosts");
  const std::uint32_t per_node = t.hosts_per_server();
  if (per_node <= 1) return;
  // Under linear placement rank r runs on server r / per_node; every TP group must be on one.
  const workload::ParallelLayout layout(w.parallel);
  for (goal::RankId r = 0; r < w.world(); ++r) {
    const std::vector<goal::RankId> g = layout.tp_group(r);
    for (goal::RankId m : g)
      if (m / per_node != g.front() / per_node)
        throw InputError::in_file(file, "a TP group of " + std::to_string(w.parallel.tp) + " GPUs does not fit the " +
                                            std::to_string(per_node) + "-GPU servers of " + t.name() +
                                            ": tensor parallelism must stay on one server's NVLink (TP dividing " +
                                            std::to_string(per_node) + ", TP first in the order)");
  }
}

// A whole step held in memory is refused before it is lowered when it cannot fit, rather than
// killed by the kernel half-way. Bytes per op measured on llama3_70b (85 M ops) and the
// 128-GPU gpt3_175b variant: the schedule and its roles ~41 (for -o), with a LogGOPS run ~108,
// with a fabric run ~136; rounded up.
void check_whole_step_fits(const workload::WorkloadSpec& w, const workload::LoweringOptions& lowering, bool simulate,
                           bool loggops, const std::string& file) {
  const std::optional<common::MemoryState> memory = common::read_memory_state();
  if (!memory) return;
  const std::uint64_t available = memory->available;
  workload::StepSize size;
  try {
    size = workload::estimate_step_size(w, lowering);
  } catch (const std::invalid_argument& e) {
    throw InputError::in_file(file, e.what());
  }
  const std::uint64_t per_op = !simulate ? 45 : loggops ? 115 : 145;
  const std::uint64_t needed = size.ops * per_op;
  logging::logger("workload").debug("the whole step: about {} ops and {} dependencies, {} bytes held, {} available",
                                    size.ops, size.edges, needed, available);
  if (needed <= available) return;
  const auto gb = common::memory_text;
  throw InputError::in_file(
      file, "the whole step is about " + std::to_string(size.ops / 1'000'000) + " M ops; held in memory" +
                std::string(simulate ? " and simulated" : "") + " it needs about " + gb(needed) + " (" +
                std::to_string(per_op) + " B per op), and this machine has " + gb(available) +
                " available. Simulate it streamed, as it is lowered (without -o, --ops, --hdf5 or --whole-step), "
                "or make it smaller (fewer layers or micro-batches)");
}

std::string ops_text(std::uint64_t ops) {
  return ops >= 10'000'000 ? std::to_string(ops / 1'000'000) + " M" : std::to_string(ops);
}

// A streamed step holds a window of each rank's ops, not the whole step. How many at its peak
// depends on how the run unfolds; measured on the presets, never less than half of every
// rank's largest pieces (StepSize::largest_pieces_ops), at 189-270 B per op held with the
// fabric and the executor. A step that needs more than the machine has even at that low count
// is refused here; one that outgrows it later stops with an error (RunWatch). Under mpirun the
// simulator ranks share the ops, on machines this cannot see: only the run's watch decides.
void check_streamed_step_fits(const workload::StepSize& size, std::uint32_t simulator_ranks, const std::string& file) {
  constexpr std::uint64_t kBytesPerPieceOp = 100;  // half the pieces' ops, at 200 B each
  const std::optional<common::MemoryState> memory = common::read_memory_state();
  if (!memory || simulator_ranks > 1) return;
  const std::uint64_t needed = size.largest_pieces_ops * kBytesPerPieceOp;
  const std::uint64_t usable = memory->available - std::min(memory->available, common::memory_reserve(memory->total));
  logging::logger("workload").debug("streamed: the ranks' largest pieces are {} ops, about {} bytes held at least, {} usable",
                                    size.largest_pieces_ops, needed, usable);
  if (needed <= usable) return;
  throw InputError::in_file(
      file, "streamed, the step holds at least about " + ops_text(size.largest_pieces_ops / 2) +
                " ops at once (half of what the ranks' largest pieces hold, as measured on the presets), about " +
                common::memory_text(needed) + ", and this machine has " + common::memory_text(usable) + " to give (" +
                common::memory_text(memory->available) + " available, less a reserve of " +
                common::memory_text(common::memory_reserve(memory->total)) +
                "). Run it on a machine with more memory, on several machines with mpirun, or make it smaller "
                "(fewer GPUs, layers or micro-batches)");
}

std::string describe(const workload::WorkloadSpec& w, const workload::StepTotals& step) {
  const workload::ParallelSpec& p = w.parallel;
  std::ostringstream s;
  const double params = static_cast<double>(step.total_params);
  s << w.name << ": " << w.model.name << " (" << std::fixed << std::setprecision(1)
    << (params >= 1e9 ? params / 1e9 : params / 1e6) << (params >= 1e9 ? " B" : " M") << " params), TP" << p.tp << (p.sp ? "+SP" : "") << " PP" << p.pp
    << " DP" << p.dp;
  if (p.ep > 1) s << " EP" << p.ep;
  if (p.zero != workload::DpSharding::None) s << " " << workload::to_string(p.zero);
  s << ", " << step.micro_batches << " micro-batches of " << w.training.micro_batch << " ("
    << workload::to_string(p.schedule) << "), " << w.world() << " × " << w.device.name;
  return s.str();
}

nlohmann::json dims_json(const auto& values) {
  nlohmann::json j = nlohmann::json::object();
  for (workload::Dimension d : kDims) j[std::string(workload::to_string(d))] = values[static_cast<std::size_t>(d)];
  return j;
}

nlohmann::json report_json(const workload::WorkloadSpec& w, const workload::StepTotals& step,
                           const workload::StepReport& r) {
  std::array<std::int64_t, workload::kDimensions> exposed_comm_ps{};
  for (std::size_t d = 0; d < workload::kDimensions; ++d) exposed_comm_ps[d] = r.exposed_comm[d].picoseconds();
  return {{"workload", w.name},
          {"model", w.model.name},
          {"gpus", w.world()},
          {"micro_batches", step.micro_batches},
          {"iteration_ps", r.iteration.picoseconds()},
          {"critical_rank", r.critical_rank},
          {"compute_ps", r.compute.picoseconds()},
          {"exposed_comm_ps", dims_json(exposed_comm_ps)},
          {"idle_ps", r.idle.picoseconds()},
          {"mfu", r.mfu},
          {"model_flops", step.model_flops},
          {"bytes_per_rank", dims_json(r.bytes_per_rank)}};
}

void print_report(const workload::WorkloadSpec& w, const workload::StepReport& r) {
  const double it = static_cast<double>(r.iteration.picoseconds());
  auto ms = [](SimTime t) { return static_cast<double>(t.picoseconds()) / 1e9; };
  auto pct = [&](SimTime t) { return it > 0 ? 100.0 * static_cast<double>(t.picoseconds()) / it : 0.0; };
  std::cout << std::fixed << std::setprecision(3) << "iteration     " << ms(r.iteration)
            << " ms (slowest rank " << r.critical_rank << "), MFU " << std::setprecision(1) << 100 * r.mfu << " %\n"
            << "where the time goes on rank " << r.critical_rank << ":\n";
  auto row = [&](const std::string& what, SimTime t) {
    std::cout << "  " << std::left << std::setw(30) << what << std::right << std::setw(12) << std::setprecision(3)
              << ms(t) << " ms " << std::setw(6) << std::setprecision(1) << pct(t) << " %\n";
  };
  row("compute", r.compute);
  for (workload::Dimension d : kDims) {
    if (d == workload::Dimension::EP && w.parallel.ep <= 1) continue;
    std::string what = "exposed " + std::string(workload::to_string(d)) + " communication";
    if (d == workload::Dimension::PP) what = "exposed pp (incl. bubble)";
    row(what, r.exposed_comm[static_cast<std::size_t>(d)]);
  }
  row("idle", r.idle);
  std::cout << "bytes sent per GPU:";
  for (workload::Dimension d : kDims)
    std::cout << " " << workload::to_string(d) << " " << std::setprecision(1)
              << r.bytes_per_rank[static_cast<std::size_t>(d)] / 1e6 << " MB";
  std::cout << std::endl;
}

std::uint64_t collectives_reused(const workload::StepTotals& step) {
  std::uint64_t reused = 0;
  for (std::uint64_t n : step.collectives_reused) reused += n;
  return reused;
}

// What reusing collectives' timing did (nothing when it was off).
nlohmann::json reuse_json(const workload::StepTotals& step, const reuse::AloneTimingTable* alone) {
  if (!alone) return nlohmann::json::object();
  return {{"collectives_reused", collectives_reused(step)},
          {"collectives_timed_alone", alone->collectives_timed()},
          {"timing_alone_s", alone->seconds_timing()}};
}

void print_reuse(const workload::StepTotals& step, const reuse::AloneTimingTable* alone) {
  if (!alone) return;
  std::cout << "fast-forward  " << collectives_reused(step)
            << " rank parts of collectives reused the timing of " << alone->collectives_timed()
            << " simulated alone (" << std::fixed << std::setprecision(1) << alone->seconds_timing() << " s)\n";
}

// The step's ranks without their ops: what the summary reads of a schedule it never held.
// Every GPU's activity over the step, on the host the placement gave it, against the power
// figures; link_bytes empty under LogGOPS (no links).
energy::StepEnergy step_energy(const WorkloadOptions& o, const topo::Topology& t, const workload::RoleTimelines& timelines,
                               const workload::StepReport& report, const std::vector<std::uint64_t>& link_bytes) {
  const exec::Placement placement = place(o.sim, timelines.num_ranks(), t.num_hosts());
  std::vector<energy::GpuActivity> gpus;
  gpus.reserve(timelines.num_ranks());
  for (goal::RankId r = 0; r < timelines.num_ranks(); ++r) {
    const workload::RankActivity a = timelines.activity(r);
    gpus.push_back({placement.host_of[r], a.computing, a.communicating});
  }
  return energy::account_step(t, *o.power, report.iteration, gpus, link_bytes);
}

goal::Schedule ranks_only(std::uint32_t ranks) {
  goal::ScheduleBuilder builder(ranks);
  for (goal::RankId r = 0; r < ranks; ++r) {
    builder.begin_rank(r);
    builder.end_rank();
  }
  return builder.finish();
}

// What a simulator rank knows of the ranks it ran: their busy intervals by role and their
// totals, gathered on the root rank of a parallel packet run.
struct RoleInterval {
  goal::RankId rank;
  std::uint32_t role;
  SimTime start, end;
};
struct RankTotals {
  goal::RankId rank;
  std::uint64_t compute_ns;
  std::array<std::uint64_t, workload::kDimensions> bytes_sent;
  std::uint64_t collectives_reused;
};

void gather_ranks(pdes::Transport& transport, workload::StepStream& stream, workload::RoleTimelines& timelines) {
  std::vector<RoleInterval> intervals;
  std::vector<RankTotals> totals;
  const workload::StepTotals& mine = stream.totals();
  for (goal::RankId r = 0; r < stream.num_ranks(); ++r) {
    if (!stream.started(r)) continue;
    totals.push_back({r, mine.compute_ns[r], mine.bytes_sent[r], mine.collectives_reused[r]});
    for (std::uint32_t role = 0; role <= workload::kDimensions; ++role)
      for (const workload::BusyInterval& b : timelines.busy(r, static_cast<workload::OpRole>(role)))
        intervals.push_back({r, role, b.start, b.end});
  }
  intervals = pdes::gather_values(transport, intervals);
  totals = pdes::gather_values(transport, totals);
  if (transport.rank() != 0) return;
  workload::RoleTimelines all(stream.num_ranks());
  for (const RoleInterval& i : intervals) all.add(i.rank, static_cast<workload::OpRole>(i.role), i.start, i.end);
  timelines = std::move(all);
  for (const RankTotals& t : totals) stream.set_rank_totals(t.rank, t.compute_ns, t.bytes_sent, t.collectives_reused);
}

// Without -o, --ops or --hdf5 nothing needs the whole schedule, so each rank's program is
// lowered as the run reaches it and forgotten once done, and the report is built from each
// rank's busy time by role. Same numbers as lowering first, in a fraction of the memory (what
// the ops in flight need). In loggops mode the root rank runs it all; in packet mode every
// simulator rank lowers its own hosts' ranks. Whether the run completed; nothing when the
// stream cannot be run exactly (exec::StreamOrderError, loggops mode): then the caller
// lowers the whole step.
std::optional<bool> run_streamed(WorkloadOptions& o, const workload::WorkloadSpec& w, const std::string& file,
                                 const topo::Topology& t, const workload::LoweringOptions& lowering,
                                 const reuse::AloneTimingTable* alone, ParallelContext& parallel) {
  std::optional<workload::StepStream> stream;
  try {
    stream.emplace(w, lowering);
  } catch (const std::invalid_argument& e) {
    throw InputError::in_file(file, e.what());
  }
  const bool fabric = o.sim.has_fabric();
  const std::string description = describe(w, stream->totals());
  if (parallel.is_root() && !o.sim.json) std::cout << "workload      " << description << "\n" << std::flush;
  // The step's ops are not known before it is lowered; one rank per pipeline stage, lowered
  // into a counter, gives about how many (exact when a stage's ranks differ only in peers).
  workload::StepSize about;
  try {
    about = workload::estimate_step_size(w, lowering);
  } catch (const std::invalid_argument& e) {
    throw InputError::in_file(file, e.what());
  }
  check_streamed_step_fits(about, parallel.transport().size(), file);
  const std::uint64_t about_ops = about.ops;
  const auto watch = std::make_unique<RunWatch>(o.sim.observe, parallel.is_root(), parallel.transport().size(),
                                                fabric ? &t : nullptr, "ops", about_ops, true);
  workload::RoleTimelines timelines(stream->num_ranks());
  auto hear = [&timelines](goal::RankId rank, std::uint8_t role, SimTime start, SimTime end) {
    timelines.add(rank, static_cast<workload::OpRole>(role), start, end);
  };
  std::optional<exec::SimulationRun> run;
  try {
    run = simulate_streamed(o.sim, t, *stream, parallel, watch.get(), hear);
  } catch (const exec::StreamOrderError& e) {
    if (fabric) throw;  // the other simulator ranks are mid-run: nothing to fall back on
    logging::logger("cli").warn("{}; lowering the whole step instead", e.what());
    return std::nullopt;
  } catch (const std::invalid_argument& e) {
    throw InputError::in_file(file, e.what());  // the lowering meets a collective it cannot plan
  }
  if (fabric) {
    stream->finish_started();  // totals of what a run that stopped early never reached
    gather_ranks(parallel.transport(), *stream, timelines);
  }
  if (!run) return true;
  if (!fabric) stream->finish();
  logging::logger("workload").debug("streamed step: {} busy interval(s) kept for the report", timelines.num_intervals());
  const goal::Schedule shape = ranks_only(stream->num_ranks());
  const workload::StepReport report = workload::analyse_step(w, stream->totals(), timelines, run->result.rank_finish);
  nlohmann::json j = run_summary_json(o.sim, t, shape, description, *run);
  j.update(report_json(w, stream->totals(), report));
  j.update(reuse_json(stream->totals(), alone));
  j["peak_live_ops"] = run->result.peak_live_ops;
  j["peak_live_ops_floor"] = about.largest_pieces_ops / 2;  // what check_streamed_step_fits counted on
  std::optional<energy::StepEnergy> used;
  if (o.power) {
    used = step_energy(o, t, timelines, report, run->link_bytes);
    j.update(energy_json(*used, *o.power, o.energy));
  }
  write_run_files(o.sim, t, shape, *run, j);
  if (o.sim.json) {
    std::cout << j.dump(2) << std::endl;
  } else {
    std::cout << "lowered       " << run->result.ops_total << " ops on " << stream->num_ranks()
              << " ranks on the fly, while simulating (at most " << run->result.peak_live_ops << " ops held at once)\n";
    print_run_human(o.sim, t, shape, description, *run);
    print_reuse(stream->totals(), alone);
    print_report(w, report);
    if (used) print_energy(*used, *o.power, o.energy);
  }
  if (!run->result.complete) report_incomplete(*run);
  return run->result.complete;
}

void run_workload_command(WorkloadOptions& o) {
  check_output_path("--output", o.output);
  const std::string file = config::resolve_preset(o.workload, collsim_home() / "workload" / "presets", "workload").string();
  const workload::WorkloadSpec w = workload::load_workload(file);
  // The file's model (its fidelity and fast-forward) stand unless the command names a network
  // model.
  if (!o.network_option->count()) {
    o.sim.network = w.cluster.network;
    // A written schedule is the step's own GOAL: the file's fast-forward is for simulating.
    if (!o.fast_forward_option->count() && o.sim.network != "loggops" && o.output.empty())
      o.sim.fast_forward = w.cluster.fast_forward;
    if (o.sim.fidelity.empty() && !w.cluster.fidelity.empty() && o.sim.network != "loggops") {
      try {
        (void)net::parse_fidelity(w.cluster.fidelity);
      } catch (const std::invalid_argument& e) {
        throw InputError::at_text(file, w.cluster.fidelity_line, w.cluster.fidelity_column,
                                  std::string("key 'fidelity': ") + e.what());
      }
      o.sim.fidelity = w.cluster.fidelity;
    }
  }
  // A file that names no cluster runs on the one its documentation shows.
  const std::string cluster = w.cluster.topology.empty() ? "dgx_h100_superpod" : w.cluster.topology;
  if (o.sim.topology.empty() && (o.sim.has_fabric() || !w.cluster.topology.empty()))
    o.sim.topology = topology_path(cluster).string();
  const bool simulate = o.run || o.output.empty();
  o.sim.check(simulate);
  if (o.energy.enabled) {
    if (!simulate) throw CLI::ValidationError("--energy", "needs a simulated step (--run with -o)");
    if (o.sim.topology.empty())
      throw CLI::ValidationError("--energy", "needs the cluster's topology (--topology, or the workload's cluster)");
    o.power = power_model(o.energy, w.device.name);
  }
  if (o.sim.fast_forwards().collectives && !o.output.empty())
    throw CLI::ValidationError("--fast-forward",
                               "collectives lowers repeats to stand-ins, which are not the step's GOAL: write it (-o) "
                               "without it");
  o.sim.record_op_times = true;  // the report splits the critical rank's time by its ops

  ParallelContext parallel;
  bool complete = true;
  const int rc = parallel.guarded([&] {
    const topo::Topology t = o.sim.topology.empty() ? topo::Topology{} : topo::load_topology(o.sim.topology);
    // The message-level mode stands for the cluster by its paths' latency and bandwidth
    // (inside a server and between servers); --loggops-set still has the last word.
    // A step's ops wait for the compute that produces their data, which LogGOPSim's ready
    // rule does not guarantee for ops on another cpu (the DP stream, channels above 0).
    if (o.sim.network == "loggops") {
      std::vector<std::string> settings{"causal=1"};
      if (!o.sim.topology.empty()) {
        const std::vector<std::string> derived = loggops_settings_for(t);
        settings.insert(settings.end(), derived.begin(), derived.end());
      }
      settings.insert(settings.end(), o.sim.loggops_set.begin(), o.sim.loggops_set.end());
      o.sim.loggops_set = std::move(settings);
    }
    workload::LoweringOptions lowering;
    if (!o.sim.topology.empty()) {
      check_fits(w, t, file);
      lowering.gpus_per_node = std::max(1u, t.hosts_per_server());
    } else {
      lowering.gpus_per_node = w.parallel.tp;
    }
    std::unique_ptr<reuse::AloneTimingTable> alone;
    if (o.sim.fast_forwards().collectives) {
      alone = alone_timing_table(o.sim, t, w.world());
      lowering.reuse = alone.get();
    }
    const bool needs_whole_step = o.whole_step || !o.output.empty() || !o.sim.ops.empty() || o.sim.observe.keeps_details();
    if (simulate && !needs_whole_step) {
      if (const std::optional<bool> streamed = run_streamed(o, w, file, t, lowering, alone.get(), parallel)) {
        complete = *streamed;
        return;
      }
    }
    check_whole_step_fits(w, lowering, simulate, o.sim.network == "loggops", file);
    const auto t0 = std::chrono::steady_clock::now();
    workload::LoweredStep step;
    try {
      step = workload::lower_step(w, lowering);
    } catch (const std::invalid_argument& e) {
      throw InputError::in_file(file, e.what());
    }
    const double lower_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string description = describe(w, step);
    if (parallel.is_root()) {
      if (!o.output.empty())
        goal::save_schedule(step.schedule, o.output,
                            goal::format_from_extension(o.output).value_or(goal::ScheduleFormat::Text));
      if (!o.sim.json)
        std::cout << "workload      " << description << "\n"
                  << "lowered       " << step.schedule.num_ops() << " ops on " << step.schedule.num_ranks()
                  << " ranks, lowered in " << std::setprecision(3) << lower_s << " s"
                  << (o.output.empty() ? "" : ", written to " + o.output) << "\n";
    }
    if (!simulate) return;
    const auto watch = watch_simulation(o.sim, parallel, t, step.schedule);
    const std::optional<exec::SimulationRun> run = simulate_schedule(o.sim, t, step.schedule, parallel, watch.get());
    if (!run) return;
    complete = run->result.complete;
    std::vector<std::optional<SimTime>> start(step.schedule.num_ops()), end(step.schedule.num_ops());
    for (const exec::OpTime& ot : run->result.op_times) {
      const std::uint64_t g = step.schedule.rank(ot.rank).first_global_op() + ot.op;
      start[g] = ot.start;
      end[g] = ot.end;
    }
    const workload::StepReport report = workload::analyse_step(w, step, start, end, run->result.rank_finish);
    nlohmann::json j = run_summary_json(o.sim, t, step.schedule, description, *run);
    j.update(report_json(w, step, report));
    j.update(reuse_json(step, alone.get()));
    std::optional<energy::StepEnergy> used;
    if (o.power) {
      workload::RoleTimelines timelines(step.schedule.num_ranks());
      for (goal::RankId r = 0; r < step.schedule.num_ranks(); ++r) {
        const std::uint64_t first = step.schedule.rank(r).first_global_op();
        for (std::uint64_t op = 0; op < step.schedule.rank(r).num_ops(); ++op)
          if (start[first + op] && end[first + op])
            timelines.add(r, step.role[first + op], *start[first + op], *end[first + op]);
      }
      used = step_energy(o, t, timelines, report, run->link_bytes);
      j.update(energy_json(*used, *o.power, o.energy));
    }
    ScheduleAnnotations annotations;
    annotations.spans = step.collectives;
    annotations.span_names = step.collective_names;
    annotations.op_role.reserve(step.role.size());
    for (const workload::OpRole r : step.role) annotations.op_role.push_back(static_cast<std::uint8_t>(r));
    annotations.role_names = {"compute", "tp", "pp", "dp", "ep"};
    write_run_files(o.sim, t, step.schedule, *run, j, annotations);
    if (o.sim.json) {
      std::cout << j.dump(2) << std::endl;
    } else {
      print_run_human(o.sim, t, step.schedule, description, *run);
      print_reuse(step, alone.get());
      print_report(w, report);
      if (used) print_energy(*used, *o.power, o.energy);
    }
    if (!complete) report_incomplete(*run);
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
  if (!complete) throw CLI::RuntimeError(2);
}

}  // namespace

void add_workload_command(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  CLI::App* cmd = app.add_subcommand(
      "workload", "Lower a DNN training step (model + parallelism + compute model) to GOAL, and simulate it");
  cmd->add_option("WORKLOAD", o->workload, "Workload file, or a preset name (workload/presets/*.yaml)")->required();
  cmd->add_option("-o,--output", o->output, "Write the step's GOAL schedule here (.goal text, .bin, .goalb)");
  cmd->add_flag("--run", o->run, "Simulate the step (the default unless -o is given)");
  cmd->add_flag("--whole-step", o->whole_step,
                "Lower the whole step before simulating it (otherwise each rank's part is lowered on the fly, "
                "as the run reaches it, when nothing needs the whole schedule: no -o, --ops or --hdf5)");
  o->sim.lowers_collectives = true;
  o->sim.add_to(*cmd);
  add_energy_options(*cmd, o->energy);
  o->fast_forward_option = cmd->get_option("--fast-forward");
  o->network_option = cmd->get_option("--network");
  cmd->callback([o] { run_workload_command(*o); });
}

}  // namespace collsim::cli
