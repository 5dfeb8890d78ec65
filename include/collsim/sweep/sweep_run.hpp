#pragma once
// Running a sweep: every point not finished in an earlier run of the same results file, as
// collsim processes in parallel, each point's outcome appended to the results file as it ends.
// A point that fails is recorded with its error and the others go on; a rerun tries it again.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "collsim/sweep/results_file.hpp"
#include "collsim/sweep/sweep_spec.hpp"

namespace collsim::sweep {

struct SweepSettings {
  std::string program;                 // the collsim binary the points run
  std::size_t parallel = 1;            // -j
  std::string results;                 // the results file (JSON lines)
  std::filesystem::path workload_file; // the spec's workload resolved to a file (points that edit it)
  std::filesystem::path point_files;   // where edited workload files go
};

struct SweepProgress {
  std::size_t total = 0, reused = 0, finished = 0, failed = 0, running = 0;
  double elapsed_s = 0;
  double left_s = -1;  // estimated from the mean wall time of the points run so far; -1 unknown
};

// The records of every point, in the spec's order.
std::vector<PointRecord> run_sweep(const SweepSpec& spec, const SweepSettings& settings,
                                   const std::function<void(const SweepProgress&)>& progress = {});

// What a failed point's process said: its last `collsim: error:` line, else its last line of
// standard error, with the exit status.
std::string failure_of(int exit_status, int signal, const std::string& err);

}  // namespace collsim::sweep
