#pragma once
// Measured against simulated, size by size, and the summary the report gives: median and
// maximum absolute busbw error for sizes >= 1 MiB and below, separately.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/collectives/algorithm.hpp"
#include "collsim/collectives/collective.hpp"
#include "collsim/common/sim_time.hpp"

namespace collsim::validation {

inline constexpr std::uint64_t kLargeSizeBytes = 1ull << 20;

struct SizeComparison {
  std::uint64_t bytes = 0;
  Duration measured = Duration::zero(), simulated = Duration::zero();
  // The simulated collective alone, under nccl-tests' enqueueing floor.
  Duration collective = Duration::zero();
  double measured_busbw = 0, simulated_busbw = 0;  // GB/s, nccl-tests' formula on each time
  double error = 0;                                // simulated busbw / measured busbw - 1
  std::string algorithm;                           // what the simulation ran: "ring LL128 x24"
  collectives::ChunkPath path = collectives::ChunkPath::Other;   // of the algorithm that ran
  collectives::Protocol protocol = collectives::Protocol::Simple;
  bool nvls = false;                               // NVLS or NVLSTree ran
  double wall_s = 0;                               // simulation wall time of this size
  std::uint64_t events = 0;
};

double median(std::vector<double> values, double if_empty = 0);
Duration median(std::vector<Duration> values);  // zero when empty

// busbw is inversely proportional to time at a fixed size, so the busbw error is the time
// ratio: measured / simulated - 1 (positive: the simulation is faster).
double busbw_error(Duration measured, Duration simulated);

struct ErrorSummary {
  std::size_t large_sizes = 0, small_sizes = 0;
  double median_abs_large = -1, max_abs_large = -1;  // -1: no such sizes
  double median_abs_small = -1, max_abs_small = -1;
  double median_signed_large = 0;                    // the direction of the error
};
ErrorSummary summarize(const std::vector<SizeComparison>& sizes);

// A run whose large sizes reach less than `fraction` of what the preset's hardware gives in
// simulation (median over sizes >= 1 MiB) does not run on that hardware as configured: a
// misconfiguration (log 11 run B) or a wrong preset. It is reported and never fitted.
struct PresetConsistency {
  bool consistent = true;
  std::string reason;
};
PresetConsistency check_against_preset(const std::vector<SizeComparison>& sizes, double fraction = 0.5);

}  // namespace collsim::validation
