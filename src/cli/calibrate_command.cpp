#include "calibrate_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "collsim/collectives/collective.hpp"
#include "collsim/validation/comparison.hpp"
#include "collsim/validation/host_issue.hpp"
#include "collsim/validation/nvls_allreduce.hpp"
#include "observe_options.hpp"
#include "validation_options.hpp"
#include "validation_runner.hpp"

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
  ValidationRequest request;
  SimulationCliOptions sim;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Which parameter a size informs: a bandwidth-bound size (>= 64 MiB) informs the efficiency of
// the link that limits it (NVLS engine, NVLink/PCIe inside a node, NICs across nodes); a
// latency-bound one (< 64 KiB) the launch latency on one node, the network latency across nodes.

// Allreduce passes the ring twice (reduce-scatter, then allgather), the others once.
double ring_passes(const RunValidation& v) { return v.setup.collective == coll::Collective::Allreduce ? 2.0 : 1.0; }
// Network crossings on the critical path of a latency-bound collective: a ring crosses
// between nodes nodes-1 times per pass (allreduce makes two passes), a tree up and down its
// depth, point-to-point once.
double network_crossings(const RunValidation& v, const validation::SizeComparison& s) {
  const double nodes = v.setup.nodes;
  if (s.algorithm.rfind("double_binary_tree", 0) == 0) return 2 * std::ceil(std::log2(nodes));
  if (s.algorithm.rfind("ring", 0) == 0) return ring_passes(v) * (nodes - 1);
  return 1;
}
// Rounds of a one-node ring: ranks - 1 per pass.
double ring_rounds(const RunValidation& v) { return ring_passes(v) * (v.setup.ranks - 1); }
bool simple_ring(const validation::SizeComparison& s) {
  return s.algorithm.rfind("ring Simple", 0) == 0;
}
enum class Informs {
  NvlsEfficiency,
  GpuLinkEfficiency,
  NicEfficiency,
  Ll128NetworkEfficiency,
  Launch,
  NetLatency,
  SimpleLatency,
  HostIssue,
  Nothing
};
// Across nodes a bandwidth-bound ring or tree moves about as many bytes per GPU over its link
// as per node over the node's NICs, so the slower of the two limits it: the NICs on 4 H100 with
// 4 x 200G (log 25), NVLink in an NVL72 rack with a NIC per GPU (log 34), where fitting the NICs
// would lower their efficiency for ever and change nothing.
bool nics_limit(const RunValidation& v, bool ll128, const validation::ModelParameters& p) {
  const validation::SystemPreset& preset = v.setup.preset;
  double nics = v.setup.nics.count * preset.nic_gbits / 8 * p.nic_efficiency;
  if (ll128) nics *= p.ll128_network_efficiency;
  return nics <= preset.gpu_link_gbytes * p.gpu_link_efficiency;
}

Informs informs(const RunValidation& v, const validation::SizeComparison& s, const validation::ModelParameters& p) {
  const double host_issue_us = validation::host_issue_us_per_gpu(p.host_issue_us);
  // When one thread drives several GPUs, a small size that takes longer than the simulated
  // collective is held by the CPU's enqueueing: its time over the GPUs gives the cost per GPU.
  if (s.bytes < (64u << 10) && v.setup.gpus_per_thread > 1 && s.measured_us > 1.1 * s.collective_us)
    return Informs::HostIssue;
  // A size at the host's enqueueing floor says nothing about the GPUs' latencies.
  const double floor_us = validation::nccl_tests_iteration_us(0.0, v.setup.gpus_per_thread, host_issue_us);
  if (s.bytes < (64u << 10) && s.simulated_us <= floor_us) return Informs::Nothing;
  if (s.bytes < (64u << 10)) return v.setup.nodes > 1 ? Informs::NetLatency : Informs::Launch;
  // Between the latency and the bandwidth regime the fixed cost of a Simple ring is a sizeable
  // share of its time (30 us of 100 at 32 MiB on 4 H100s), and the one-node rings of different
  // collectives tell its fixed part from its per-round part.
  if (s.bytes < (64u << 20)) return v.setup.nodes == 1 && simple_ring(s) ? Informs::SimpleLatency : Informs::Nothing;
  if (s.algorithm.rfind("nvls", 0) == 0) return Informs::NvlsEfficiency;
  const bool ll128 = s.algorithm.find(" LL128 ") != std::string::npos;
  if (v.setup.nodes == 1 || !nics_limit(v, ll128, p)) return Informs::GpuLinkEfficiency;
  return ll128 ? Informs::Ll128NetworkEfficiency : Informs::NicEfficiency;
}

// Moves the Simple protocol's fixed and per-round latency by the line through the median
// residual of each round count (least squares over the round counts, so that the sizes of one
// collective do not outvote another's). With one round count only the fixed part moves.
void fit_simple_latency(const std::map<double, std::vector<double>>& shift_by_rounds, validation::ModelParameters& p) {
  if (shift_by_rounds.empty()) return;
  const coll::ProtocolCosts nccl = coll::protocol_costs(coll::Protocol::Simple);
  double launch = p.simple_launch_us >= 0 ? p.simple_launch_us : p.launch_us >= 0 ? p.launch_us : nccl.launch_ns / 1e3;
  double step = p.simple_step_us >= 0 ? p.simple_step_us : p.step_us >= 0 ? p.step_us : nccl.step_ns / 1e3;
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [rounds, shifts] : shift_by_rounds) {
    const double y = median(shifts);
    n += 1, sx += rounds, sy += y, sxx += rounds * rounds, sxy += rounds * y;
  }
  double d_step = 0;
  if (n > 1 && n * sxx - sx * sx > 0) d_step = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  // A negative per-round latency has no meaning: what it cannot take, the fixed part absorbs.
  const double new_step = std::clamp(step + d_step, 0.0, 1000.0);
  d_step = new_step - step;
  const double d_launch = (sy - d_step * sx) / n;
  p.simple_step_us = new_step;
  p.simple_launch_us = std::clamp(launch + d_launch, 0.0, 1000.0);
}

// The network latency moves by the median residual over the crossings counted above. The
// simulated time can respond to it more steeply than that count says (a sender that waits for
// its message's delivery pays a crossing twice), and a full step then overshoots, so that the
// fit swings between two values for ever (log 06: 0 and 11.7 us). Once two passes have tried
// different latencies, the step is the secant's: the residual's measured response to the
// latency, which is linear here.
class SecantLatency {
 public:
  double next(double latency, double residual) {
    double response = 1.0;  // residual change per unit of latency, in counted crossings
    if (has_previous_ && latency != previous_latency_) {
      const double r = (previous_residual_ - residual) / (latency - previous_latency_);
      if (r > 0) response = r;
    }
    has_previous_ = true;
    previous_latency_ = latency;
    previous_residual_ = residual;
    return std::clamp(latency + residual / response, 0.0, 1000.0);
  }

 private:
  bool has_previous_ = false;
  double previous_latency_ = 0, previous_residual_ = 0;
};

// What the last pass still moved by more than 2% (latencies also by more than a tenth of a
// microsecond): the fit has not settled there, and more passes may move it further.
std::string unsettled(const validation::ModelParameters& before, const validation::ModelParameters& after) {
  std::string moved;
  auto check = [&](const char* name, double a, double b, double at_least) {
    if (std::fabs(b - a) <= std::max(at_least, 0.02 * std::fabs(a))) return;
    char text[96];
    std::snprintf(text, sizeof text, "%s%s %.3f -> %.3f", moved.empty() ? "" : ", ", name, a, b);
    moved += text;
  };
  check("gpu_link_efficiency", before.gpu_link_efficiency, after.gpu_link_efficiency, 0);
  check("nic_efficiency", before.nic_efficiency, after.nic_efficiency, 0);
  check("ll128_network_efficiency", before.ll128_network_efficiency, after.ll128_network_efficiency, 0);
  check("nvls_efficiency", before.nvls_efficiency, after.nvls_efficiency, 0);
  check("launch_us", before.launch_us, after.launch_us, 0.1);
  check("net_latency_us", before.net_latency_us, after.net_latency_us, 0.1);
  check("simple_launch_us", before.simple_launch_us, after.simple_launch_us, 0.1);
  check("simple_step_us", before.simple_step_us, after.simple_step_us, 0.1);
  check("host_issue_us", before.host_issue_us, after.host_issue_us, 0.1);
  return moved;
}

struct Pass {
  std::vector<RunValidation> runs;
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

ValidationRequest request_for(const std::string& log, const std::vector<LogOptions>& per_log, ValidationRequest r) {
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
  ValidationRequest request = o.request;
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
  std::vector<ValidationRequest> log_requests;
  for (const std::string& path : o.logs) log_requests.push_back(request_for(path, per_log, request));
  std::vector<validation::LogFile> logs;
  for (const std::string& path : o.logs) logs.push_back(validation::read_nccl_tests_log(path));

  ParallelContext parallel;
  validation::ModelParameters before_last;
  const int rc = parallel.guarded([&] {
    auto simulate = [&] {
      Pass pass;
      std::vector<double> errors;
      for (std::size_t k = 0; k < logs.size(); ++k) {
        const validation::LogFile& log = logs[k];
        ValidationRequest& log_request = log_requests[k];
        log_request.parameters = p;
        for (std::size_t i = 0; i < log.runs.size(); ++i) {
          const ValidationSetup setup = resolve_setup(log.runs[i], log_request);
          RunValidation v = validate_run(log.runs[i], i, setup, log_request, o.sim, parallel);
          for (const auto& s : v.sizes) errors.push_back(std::fabs(s.error));
          pass.runs.push_back(std::move(v));
        }
      }
      pass.median_abs_error = median(errors);
      return pass;
    };
    SecantLatency net_latency;
    before_last = p;
    for (std::uint32_t it = 0; it <= o.iterations; ++it) {
      const Pass pass = simulate();
      if (parallel.is_root())
        std::printf("pass %u: gpu_link_efficiency %.3f nic_efficiency %.3f ll128_network_efficiency %.3f "
                    "nvls_efficiency %.3f launch_us %.2f (-1: NCCL's) net_latency_us %.2f simple_launch_us %.2f "
                    "simple_step_us %.2f host_issue_us %.2f (-1: %.2f) -> median |error| %.1f%%\n",
                    it, p.gpu_link_efficiency, p.nic_efficiency, p.ll128_network_efficiency, p.nvls_efficiency,
                    p.launch_us, p.net_latency_us, p.simple_launch_us, p.simple_step_us, p.host_issue_us,
                    validation::kHostIssueUsPerGpu, 100 * pass.median_abs_error);
      result.training_error = pass.median_abs_error;
      if (it == o.iterations) break;
      before_last = p;
      // Bandwidth-bound time scales as 1/efficiency: multiply by the median time ratio.
      // Latency-bound time shifts with the launch latency: add the median time difference.
      std::vector<double> ratio[4], shift, net_shift, host_issue;
      std::map<double, std::vector<double>> simple_shift;  // ring rounds -> measured - simulated
      for (const RunValidation& v : pass.runs) {
        if (!v.preset_check.consistent) continue;  // misconfigured runs are not fitted
        for (const auto& s : v.sizes) {
          switch (informs(v, s, p)) {
            case Informs::NvlsEfficiency: ratio[0].push_back(s.simulated_us / s.measured_us); break;
            case Informs::GpuLinkEfficiency: ratio[1].push_back(s.simulated_us / s.measured_us); break;
            case Informs::NicEfficiency: ratio[2].push_back(s.simulated_us / s.measured_us); break;
            case Informs::Ll128NetworkEfficiency: ratio[3].push_back(s.simulated_us / s.measured_us); break;
            case Informs::Launch: shift.push_back(s.measured_us - s.simulated_us); break;
            case Informs::NetLatency:
              net_shift.push_back((s.measured_us - s.simulated_us) / std::max(1.0, network_crossings(v, s)));
              break;
            case Informs::SimpleLatency: simple_shift[ring_rounds(v)].push_back(s.measured_us - s.simulated_us); break;
            case Informs::HostIssue: host_issue.push_back(s.measured_us / v.setup.gpus_per_thread); break;
            case Informs::Nothing: break;
          }
        }
      }
      // A share of the line rate cannot exceed 1: a run that needs more runs another algorithm
      // than the simulation (e.g. a tree where the model picks a ring), which no efficiency fixes.
      auto scale = [](double& eff, const std::vector<double>& r) {
        if (!r.empty()) eff = std::clamp(eff * median(r), 0.05, 1.0);
      };
      scale(p.nvls_efficiency, ratio[0]);
      scale(p.gpu_link_efficiency, ratio[1]);
      scale(p.nic_efficiency, ratio[2]);
      scale(p.ll128_network_efficiency, ratio[3]);
      // Until fitted, each protocol has its own base latency; small sizes run LL (6.6 us).
      if (!net_shift.empty()) p.net_latency_us = net_latency.next(p.net_latency_us, median(net_shift));
      if (!shift.empty()) p.launch_us = std::clamp((p.launch_us < 0 ? 6.6 : p.launch_us) + median(shift), 0.0, 1000.0);
      fit_simple_latency(simple_shift, p);
      if (!host_issue.empty()) p.host_issue_us = median(host_issue);
    }
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
  if (!parallel.is_root()) return;
  if (const std::string moved = unsettled(before_last, p); !moved.empty())
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
      "calibrate",
      "Fit gpu_link_efficiency, nic_efficiency, ll128_network_efficiency, nvls_efficiency, launch_us,\n"
      "net_latency_us, simple_launch_us, simple_step_us and host_issue_us on nccl-tests logs of one system.\n"
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
