#include "collsim/validation/calibration_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "collsim/collectives/tuning.hpp"
#include "collsim/validation/host_issue.hpp"

namespace collsim::validation {
namespace {

// No fitted latency goes beyond this.
constexpr Duration kMostLatency = Duration::us(1000.0);

// Allreduce passes the ring twice (reduce-scatter, then allgather), the others once.
double ring_passes(const RunValidation& v) { return v.setup.collective == collectives::Collective::Allreduce ? 2.0 : 1.0; }
// Rounds of a one-node ring: ranks - 1 per pass.
double ring_rounds(const RunValidation& v) { return ring_passes(v) * (v.setup.ranks - 1); }
bool simple_ring(const SizeComparison& s) {
  return s.path == collectives::ChunkPath::Ring && s.protocol == collectives::Protocol::Simple;
}

// Across nodes a bandwidth-bound ring or tree moves about as many bytes per GPU over its link
// as per node over the node's NICs, so the slower of the two limits it: the NICs on 4 H100 with
// 4 x 200G (log 25), NVLink in an NVL72 rack with a NIC per GPU (log 34), where fitting the NICs
// would lower their efficiency for ever and change nothing.
bool nics_limit(const RunValidation& v, bool ll128, const ModelParameters& p) {
  const SystemPreset& preset = v.setup.preset;
  double nics = v.setup.nics.count * preset.nic_data_gbits() / 8 * p.nic_efficiency;
  if (ll128) nics *= p.ll128_network_efficiency;
  return nics <= preset.gpu_link_gbytes * p.gpu_link_efficiency;
}

// Moves the Simple protocol's fixed and per-round latency by the line through the median
// residual of each round count (least squares over the round counts, so that the sizes of one
// collective do not outvote another's). With one round count only the fixed part moves.
void fit_simple_latency(const std::map<double, std::vector<Duration>>& shift_by_rounds, ModelParameters& p) {
  if (shift_by_rounds.empty()) return;
  const collectives::ProtocolCosts nccl = collectives::protocol_costs(collectives::Protocol::Simple);
  const Duration launch = p.simple_launch.value_or(p.launch.value_or(to_duration(nccl.launch)));
  const Duration step = p.simple_step.value_or(p.step.value_or(to_duration(nccl.step)));
  double n = 0, sx = 0, sxx = 0;
  Duration sy, sxy;
  for (const auto& [rounds, shifts] : shift_by_rounds) {
    const Duration y = median(shifts);
    n += 1, sx += rounds, sy += y, sxx += rounds * rounds, sxy += rounds * y;
  }
  Duration d_step;
  if (n > 1 && n * sxx - sx * sx > 0) d_step = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  // A negative per-round latency has no meaning: what it cannot take, the fixed part absorbs.
  const Duration new_step = std::clamp(step + d_step, Duration::zero(), kMostLatency);
  d_step = new_step - step;
  const Duration d_launch = (sy - d_step * sx) / n;
  p.simple_step = new_step;
  p.simple_launch = std::clamp(launch + d_launch, Duration::zero(), kMostLatency);
}

}  // namespace

double network_crossings(const RunValidation& v, const SizeComparison& s) {
  const double nodes = v.setup.nodes;
  switch (s.path) {
    case collectives::ChunkPath::Tree: return 2 * std::ceil(std::log2(nodes));
    case collectives::ChunkPath::Ring: return ring_passes(v) * (nodes - 1);
    case collectives::ChunkPath::Chain:
    case collectives::ChunkPath::Other: break;
  }
  return 1;
}

Informs informs(const RunValidation& v, const SizeComparison& s, const ModelParameters& p) {
  const Duration host_issue = host_issue_per_gpu(p.host_issue);
  // When one thread drives several GPUs, a small size that takes longer than the simulated
  // collective is held by the CPU's enqueueing: its time over the GPUs gives the cost per GPU.
  if (s.bytes < (64u << 10) && v.setup.gpus_per_thread > 1 && s.measured > 1.1 * s.collective)
    return Informs::HostIssue;
  // A size at the host's enqueueing floor says nothing about the GPUs' latencies.
  const Duration floor = nccl_tests_iteration(Duration::zero(), v.setup.gpus_per_thread, host_issue);
  if (s.bytes < (64u << 10) && s.simulated <= floor) return Informs::Nothing;
  if (s.bytes < (64u << 10)) return v.setup.nodes > 1 ? Informs::NetLatency : Informs::Launch;
  // Between the latency and the bandwidth regime the fixed cost of a Simple ring is a sizeable
  // share of its time (30 us of 100 at 32 MiB on 4 H100s), and the one-node rings of different
  // collectives tell its fixed part from its per-round part.
  if (s.bytes < (64u << 20)) return v.setup.nodes == 1 && simple_ring(s) ? Informs::SimpleLatency : Informs::Nothing;
  if (s.nvls) return Informs::NvlsEfficiency;
  const bool ll128 = s.protocol == collectives::Protocol::LL128;
  if (v.setup.nodes == 1 || !nics_limit(v, ll128, p)) return Informs::GpuLinkEfficiency;
  return ll128 ? Informs::Ll128NetworkEfficiency : Informs::NicEfficiency;
}

Duration SecantLatency::next(Duration latency, Duration residual) {
  double response = 1.0;  // residual change per unit of latency, in counted crossings
  if (has_previous_ && latency != previous_latency_) {
    const double r = (previous_residual_ - residual) / (latency - previous_latency_);
    if (r > 0) response = r;
  }
  has_previous_ = true;
  previous_latency_ = latency;
  previous_residual_ = residual;
  return std::clamp(latency + residual / response, Duration::zero(), kMostLatency);
}

void CalibrationFit::step(const std::vector<RunValidation>& runs, ModelParameters& p) {
  // Bandwidth-bound time scales as 1/efficiency: multiply by the median time ratio.
  // Latency-bound time shifts with the launch latency: add the median time difference.
  std::vector<double> ratio[4];
  std::vector<Duration> shift, net_shift, host_issue;
  std::map<double, std::vector<Duration>> simple_shift;  // ring rounds -> measured - simulated
  for (const RunValidation& v : runs) {
    if (!v.preset_check.consistent) continue;  // misconfigured runs are not fitted
    for (const auto& s : v.sizes) {
      switch (informs(v, s, p)) {
        case Informs::NvlsEfficiency: ratio[0].push_back(s.simulated / s.measured); break;
        case Informs::GpuLinkEfficiency: ratio[1].push_back(s.simulated / s.measured); break;
        case Informs::NicEfficiency: ratio[2].push_back(s.simulated / s.measured); break;
        case Informs::Ll128NetworkEfficiency: ratio[3].push_back(s.simulated / s.measured); break;
        case Informs::Launch: shift.push_back(s.measured - s.simulated); break;
        case Informs::NetLatency:
          net_shift.push_back((s.measured - s.simulated) / std::max(1.0, network_crossings(v, s)));
          break;
        case Informs::SimpleLatency: simple_shift[ring_rounds(v)].push_back(s.measured - s.simulated); break;
        case Informs::HostIssue: host_issue.push_back(s.measured / v.setup.gpus_per_thread); break;
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
  if (!net_shift.empty()) p.net_latency = net_latency_.next(p.net_latency, median(net_shift));
  if (!shift.empty())
    p.launch = std::clamp(p.launch.value_or(Duration::us(6.6)) + median(shift), Duration::zero(), kMostLatency);
  fit_simple_latency(simple_shift, p);
  if (!host_issue.empty()) p.host_issue = median(host_issue);
}

std::string unsettled(const ModelParameters& before, const ModelParameters& after) {
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
  // Latencies in microseconds, as the file names them (-1: unset).
  const auto latency = [&](const char* name, const std::optional<Duration>& a, const std::optional<Duration>& b) {
    check(name, microseconds_or_unset(a), microseconds_or_unset(b), 0.1);
  };
  latency("launch_us", before.launch, after.launch);
  check("net_latency_us", before.net_latency.microseconds(), after.net_latency.microseconds(), 0.1);
  latency("simple_launch_us", before.simple_launch, after.simple_launch);
  latency("simple_step_us", before.simple_step, after.simple_step);
  latency("host_issue_us", before.host_issue, after.host_issue);
  return moved;
}

}  // namespace collsim::validation
