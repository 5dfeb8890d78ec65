#include "jobs_command.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "collsim/common/input_error.hpp"
#include "collsim/exec/placement.hpp"
#include "collsim/jobs/gpu_assignment.hpp"
#include "collsim/jobs/job_merge.hpp"
#include "collsim/jobs/job_schedule.hpp"
#include "collsim/jobs/job_spec.hpp"
#include "collsim/jobs/shared_links.hpp"
#include "collsim/topo/loader.hpp"
#include "preset_paths.hpp"
#include "schedule_simulation.hpp"

namespace collsim::cli {

namespace {

struct JobsOptions {
  std::string file;
  std::size_t top_links = 5;
  SimulationCliOptions sim;
};

struct JobResult {
  std::string description;
  std::vector<std::uint32_t> hosts;
  SimTime together;  // from its start to its last rank's end
  SimTime alone;
  bool complete = true;

  double slowdown() const {
    if (alone <= SimTime::zero()) return 0.0;
    return static_cast<double>(together.picoseconds()) / static_cast<double>(alone.picoseconds());
  }
};

// Schedule and trace files named relative to the jobs file, if they are there.
jobs::JobSpec relative_to(jobs::JobSpec job, const std::string& jobs_file) {
  auto beside = [&](std::string& path) {
    if (path.empty() || std::filesystem::path(path).is_absolute()) return;
    const auto there = std::filesystem::path(jobs_file).parent_path() / path;
    if (std::filesystem::exists(there)) path = there.string();
  };
  if (job.kind == jobs::JobKind::Schedule) beside(job.file);
  for (std::string& trace : job.traces) beside(trace);
  return job;
}

std::string link_name(const topo::Topology& t, std::uint64_t slot) {
  const topo::Link& l = t.link(slot / 2);
  const topo::NodeId from = slot % 2 == 0 ? l.a : l.b, to = slot % 2 == 0 ? l.b : l.a;
  return t.node(from).name + " -> " + t.node(to).name;
}

void run_jobs(JobsOptions& o) {
  const jobs::JobsFile file = jobs::load_jobs_file(o.file);
  if (o.sim.topology.empty()) {
    if (file.topology.empty())
      throw CLI::ValidationError("--topology", "is needed: the jobs file names no topology");
    o.sim.topology = topology_path(file.topology).string();
  }
  o.sim.check(true);
  if (!o.sim.placement_file.empty() || o.sim.placement != SimulationCliOptions{}.placement)
    throw CLI::ValidationError("--placement", "a jobs file places each job itself (its 'gpus')");
  o.sim.placement = "per job";  // what the summary says; the runs get each job's GPUs
  ParallelContext parallel;
  bool complete = true;
  const int rc = parallel.guarded([&] {
    const topo::Topology t = topo::load_topology(o.sim.topology);
    const std::string workload_dir = (collsim_home() / "workload" / "presets").string();
    std::vector<jobs::JobSpec> specs;
    std::vector<std::uint32_t> needed;
    for (const jobs::JobSpec& j : file.jobs) {
      specs.push_back(relative_to(j, o.file));
      try {
        needed.push_back(jobs::ranks_needed(specs.back(), workload_dir));
      } catch (const std::invalid_argument& e) {
        throw InputError::at_text(o.file, j.line, 1, "job '" + j.name + "': " + e.what());
      }
    }
    std::vector<std::vector<std::uint32_t>> hosts;
    try {
      hosts = jobs::assign_gpus(specs, needed, t);
    } catch (const std::invalid_argument& e) {
      throw InputError::in_file(o.file, e.what());
    }
    std::vector<jobs::LoadedJob> loaded;
    std::vector<const goal::Schedule*> schedules;
    std::vector<SimTime> starts;
    for (std::size_t j = 0; j < specs.size(); ++j) {
      try {
        loaded.push_back(jobs::load_job(specs[j], workload_dir, t, hosts[j]));
      } catch (const std::invalid_argument& e) {
        throw InputError::at_text(o.file, specs[j].line, 1, e.what());
      }
      starts.push_back(specs[j].start);
    }
    for (const jobs::LoadedJob& l : loaded) schedules.push_back(&l.schedule);
    const jobs::MergedJobs merged = jobs::merge_jobs(schedules, starts);
    std::vector<std::uint32_t> all_hosts;
    for (const auto& h : hosts) all_hosts.insert(all_hosts.end(), h.begin(), h.end());
    const exec::Placement together_placement = exec::placement_from_hosts(all_hosts, t.num_hosts());

    const std::optional<exec::SimulationRun> together =
        simulate_schedule(o.sim, t, merged.schedule, parallel, nullptr, &together_placement);
    std::vector<JobResult> results(specs.size());
    std::vector<std::vector<std::uint64_t>> alone_bytes;
    for (std::size_t j = 0; j < specs.size(); ++j) {
      JobResult& r = results[j];
      r.description = loaded[j].description;
      r.hosts = hosts[j];
      const exec::Placement alone_placement = exec::placement_from_hosts(hosts[j], t.num_hosts());
      const std::optional<exec::SimulationRun> alone =
          simulate_schedule(o.sim, t, loaded[j].schedule, parallel, nullptr, &alone_placement);
      if (!parallel.is_root()) continue;
      r.alone = alone->result.makespan;
      r.complete = alone->result.complete;
      alone_bytes.push_back(alone->link_bytes);
      SimTime end = SimTime::zero();
      for (goal::RankId k = merged.first_rank[j]; k < merged.first_rank[j + 1]; ++k)
        end = std::max(end, together->result.rank_finish[k]);
      r.together = end - specs[j].start;
    }
    if (!parallel.is_root()) return;
    complete = together->result.complete;
    const std::vector<jobs::SharedLink> shared =
        o.sim.has_fabric() ? jobs::shared_links(alone_bytes, o.top_links) : std::vector<jobs::SharedLink>{};
    nlohmann::json j = run_summary_json(o.sim, t, merged.schedule, "jobs " + o.file, *together);
    {
      nlohmann::json list = nlohmann::json::array();
      for (std::size_t k = 0; k < specs.size(); ++k) {
        const JobResult& r = results[k];
        list.push_back({{"name", specs[k].name},
                        {"what", r.description},
                        {"gpus", r.hosts},
                        {"start_ps", specs[k].start.picoseconds()},
                        {"together_ps", r.together.picoseconds()},
                        {"alone_ps", r.alone.picoseconds()},
                        {"slowdown", r.slowdown()}});
      }
      j["jobs"] = list;
      nlohmann::json links = nlohmann::json::array();
      for (const jobs::SharedLink& l : shared)
        links.push_back({{"link", link_name(t, l.slot)}, {"bytes", l.total}, {"bytes_by_job", l.bytes_by_job}});
      j["shared_links"] = links;
    }
    // The record's spans: each job's part on each of its ranks (after its start's wait).
    ScheduleAnnotations annotations;
    for (std::size_t k = 0; k < specs.size(); ++k) {
      annotations.span_names.push_back(specs[k].name);
      const goal::LocalOp first = specs[k].start > SimTime::zero() ? 1 : 0;
      for (goal::RankId r = merged.first_rank[k]; r < merged.first_rank[k + 1]; ++r)
        annotations.spans.push_back({r, static_cast<std::uint32_t>(k), first, merged.schedule.rank(r).num_ops()});
    }
    write_run_files(o.sim, t, merged.schedule, *together, j, annotations);
    if (o.sim.json) {
      std::cout << j.dump(2) << std::endl;
    } else {
      print_run_human(o.sim, t, merged.schedule, "jobs " + o.file, *together);
      std::cout << std::fixed << std::setprecision(3);
      for (std::size_t k = 0; k < specs.size(); ++k) {
        const JobResult& r = results[k];
        std::cout << "job           " << specs[k].name << ": " << r.description << " on " << r.hosts.size()
                  << " GPUs from " << format_duration(specs[k].start) << ": "
                  << static_cast<double>(r.together.picoseconds()) / 1e9 << " ms together, "
                  << static_cast<double>(r.alone.picoseconds()) / 1e9 << " ms alone, slowdown " << r.slowdown() << "x\n";
      }
      if (o.sim.has_fabric()) {
        if (shared.empty()) std::cout << "shared links  none: no link carried two jobs' bytes\n";
        for (const jobs::SharedLink& l : shared) {
          std::cout << "shared link   " << link_name(t, l.slot) << ": " << l.total << " bytes (";
          for (std::size_t k = 0; k < specs.size(); ++k)
            std::cout << (k ? ", " : "") << specs[k].name << " " << l.bytes_by_job[k];
          std::cout << ")\n";
        }
      }
    }
    if (!complete) report_incomplete(*together);
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
  if (!complete) throw CLI::RuntimeError(2);
}

}  // namespace

void add_jobs_command(CLI::App& app) {
  auto o = std::make_shared<JobsOptions>();
  CLI::App* cmd = app.add_subcommand("jobs", "Several jobs on one fabric, each also alone: slowdowns and shared links");
  cmd->add_option("JOBS", o->file, "Jobs file (YAML): each job's workload, schedule or collective, GPUs and start")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--top-links", o->top_links, "Shared link directions to list")->capture_default_str();
  o->sim.add_to(*cmd);
  cmd->callback([o] { run_jobs(*o); });
}

}  // namespace collsim::cli
