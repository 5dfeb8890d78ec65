#pragma once
// The options that make ranks compute unevenly (stragglers, noise, stalls), shared by the
// simulating commands, and what a run reports of them.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/exec/compute_variation.hpp"

namespace collsim::cli {

struct ComputeCliOptions {
  std::vector<std::string> slow_gpu;  // RANK:FACTOR
  std::string slow_gpus;              // K:FACTOR
  std::string gpu_speed;              // normal:SIGMA or lognormal:SIGMA
  std::string op_noise;
  std::string noise_trace;            // LogGOPSim's format
  bool noise_cosched = false;
  std::vector<std::string> stall;     // RANK:AT:FOR
  std::uint64_t seed = 1;
  bool straggler_report = false;
  // Instead of what the options give (a rerun without one straggler).
  std::optional<exec::ComputeVariationSpec> replaced;
  // The noise trace once read: spec() is asked for by the check, every simulation and the
  // printers of one command.
  mutable std::optional<exec::NoiseTrace> trace_read;

  void add_to(CLI::App& cmd);
  bool any() const;
  // The spec the options give (the noise trace read); CLI::ValidationError or InputError.
  exec::ComputeVariationSpec spec() const;
  // For a schedule of `ranks` ranks; null when no option is given.
  std::shared_ptr<const exec::ComputeVariation> variation(std::uint32_t ranks) const;
};

// "compute_variation": each rank's factor where it is not 1 (up to 16, slowest first), the
// noise and stalls, and the seed.
nlohmann::json compute_variation_json(const ComputeCliOptions& o, const exec::ComputeVariation& v);
// What each straggler costs: the run again without it, for each part of the variation (at
// most 8 straggler ranks), on every rank of `parallel`; on the root, per part, the step's and
// each rank's delay. `run_again` simulates with the given options and returns the run (root).
struct StragglerCost {
  std::string label;
  SimTime step_delay;                                          // makespan with it - without it
  std::vector<std::pair<goal::RankId, SimTime>> most_delayed;  // ranks, most delayed first (8)
};
nlohmann::json straggler_json(const std::vector<StragglerCost>& costs);
std::string straggler_lines(const std::vector<StragglerCost>& costs);

// One line: "compute       2 stragglers (rank 3 x1.5, rank 7 x2), op noise lognormal 0.05, ..."
std::string compute_variation_line(const ComputeCliOptions& o, const exec::ComputeVariation& v);

}  // namespace collsim::cli
