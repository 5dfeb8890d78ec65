#include "sweep_command.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "collsim/config/preset_file.hpp"
#include "collsim/sweep/results_table.hpp"
#include "collsim/sweep/sweep_run.hpp"
#include "collsim/sweep/sweep_spec.hpp"
#include "plot_script.hpp"
#include "preset_paths.hpp"

namespace collsim::cli {

namespace {

struct SweepOptions {
  std::string spec;
  std::size_t jobs = 1;
  std::string results, csv, plot;
  bool quiet = false;
};

std::string stem_beside(const std::string& spec, const std::string& suffix) {
  return std::filesystem::path(spec).filename().replace_extension("").string() + suffix;
}

std::string duration(double s) {
  char text[32];
  if (s < 120) std::snprintf(text, sizeof text, "%.0f s", s);
  else std::snprintf(text, sizeof text, "%.1f min", s / 60);
  return text;
}

void print_progress(const sweep::SweepProgress& p, bool tty) {
  const std::size_t done = p.reused + p.finished;
  std::string line = "collsim: sweep: " + std::to_string(done) + "/" + std::to_string(p.total) + " points";
  if (p.reused > 0) line += " (" + std::to_string(p.reused) + " from earlier runs)";
  if (p.failed > 0) line += ", " + std::to_string(p.failed) + " failed";
  line += ", " + std::to_string(p.running) + " running, " + duration(p.elapsed_s) + " elapsed";
  if (p.left_s >= 0 && done < p.total) line += ", about " + duration(p.left_s) + " left";
  std::cerr << (tty ? "\r" + line + "\033[K" : line + "\n") << std::flush;
}

void run_sweep_command(const SweepOptions& o) {
  const sweep::SweepSpec spec = sweep::load_sweep_spec(o.spec);
  sweep::SweepSettings settings;
  settings.program = std::filesystem::canonical("/proc/self/exe").string();
  settings.parallel = o.jobs;
  settings.results = o.results.empty() ? stem_beside(o.spec, ".results.jsonl") : o.results;
  settings.point_files = std::filesystem::path(settings.results).replace_extension("").string() + ".points";
  // Only points that set workload keys need the workload as a file.
  if (sweep::edits_workload(spec))
    settings.workload_file = config::resolve_preset(spec.args.front(), collsim_home() / "workload" / "presets", "workload");
  const bool tty = isatty(STDERR_FILENO) == 1;
  const std::vector<sweep::PointRecord> records =
      sweep::run_sweep(spec, settings, [&](const sweep::SweepProgress& p) {
        if (!o.quiet) print_progress(p, tty);
      });
  if (!o.quiet && tty) std::cerr << "\n";

  const std::vector<std::string> metrics = sweep::metric_columns(records, spec.metrics);
  const std::string csv = o.csv.empty() ? stem_beside(o.spec, ".csv") : o.csv;
  {
    std::ofstream f(csv);
    sweep::write_csv(f, records, metrics);
    if (!f) throw std::runtime_error("cannot write " + csv);
  }
  // The table on the terminal: the point, its status and the first metrics (all are in the CSV).
  const std::size_t shown = std::min<std::size_t>(metrics.size(), spec.metrics.empty() ? 3 : metrics.size());
  std::size_t failed = 0;
  std::cout << "point";
  for (std::size_t m = 0; m < shown; ++m) std::cout << "  |  " << metrics[m];
  std::cout << "\n";
  for (const sweep::PointRecord& r : records) {
    std::cout << sweep::point_key(r.point);
    if (!r.ok) {
      ++failed;
      std::cout << "  |  failed: " << r.error << "\n";
      continue;
    }
    for (std::size_t m = 0; m < shown; ++m) std::cout << "  |  " << sweep::metric(r.result, metrics[m]);
    std::cout << (r.reused ? "  (earlier run)" : "") << "\n";
  }
  std::cout << "sweep         " << records.size() << " points, " << failed << " failed; results in "
            << settings.results << " (a rerun skips the points that finished), table in " << csv << "\n";
  if (spec.plot || !o.plot.empty()) {
    if (!spec.plot) throw CLI::ValidationError("--plot", "the sweep file has no 'plot: {x: PARAMETER, y: METRIC}'");
    const std::string png = o.plot.empty() ? stem_beside(o.spec, ".png") : o.plot;
    run_plot_script((collsim_home() / "scripts" / "plot_sweep.py").string(), {csv, spec.plot->x, spec.plot->y, png});
    std::cout << "plot          " << spec.plot->y << " against " << spec.plot->x << " per configuration in " << png << "\n";
  }
  if (failed > 0) throw CLI::RuntimeError(2);  // README: an incomplete run exits 2
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand("sweep", "Run a command over a grid or list of parameter points, in parallel, resumable");
  cmd->add_option("SPEC", o->spec, "Sweep file (YAML; see the README's \"Sweeps\")")->required()->check(CLI::ExistingFile);
  cmd->add_option("-j,--jobs", o->jobs, "Points run at once, each a collsim process")->check(CLI::Range(1, 1024));
  cmd->add_option("--results", o->results, "Results file, JSON lines (default: SPEC's name .results.jsonl)");
  cmd->add_option("--csv", o->csv, "Results table (default: SPEC's name .csv)");
  cmd->add_option("--plot", o->plot, "Plot the spec's plot metric to this PNG (default with a plot: SPEC's name .png; python3-matplotlib)");
  cmd->add_flag("--quiet", o->quiet, "No progress lines");
  cmd->footer(
      "Each point runs `collsim COMMAND ARGS... --NAME VALUE ... --json`; a failed point is recorded with its error and the "
      "others go on. Points finished in the results file are not run again.");
  cmd->callback([o] { run_sweep_command(*o); });
}

}  // namespace collsim::cli
