#include "run_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "collective_options.hpp"
#include "energy_output.hpp"
#include "fault_report.hpp"
#include "collsim/collectives/generate.hpp"
#include "collsim/common/units.hpp"
#include "collsim/goal/schedule_file.hpp"
#include "collsim/topo/loader.hpp"
#include "schedule_simulation.hpp"

namespace collsim::cli {
namespace {

struct RunOptions {
  std::string schedule;
  CollectiveCliOptions collective;
  SimulationCliOptions sim;
  EnergyOptions energy;
};

struct Loaded {
  goal::Schedule schedule;
  std::string description;
  bool one_collective = false;  // lowered from --coll: every rank's ops are its part of it
};

Loaded load_or_generate(const RunOptions& o, const topo::Topology& t) {
  if (!o.schedule.empty()) return {goal::load_schedule(o.schedule), o.schedule};
  CollectiveCliOptions c = o.collective;
  if (c.ranks == 0 && c.group.empty()) c.ranks = t.num_hosts();
  const collectives::Plan plan = c.plan();
  return {collectives::generate(plan),
          std::string(collectives::to_string(plan.collective)) + " " + plan.algorithm + " (" +
              std::string(collectives::to_string(plan.protocol)) + ", " + std::to_string(plan.channels) + " channel(s)) of " +
              format_byte_size(plan.bytes) + " on " + std::to_string(plan.n) + " ranks",
          true};
}

ScheduleAnnotations annotations_of(const Loaded& loaded) {
  ScheduleAnnotations a;
  if (!loaded.one_collective) return a;
  a.span_names.push_back(loaded.description);
  for (goal::RankId r = 0; r < loaded.schedule.num_ranks(); ++r)
    a.spans.push_back({r, 0, 0, loaded.schedule.rank(r).num_ops()});
  return a;
}

void run_run_command(RunOptions& o) {
  if (o.schedule.empty() == o.collective.collective.empty())
    throw CLI::ValidationError("--schedule/--coll", "give exactly one of --schedule FILE and --coll NAME");
  o.sim.check();
  std::optional<energy::PowerModel> power;
  if (o.energy.enabled) {
    if (o.sim.topology.empty()) throw CLI::ValidationError("--energy", "needs the cluster's topology (--topology)");
    power = power_model(o.energy, o.energy.gpu);
  }
  o.sim.record_op_times |= o.energy.enabled;  // each rank's activity comes from its ops' times

  ParallelContext parallel;
  bool complete = true;
  const int rc = parallel.guarded([&] {
    const topo::Topology t = o.sim.topology.empty() ? topo::Topology{} : topo::load_topology(o.sim.topology);
    const Loaded loaded = load_or_generate(o, t);
    const auto watch = watch_simulation(o.sim, parallel, t, loaded.schedule);
    const std::optional<exec::SimulationRun> run = simulate_schedule(o.sim, t, loaded.schedule, parallel, watch.get());
    std::vector<StragglerCost> costs;
    if (o.sim.compute.straggler_report) {
      const auto whole = o.sim.compute.variation(loaded.schedule.num_ranks());
      for (const exec::VariationPart& part : exec::variation_parts(o.sim.compute.spec(), *whole, 8)) {
        SimulationCliOptions without = o.sim;
        without.compute.replaced = part.without;
        const std::optional<exec::SimulationRun> other = simulate_schedule(without, t, loaded.schedule, parallel);
        if (!run) continue;
        StragglerCost c;
        c.label = part.label;
        c.step_delay = run->result.makespan - other->result.makespan;
        for (goal::RankId r = 0; r < run->result.rank_finish.size(); ++r)
          if (const SimTime d = run->result.rank_finish[r] - other->result.rank_finish[r]; d != SimTime::zero())
            c.most_delayed.emplace_back(r, d);
        std::stable_sort(c.most_delayed.begin(), c.most_delayed.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        if (c.most_delayed.size() > 8) c.most_delayed.resize(8);
        costs.push_back(std::move(c));
      }
    }
    std::optional<SimTime> without_faults;
    if (const auto intact = simulate_without_faults(o.sim, t, loaded.schedule, parallel))
      without_faults = intact->result.makespan;
    if (!run) return;
    complete = run->result.complete;
    nlohmann::json j = run_summary_json(o.sim, t, loaded.schedule, loaded.description, *run);
    if (without_faults)
      j["faults"].update(fault_cost_json(complete ? std::optional(run->result.makespan) : std::nullopt,
                                         *without_faults));
    if (o.sim.compute.straggler_report) j.update(straggler_json(costs));
    std::optional<energy::StepEnergy> used;
    if (power) {
      const exec::Placement placement = place(o.sim, loaded.schedule.num_ranks(), t.num_hosts());
      used = energy::account_step(t, *power, run->result.makespan,
                                  activity_from_ops(loaded.schedule, run->result.op_times, placement.host_of),
                                  run->link_bytes);
      j.update(energy_json(*used, *power, o.energy));
    }
    write_run_files(o.sim, t, loaded.schedule, *run, j, annotations_of(loaded));
    if (o.sim.json) {
      std::cout << j.dump(2) << std::endl;
    } else {
      print_run_human(o.sim, t, loaded.schedule, loaded.description, *run, without_faults);
      std::cout << straggler_lines(costs);
      if (used) print_energy(*used, *power, o.energy);
    }
    if (!complete) report_incomplete(*run);
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
  if (!complete) throw CLI::RuntimeError(2);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a GOAL schedule (a file, or a collective lowered on the fly) on a fabric");
  cmd->add_option("--schedule", o->schedule, "GOAL schedule (.goal, .bin, .goalb)")->check(CLI::ExistingFile);
  o->collective.add_to(*cmd, "--coll");
  o->sim.reports_stragglers = true;
  o->sim.add_to(*cmd);
  add_energy_options(*cmd, o->energy, true);
  cmd->callback([o] { run_run_command(*o); });
}

}  // namespace collsim::cli
