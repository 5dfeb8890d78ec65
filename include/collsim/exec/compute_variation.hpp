#pragma once
// How the ranks' compute departs from the schedule's calc times: stragglers (a speed factor
// per GPU: named ones, k chosen at random, or drawn from a distribution), noise per calc op
// (a factor drawn per op), and detours when a rank's cpu does something else (LogGOPSim's
// noise trace, repeating, each rank from its own offset; or a stall of a given length at a
// given moment). A calc that runs into a detour is lengthened by it. Every draw is a function
// of the seed, the rank and the op's place in its rank's calcs, so a run gives the same times
// whatever the number of simulator ranks.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/goal/op.hpp"

namespace collsim::exec {

// Time a rank's cpu spends on something else.
struct Detour {
  SimTime start;
  SimTime duration;
};

// LogGOPSim's noise trace: detours over one period, which then repeats.
struct NoiseTrace {
  std::vector<Detour> detours;  // ascending by start, within [0, period)
  SimTime period;               // the last detour's start, as LogGOPSim takes it
};
// Lines "<start>\t<duration>" (or spaces) in nanoseconds, '#' comments; throws InputError with
// the line for anything else, detours out of order or overlapping, or fewer than two.
NoiseTrace read_noise_trace(const std::string& path);

enum class Spread : std::uint8_t { Normal, LogNormal };
// A factor of mean 1: normal 1 + sigma z (at least 0), log-normal exp(sigma z - sigma^2 / 2).
struct FactorDistribution {
  Spread spread = Spread::Normal;
  double sigma = 0;
};
// "normal:0.05", "lognormal:0.1"; nothing (and `error` set) otherwise.
std::optional<FactorDistribution> parse_factor_distribution(const std::string& text, std::string* error);

struct Stall {
  goal::RankId rank = 0;
  SimTime at;
  SimTime duration;
};

struct ComputeVariationSpec {
  std::vector<std::pair<goal::RankId, double>> slow_ranks;  // rank, time factor (2: twice as slow)
  std::uint32_t random_slow = 0;                            // this many ranks, chosen by the seed,
  double random_slow_factor = 1;                            // at this factor
  std::optional<FactorDistribution> gpu_speed;              // a factor per rank
  std::optional<FactorDistribution> op_noise;               // a factor per calc op
  std::optional<NoiseTrace> noise_trace;
  bool noise_cosched = false;                               // every rank from the same offset
  std::vector<Stall> stalls;
  std::uint64_t seed = 1;
  // Ranks kept at nominal speed whatever the above say (to measure what one straggler costs).
  std::vector<goal::RankId> nominal_ranks;

  bool any() const {
    return !slow_ranks.empty() || random_slow > 0 || gpu_speed || op_noise || noise_trace || !stalls.empty();
  }
};

// One cause of uneven compute and the spec without it: each straggler rank (named or drawn),
// the per-GPU spread, the op noise, the noise trace, each stall.
struct VariationPart {
  std::string label;  // "rank 3 x1.5", "stall of rank 0 at 5ms for 2ms", "op noise", ...
  ComputeVariationSpec without;
};
class ComputeVariation;
// The parts of `spec` on `v` (built from it), at most `most` straggler ranks (the slowest).
std::vector<VariationPart> variation_parts(const ComputeVariationSpec& spec, const ComputeVariation& v, std::size_t most);

class ComputeVariation {
 public:
  // Throws std::invalid_argument for a rank not below `ranks`, a factor not above 0, more
  // random stragglers than ranks.
  ComputeVariation(const ComputeVariationSpec& spec, std::uint32_t ranks);

  std::uint32_t num_ranks() const { return static_cast<std::uint32_t>(factor_.size()); }
  // The time factor of every calc of the rank (1: as scheduled).
  double speed_factor(goal::RankId rank) const { return factor_[rank]; }
  // Where in the noise trace's period the rank's time 0 falls.
  SimTime trace_offset(goal::RankId rank) const { return trace_offset_[rank]; }
  // When the `index`-th calc of `rank` (0, 1, ... in the order it runs them), `nominal` long
  // in the schedule, ends if it starts at `start`.
  SimTime calc_end(goal::RankId rank, std::uint64_t index, SimTime start, SimTime nominal) const;

 private:
  // The end of `work` of cpu time from `start` on `rank`, past the detours in its way.
  SimTime past_detours(goal::RankId rank, SimTime start, SimTime work) const;

  ComputeVariationSpec spec_;
  std::vector<double> factor_;
  std::vector<SimTime> trace_offset_;               // per rank, into the noise trace's period
  std::vector<std::vector<Detour>> stalls_;         // per rank, ascending
};

}  // namespace collsim::exec
