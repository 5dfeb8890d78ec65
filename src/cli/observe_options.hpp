#pragma once
// Options for watching a run and keeping its details, shared by every simulating command:
// the progress line, the live status endpoint, the HDF5 results file and the timeline.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

#include "collsim/common/sim_time.hpp"

namespace collsim::cli {

// Throws CLI::ValidationError naming `option` when `path`'s folder is missing or not writable,
// so that a long run does not end in an output it cannot write.
void check_output_path(const std::string& option, const std::string& path);

struct ObserveCliOptions {
  bool quiet = false;
  std::string progress_every;  // wall time between progress lines; empty: by terminal or not
  int status_port = -1;  // -1: no endpoint; 0: any free port
  std::string status_bind = "127.0.0.1";
  std::string status_linger = "0s";
  std::string hdf5;
  std::string trace;  // --trace: the timeline as Trace Event Format JSON (out/trace_events.hpp)
  std::string sample_interval = "1us";
  std::size_t max_samples = 1024;

  // `samples_links`: the command runs the packet fabric, so --sample-interval applies;
  // `keeps_results`: it has results for --hdf5.
  void add_to(CLI::App& cmd, bool samples_links = true, bool keeps_results = true);
  // Throws CLI::ValidationError naming the option.
  void check() const;
  SimTime sample_period() const;
  double linger_s() const;
  // Seconds between progress lines: --progress-every, else 0.25 on a terminal, 10 otherwise.
  double progress_every_s(bool terminal) const;
  // --hdf5 or --trace: the run keeps op times, flows and link samples.
  bool keeps_details() const { return !hdf5.empty() || !trace.empty(); }
};

}  // namespace collsim::cli
