#pragma once
// The few numbers that `collsim calibrate` fits and `collsim validate --calibration` uses.
// Everything else comes from the system preset (line rates, latencies) and from NCCL's
// tuning model (algorithm, protocol).
//
// File (YAML), as `collsim calibrate -o` writes it:
//   system: dgx-h100                 # the preset the parameters were fitted for
//   trained_on: [a.log, b.log]
//   parameters:
//     gpu_link_efficiency: 0.82      # fraction of the NVLink/PCIe line rate that carries data
//     nic_efficiency: 0.93           # fraction of the NIC line rate that carries data
//     launch_us: 8.4                 # once per collective and channel (NCCL's base latency)
//     step_us: 3.4                   # before every message (NCCL's per-hop latency)
//     simple_launch_us: 30           # launch_us and step_us of the Simple protocol alone
//     simple_step_us: 0              #   (see below); -1: launch_us and step_us
//     net_latency_us: 5.0            # added to every crossing of the inter-node network
//     nvls_efficiency: 0.6           # NVLS reduction rate as a fraction of the GPUs' NVLink rate
//     ll128_network_efficiency: 0.8  # share of nic_efficiency that LL128 gets between nodes
//     host_issue_us: 4.25            # CPU time to enqueue a collective on one GPU (host_issue.hpp)

#include <optional>
#include <string>
#include <vector>

#include "collsim/common/sim_time.hpp"

namespace collsim::validation {

// The file's latencies are microseconds; -1 there is an unset latency here.
struct ModelParameters {
  double gpu_link_efficiency = 1.0;
  double nic_efficiency = 1.0;
  std::optional<Duration> launch;  // none: the protocol's (NCCL's base latency per protocol)
  std::optional<Duration> step;    // none: the protocol's
  // Added to every crossing of the network (NIC, proxy, switch).
  Duration net_latency = Duration::zero();
  double nvls_efficiency = -1.0;  // NVLS engine rate / (GPUs * NVLink rate); -1: NCCL's (0.85 Hopper, 0.74 Blackwell)
  std::optional<Duration> host_issue;  // per GPU a thread drives; none: kHostIssuePerGpu
  // LL128 between nodes gets this share of the NIC rate that Simple gets: training log 25 (2 x
  // 4 H100) runs its LL128 trees at ~78% of its Simple trees' rate per NIC byte, beyond LL128's
  // 120/128 of data per line, which the model already counts. 1: no less than Simple.
  double ll128_network_efficiency = 1.0;
  // The Simple protocol's own fixed and per-round latency. Measured Simple rings cost what
  // their wire bytes cost plus a fixed ~30 us, whatever their number of rounds (allreduce of S
  // takes as long as allgather of 2S, with twice the rounds), where NCCL's tuning table says
  // 8.4 us + 3.4 us per round; calibrate fits both on the Simple ring sizes of one-node logs.
  // none: launch and step.
  std::optional<Duration> simple_launch;
  std::optional<Duration> simple_step;
};

// An optional latency as the file and the output show it: microseconds, or -1 when unset.
constexpr double microseconds_or_unset(const std::optional<Duration>& d) { return d ? d->microseconds() : -1.0; }

struct Calibration {
  std::string system;
  std::vector<std::string> trained_on;
  ModelParameters parameters;
  double training_error = -1;  // median absolute busbw error over the training sizes; -1: unknown
};

// Throws collsim::InputError naming the file (and line) for anything malformed, an unknown
// key or a value out of range (efficiencies in (0, 1.5], latencies >= 0 or -1).
Calibration read_calibration(const std::string& path);
void write_calibration(const std::string& path, const Calibration& c);
// Checks the ranges; throws std::invalid_argument naming the parameter.
void check(const ModelParameters& p);

}  // namespace collsim::validation
