#include "observe_options.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "duration_option.hpp"

namespace collsim::cli {

void check_output_path(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error))
    throw CLI::ValidationError(option, "cannot write " + path + ": the folder " + folder.string() + " does not exist");
  if (access(folder.c_str(), W_OK) != 0)
    throw CLI::ValidationError(option, "cannot write " + path + ": the folder " + folder.string() + " is not writable");
}

void ObserveCliOptions::add_to(CLI::App& cmd, bool samples_links, bool keeps_results) {
  cmd.add_flag("--quiet", quiet, "No progress line (nor periodic progress lines when stderr is not a terminal)");
  cmd.add_option("--progress-every", progress_every,
                 "Wall time between progress lines (default 0.25s on a terminal, 10s otherwise)");
  cmd.add_option("--status-port", status_port,
                 "Serve live status over HTTP on this port (0: any free port, printed on stderr): GET /status, "
                 "GET /links/top?n=K");
  cmd.add_option("--status-bind", status_bind, "Address the status endpoint listens on")->capture_default_str();
  cmd.add_option("--status-linger", status_linger,
                 "Keep answering on the status endpoint this long after the run ends (e.g. 30s)")
      ->capture_default_str();
  if (keeps_results) {
    cmd.add_option("--hdf5", hdf5, "Write the run's details to this HDF5 file (ops, flows, link samples; see README)");
    cmd.add_option("--trace", trace,
                   "Write the run as a timeline to this JSON file (Trace Event Format: open it in ui.perfetto.dev or "
                   "chrome://tracing; see README)");
  }
  if (samples_links && keeps_results) {
    cmd.add_option("--sample-interval", sample_interval,
                   "Simulated period of the link and queue samples in --hdf5 and --trace (doubles when --max-samples "
                   "are held)")
        ->capture_default_str();
    cmd.add_option("--max-samples", max_samples, "Link samples kept at most (even, at least 2)")->capture_default_str();
  }
}

void ObserveCliOptions::check() const {
  if (status_port < -1 || status_port > 65535) throw CLI::ValidationError("--status-port", "must be 0..65535");
  if (sample_period() <= SimTime::zero()) throw CLI::ValidationError("--sample-interval", "must be positive");
  if (max_samples < 2 || max_samples % 2 != 0)
    throw CLI::ValidationError("--max-samples", "must be even and at least 2");
  (void)linger_s();
  (void)progress_every_s(false);
  check_output_path("--hdf5", hdf5);
  check_output_path("--trace", trace);
}

double ObserveCliOptions::progress_every_s(bool terminal) const {
  if (progress_every.empty()) return terminal ? 0.25 : 10.0;
  return static_cast<double>(parse_duration_option("--progress-every", progress_every).picoseconds()) / 1e12;
}

SimTime ObserveCliOptions::sample_period() const { return parse_duration_option("--sample-interval", sample_interval); }

double ObserveCliOptions::linger_s() const {
  return static_cast<double>(parse_duration_option("--status-linger", status_linger).picoseconds()) / 1e12;
}

}  // namespace collsim::cli
