#pragma once
// What to simulate for one nccl-tests run: the user's request (empty / 0 meaning "from the
// log") resolved against what the log says into collective, ranks, nodes, system, the NICs
// the job's GPUs send through, channels, protocol and the nccl-tests thread layout.

#include <cstdint>
#include <string>

#include "collsim/collectives/collective.hpp"
#include "collsim/validation/model_parameters.hpp"
#include "collsim/validation/nccl_tests_log.hpp"
#include "collsim/validation/nic_affinity.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {

// channels_source when the channels are those NCCL's INFO lines report: what NCCL's search
// found for the links, so the links' bandwidth is split over them.
inline constexpr const char* kChannelsFromLog = "the log's NCCL INFO";

struct ValidationRequest {
  std::string system;
  std::string system_source = "--system";
  std::uint32_t ranks = 0;
  std::uint32_t ranks_if_unknown = 0;   // used only when the log does not tell
  std::uint32_t gpus_per_node = 0;
  std::uint32_t channels = 0;
  std::uint32_t gpus_per_thread = 0;    // nccl-tests' -g, when the log does not print it
  std::string algorithm = "auto";       // a registered algorithm, "auto", or nvls / collnet_chain
  std::string protocol = "auto";
  std::string column = "auto";          // out-of-place, in-place, auto (out-of-place if printed)
  std::uint64_t min_bytes = 0, max_bytes = ~0ull;
  std::uint64_t max_ops = 4'000'000;    // GOAL ops per simulated size: chunks grow to stay below
  std::uint64_t max_packets = 2'000'000;  // per simulated size; larger sizes are extrapolated
  std::uint32_t max_sizes = 0;          // > 0: only this many sizes per run, spread evenly (calibration)
  bool streaming_hops = false;          // LL/LL128 trees and chains stream over NVLink (see size_lowering)
  ModelParameters parameters;

  // validate's NVLS (NVLSTree on 2 nodes) emulation.
  bool asks_nvls() const { return algorithm == "nvls" || algorithm == "nvls_tree"; }
  bool asks_collnet_chain() const { return algorithm == "collnet_chain"; }
  // CollNet (SHARP) of either kind: the network's switches reduce, on helper ranks per rail.
  bool asks_collnet() const { return asks_collnet_chain() || algorithm == "collnet_direct"; }
};

struct ValidationSetup {
  SystemPreset preset;
  std::string preset_source;             // "--system", or why it was inferred
  collectives::Collective collective = collectives::Collective::Allreduce;
  std::string collective_source;
  std::uint32_t ranks = 0, nodes = 0, gpus_per_node = 0;
  std::string ranks_source;
  NodeNics nics;                         // the NICs of a node the job's GPUs send through
  std::uint32_t channels = 0;
  std::string channels_source;
  // GPUs one nccl-tests thread drives (its -g): the CPU enqueues every iteration on each of
  // them, which sets a floor under the time it reports (see host_issue.hpp).
  std::uint32_t gpus_per_thread = 1;
  std::string gpus_per_thread_source;
  bool in_place = false;
  // The protocol every size runs ("auto": NCCL's choice by size), and who fixed it.
  std::string protocol = "auto";
  std::string protocol_source;
};

// The preset or system file `name_or_path` names; an unknown name is an OptionError of
// --system, a bad file an InputError.
SystemPreset system_of_option(const std::string& name_or_path);

// Throws OptionError when something the simulation needs cannot be derived (naming the option
// that supplies it), InputError for a bad system file.
ValidationSetup resolve_setup(const TestRun& run, const ValidationRequest& request);

}  // namespace collsim::validation
