#include "collsim/sweep/sweep_run.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <sstream>

#include "collsim/sweep/child_processes.hpp"
#include "collsim/sweep/point_command.hpp"

namespace collsim::sweep {

std::string failure_of(int exit_status, int signal, const std::string& err) {
  std::string last, error_line;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.starts_with("collsim: progress")) continue;
    last = line;
    if (line.starts_with("collsim: error:")) error_line = line;
  }
  const std::string said = !error_line.empty() ? error_line : last;
  const std::string how = signal != 0 ? std::string("killed by signal ") + strsignal(signal)
                                      : "exit status " + std::to_string(exit_status);
  return said.empty() ? how : said + " (" + how + ")";
}

std::vector<PointRecord> run_sweep(const SweepSpec& spec, const SweepSettings& settings,
                                   const std::function<void(const SweepProgress&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  const std::map<std::string, PointRecord> earlier = read_results(settings.results);
  std::vector<PointRecord> records(spec.points.size());
  std::vector<std::size_t> to_run;
  std::vector<std::vector<std::string>> jobs;
  SweepProgress p;
  p.total = spec.points.size();
  for (std::size_t i = 0; i < spec.points.size(); ++i) {
    const auto found = earlier.find(point_key(spec.points[i]));
    if (found != earlier.end() && found->second.ok) {
      records[i] = found->second;
      records[i].point = spec.points[i];
      ++p.reused;
      continue;
    }
    records[i].point = spec.points[i];
    to_run.push_back(i);
    jobs.push_back(point_arguments(spec, spec.points[i], settings.workload_file,
                                   settings.point_files / ("point-" + std::to_string(i + 1) + ".yaml")));
  }
  double run_wall = 0;
  const auto report = [&] {
    if (!progress) return;
    p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::size_t left = to_run.size() - p.finished;
    p.left_s = p.finished == 0 ? -1
                               : run_wall / static_cast<double>(p.finished) * static_cast<double>(left) /
                                     static_cast<double>(std::max<std::size_t>(1, settings.parallel));
    progress(p);
  };
  if (!to_run.empty()) report();
  run_children(
      settings.program, jobs, settings.parallel,
      [&](std::size_t job, const ChildOutcome& o) {
        PointRecord& r = records[to_run[job]];
        r.wall_s = o.wall_s;
        if (o.exit_status == 0) {
          r.result = nlohmann::json::parse(o.out, nullptr, false);
          r.ok = !r.result.is_discarded() && r.result.is_object();
          if (!r.ok) r.error = "its output is not one JSON object";
        } else {
          r.error = failure_of(o.exit_status, o.signal, o.err);
        }
        if (!r.ok) {
          r.result = nullptr;
          ++p.failed;
        }
        append_result(settings.results, r);
        ++p.finished;
        if (p.running > 0) --p.running;
        run_wall += o.wall_s;
        report();
      },
      [&](std::size_t running) {
        p.running = running;
      });
  if (to_run.empty()) report();  // otherwise the last point's report said it all
  return records;
}

}  // namespace collsim::sweep
