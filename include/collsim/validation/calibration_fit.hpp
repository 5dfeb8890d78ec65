#pragma once
// How `calibrate` moves the model parameters after each pass over its logs. A bandwidth-bound
// size (>= 64 MiB) informs the efficiency of the link that limits it (NVLS engine, NVLink/PCIe
// inside a node, NICs across nodes), multiplied by the median simulated/measured time; a
// latency-bound one (< 64 KiB) the launch latency on one node and the network latency across
// nodes, moved by the median time difference; one-node Simple rings between the two the
// Simple protocol's fixed and per-round latency; and the small sizes that a thread driving
// several GPUs reports above the collective the host's enqueueing cost.

#include <string>
#include <vector>

#include "collsim/validation/comparison.hpp"
#include "collsim/validation/model_parameters.hpp"
#include "collsim/validation/run_validation.hpp"

namespace collsim::validation {

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
// Which parameter size `s` of run `v` informs under parameters `p`.
Informs informs(const RunValidation& v, const SizeComparison& s, const ModelParameters& p);

// Network crossings on the critical path of a latency-bound collective: a ring crosses
// between nodes nodes-1 times per pass (allreduce makes two passes), a tree up and down its
// depth, anything else once.
double network_crossings(const RunValidation& v, const SizeComparison& s);

// The network latency moves by the median residual over the crossings counted above. The
// simulated time can respond to it more steeply than that count says (a sender that waits for
// its message's delivery pays a crossing twice), and a full step then overshoots, so that the
// fit swings between two values for ever (log 06: 0 and 11.7 us). Once two passes have tried
// different latencies, the step is the secant's: the residual's measured response to the
// latency, which is linear here.
class SecantLatency {
 public:
  // The latency to try next after `latency` left `residual` (per crossing).
  Duration next(Duration latency, Duration residual);

 private:
  bool has_previous_ = false;
  Duration previous_latency_, previous_residual_;
};

class CalibrationFit {
 public:
  // Moves `p` by what one pass's runs say; runs inconsistent with their preset are not fitted.
  void step(const std::vector<RunValidation>& runs, ModelParameters& p);

 private:
  SecantLatency net_latency_;
};

// What the last pass still moved by more than 2% (latencies also by more than a tenth of a
// microsecond), as "name a -> b, ...": the fit has not settled there. "" when nothing did.
std::string unsettled(const ModelParameters& before, const ModelParameters& after);

}  // namespace collsim::validation
