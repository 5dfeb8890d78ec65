#pragma once
// One nccl-tests run against the simulation: what to simulate (collective, ranks, nodes,
// preset, channels, model parameters), then every size of the log simulated as NCCL would run
// it on the preset's packet-level fabric. Shared by `validate` and `calibrate`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collsim/collectives/collective.hpp"
#include "collsim/validation/comparison.hpp"
#include "collsim/validation/model_parameters.hpp"
#include "collsim/validation/nccl_tests_log.hpp"
#include "collsim/validation/nic_affinity.hpp"
#include "collsim/validation/run_facts.hpp"
#include "collsim/validation/system_preset.hpp"
#include "parallel_context.hpp"
#include "schedule_simulation.hpp"

namespace collsim::cli {

// What the user asked for; empty / 0 means "from the log".
struct ValidationRequest {
  std::string system;
  std::string system_source = "--system";
  std::uint32_t ranks = 0;
  std::uint32_t ranks_if_unknown = 0;   // used only when the log does not tell
  std::uint32_t gpus_per_node = 0;
  std::uint32_t channels = 0;
  std::uint32_t gpus_per_thread = 0;    // nccl-tests' -g, when the log does not print it
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string column = "auto";          // out-of-place, in-place, auto (out-of-place if printed)
  std::uint64_t min_bytes = 0, max_bytes = ~0ull;
  std::uint64_t max_ops = 4'000'000;    // GOAL ops per simulated size: chunks grow to stay below
  std::uint64_t max_packets = 2'000'000;  // per simulated size; larger sizes are extrapolated
  std::uint32_t max_sizes = 0;          // > 0: only this many sizes per run, spread evenly (calibration)
  bool streaming_hops = false;          // LL/LL128 trees and chains stream over NVLink (see lower)
  validation::ModelParameters parameters;
};

struct ValidationSetup {
  validation::SystemPreset preset;
  std::string preset_source;             // "--system", or why it was inferred
  coll::Collective collective = coll::Collective::Allreduce;
  std::string collective_source;
  std::uint32_t ranks = 0, nodes = 0, gpus_per_node = 0;
  std::string ranks_source;
  validation::NodeNics nics;             // the NICs of a node the job's GPUs send through
  std::uint32_t channels = 0;
  std::string channels_source;
  // GPUs one nccl-tests thread drives (its -g): the CPU enqueues every iteration on each of
  // them, which sets a floor under the time it reports (see validation/host_issue.hpp).
  std::uint32_t gpus_per_thread = 1;
  std::string gpus_per_thread_source;
  bool in_place = false;
  // The protocol every size runs ("auto": NCCL's choice by size), and who fixed it.
  std::string protocol = "auto";
  std::string protocol_source;
};

struct RunValidation {
  std::size_t run_index = 0;
  ValidationSetup setup;
  std::vector<validation::Finding> findings;     // the log against nccl-tests' formulas
  std::vector<validation::SizeComparison> sizes;
  std::vector<std::string> skipped;              // sizes not compared, and why
  validation::ErrorSummary summary;
  validation::PresetConsistency preset_check;
  double wall_s = 0;
};

// The preset or system file --system names; an unknown name is a CLI::ValidationError of
// --system, a bad file an InputError.
validation::SystemPreset system_of_option(const std::string& name_or_path);

// Throws CLI::ValidationError when something the simulation needs cannot be derived (with the
// option that supplies it).
ValidationSetup resolve_setup(const validation::TestRun& run, const ValidationRequest& request);

// Simulates every size of the run; on non-root MPI ranks the result holds no sizes.
RunValidation validate_run(const validation::TestRun& run, std::size_t run_index, const ValidationSetup& setup,
                           const ValidationRequest& request, const SimulationCliOptions& base, ParallelContext& parallel,
                           RunWatch* watch = nullptr);

}  // namespace collsim::cli
