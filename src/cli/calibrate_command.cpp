#include "calibrate_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "collsim/validation/calibration_fit.hpp"
#include "collsim/validation/host_issue.hpp"
#include "collsim/validation/nvls_model.hpp"
#include "observe_options.hpp"
#include "validation_options.hpp"
#include "validation_simulator.hpp"

namespace collsim::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> logs;
  std::string system;
  std::string output;
  std::uint32_t iterations = 4;
  std::uint32_t sizes_per_run = 8;
  std::uint32_t ranks = 0;
  std::string from;  // a calibration whose parameters the fit starts from
  // "LOG: OPTIONS": how NCCL ran that log, where it differs from the options for all logs.
  std::vector<std::string> log_options;
  validation::ValidationRequest request;
  SimulationCliOptions sim;
};

struct Pass {
  std::vector<validation::RunValidation> runs;
  double median_abs_error = 0;
};

// A log's own options (--log-options "LOG: OPTIONS") over the request of every log: the options
// of add_run_choice_options and --ranks, parsed as on the command line.
struct LogOptions {
  std::string log, options;
};

std::vector<LogOptions> parse_log_options(const std::vector<std::string>& given, const std::vector<std::string>& logs) {
  std::vector<LogOptions> out;
  for (const std::string& g : given) {
    const std::size_t colon = g.find(": ");
    if (colon == std::string::npos)
      throw CLI::ValidationError("--log-options", "expected 'LOG: OPTIONS' (e.g. 'run.log: --algo ring'), not '" + g + "'");
    LogOptions lo{g.substr(0, colon), g.substr(colon + 2)};
    if (std::find(logs.begin(), logs.end(), lo.log) == logs.end())
      throw CLI::ValidationError("--log-options", "'" + lo.log + "' is not one of the logs given");
    for (const LogOptions& seen : out)
      if (seen.log == lo.log) throw CLI::ValidationError("--log-options", "'" + lo.log + "' is given options twice");
    out.push_back(std::move(lo));
  }
  return out;
}

validation::ValidationRequest request_for(const std::string& log, const std::vector<LogOptions>& per_log, validation::ValidationRequest r) {
  for (const LogOptions& lo : per_log) {
    if (lo.log != log) continue;
    CLI::App app("the options of one log");
    add_run_choice_options(app, r);
    app.add_option("--ranks", r.ranks_if_unknown, "Ranks, when the log does not tell")->check(CLI::Range(2u, 1u << 24));
    try {
      app.parse(lo.options, false);
      check_run_choice_options(r);
    } catch (const CLI::ParseError& e) {
      throw CLI::ValidationError("--log-options", "'" + lo.log + ": " + lo.options + "': " + e.what());
    }
  }
  return r;
}

void run_calibrate(const CalibrateOptions& o) {
  check_output_path("--output", o.output);  // before minutes of fitting, not after
  const validation::SystemPreset system = system_of_option(o.system);
  check_run_choice_options(o.request);
  validation::ValidationRequest request = o.request;
  request.system = o.system;
  request.max_sizes = o.sizes_per_run;
  request.ranks_if_unknown = o.ranks;
  validation::Calibration result;
  validation::ModelParameters& p = request.parameters;
  if (!o.from.empty()) {
    // The parameters the new logs do not inform keep the values fitted before; the result was
    // trained on both sets of logs.
    const validation::Calibration start = validation::read_calibration(o.from);
    std::fputs(apply_calibration(start, o.from, request).c_str(), stderr);
    result.trained_on = start.trained_on;
  }
  if (p.nvls_efficiency < 0) p.nvls_efficiency = validation::nccl_nvls_efficiency(system.arch);
  // Each log's request, checked before any pass; each pass gives them the parameters it fits.
  const std::vector<LogOptions> per_log = parse_log_options(o.log_options, o.logs);
  std::vector<validation::ValidationRequest> log_requests;
  for (const std::string& path : o.logs) log_requests.push_back(request_for(path, per_log, request));
  std::vector<validation::LogFile> logs;
  for (const std::string& path : o.logs) logs.push_back(validation::read_nccl_tests_log(path));

  ParallelContext parallel;
  PacketValidationSimulator simulator(o.sim, parallel);
  validation::ModelParameters before_last;
  const int rc = parallel.guarded([&] {
    auto simulate = [&] {
      Pass pass;
      std::vector<double> errors;
      for (std::size_t k = 0; k < logs.size(); ++k) {
        const validation::LogFile& log = logs[k];
        validation::ValidationRequest& log_request = log_requests[k];
        log_request.parameters = p;
        for (std::size_t i = 0; i < log.runs.size(); ++i) {
          validation::RunValidation v = with_option_errors([&] {
            const validation::ValidationSetup setup = validation::resolve_setup(log.runs[i], log_request);
            return validation::validate_run(log.runs[i], i, setup, log_request, simulator);
          });
          for (const auto& s : v.sizes) errors.push_back(std::fabs(s.error));
          pass.runs.push_back(std::move(v));
        }
      }
      pass.median_abs_error = validation::median(errors);
      return pass;
    };
    validation::CalibrationFit fit;
    before_last = p;
    for (std::uint32_t it = 0; it <= o.iterations; ++it) {
      const Pass pass = simulate();
      if (parallel.is_root())
        std::printf("pass %u: gpu_link_efficiency %.3f nic_efficiency %.3f ll128_network_efficiency %.3f "
                    "nvls_efficiency %.3f launch_us %.2f (-1: NCCL's) net_latency_us %.2f simple_launch_us %.2f "
                    "simple_step_us %.2f host_issue_us %.2f (-1: %.2f) -> median |error| %.1f%%\n",
                    it, p.gpu_link_efficiency, p.nic_efficiency, p.ll128_network_efficiency, p.nvls_efficiency,
                    validation::microseconds_or_unset(p.launch), p.net_latency.microseconds(),
                    validation::microseconds_or_unset(p.simple_launch), validation::microseconds_or_unset(p.simple_step),
                    validation::microseconds_or_unset(p.host_issue), validation::kHostIssuePerGpu.microseconds(),
                    100 * pass.median_abs_error);
      result.training_error = pass.median_abs_error;
      if (it == o.iterations) break;
      before_last = p;
      fit.step(pass.runs, p);
    }
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
  if (!parallel.is_root()) return;
  if (const std::string moved = validation::unsettled(before_last, p); !moved.empty())
    std::printf("not settled: the last pass moved %s; more --iterations may move them further\n", moved.c_str());
  result.system = o.system;
  for (const std::string& log : o.logs)
    if (std::find(result.trained_on.begin(), result.trained_on.end(), log) == result.trained_on.end())
      result.trained_on.push_back(log);
  result.parameters = p;
  validation::write_calibration(o.output, result);
  std::printf("wrote %s (median |busbw error| on the training sizes %.1f%%)\n", o.output.c_str(),
              100 * result.training_error);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit the model's efficiencies and latencies to nccl-tests logs of one system (for validate)");
  cmd->footer(
      "Fits gpu_link_efficiency, nic_efficiency, ll128_network_efficiency, nvls_efficiency, launch_us,\n"
      "net_latency_us, simple_launch_us, simple_step_us and host_issue_us.\n"
      "Each pass simulates the logs (sizes-per-run sizes each); then every efficiency is multiplied by the median\n"
      "simulated/measured time of the bandwidth-bound sizes (>= 64 MiB) it limits (one node: gpu_link_efficiency;\n"
      "across nodes the slower of a GPU's link and its node's NICs: ll128_network_efficiency for LL128 sizes,\n"
      "nic_efficiency for the others), and launch_us moves by the\n"
      "median measured-simulated time of the latency-bound sizes (< 64 KiB) of one-node runs, net_latency_us by\n"
      "that difference over the network crossings of multi-node runs (a secant step once two passes tried two\n"
      "values). simple_launch_us and simple_step_us move by the line through the median measured-simulated time of\n"
      "the one-node Simple ring sizes below 64 MiB per ring round count (the fixed part alone when all have the\n"
      "same rounds). host_issue_us is the median measured time over GPUs per thread of the sizes < 64 KiB that a\n"
      "thread driving several GPUs reports above the simulated collective (nccl-tests' enqueueing floor); other\n"
      "sizes at that floor, and runs inconsistent with the preset, are not fitted. With --from, what the logs do\n"
      "not inform keeps the value of that calibration.");
  cmd->add_option("LOG", o->logs, "Training logs")->required()->check(CLI::ExistingFile);
  cmd->add_option("--system", o->system, "System preset (collsim validate --list-systems) or system file (--help-system)")
      ->required();
  cmd->add_option("-o,--output", o->output, "Calibration file to write (YAML)")->required();
  cmd->add_option("--iterations", o->iterations, "Fitting passes")->capture_default_str()->check(CLI::Range(1, 20));
  cmd->add_option("--sizes-per-run", o->sizes_per_run, "Sizes simulated per run, spread over its range")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  cmd->add_option("--ranks", o->ranks, "Ranks of the logs that do not tell");
  add_run_choice_options(*cmd, o->request);
  cmd->add_option("--log-options", o->log_options,
                  "'LOG: OPTIONS': how NCCL ran one of the logs where it differs from the options above (e.g. "
                  "'28.log: --algo ring'; the options above and --ranks); repeat per log");
  cmd->add_option("--from", o->from,
                  "Start from this calibration: what the logs given do not inform keeps its value (e.g. the NVLink "
                  "efficiency of one-node logs when fitting a multi-node log's NICs)")
      ->check(CLI::ExistingFile);
  o->sim.fabric.add_to(*cmd);
  cmd->callback([o] { run_calibrate(*o); });
}

}  // namespace collsim::cli
