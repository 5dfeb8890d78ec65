#include "validation_options.hpp"

#include "duration_option.hpp"

namespace collsim::cli {

void add_run_choice_options(CLI::App& cmd, validation::ValidationRequest& r) {
  cmd.add_option("--gpus-per-node", r.gpus_per_node, "GPUs per node (default: the device lines, else the preset)")
      ->check(CLI::Range(1u, 1024u));
  cmd.add_option("--gpus-per-thread", r.gpus_per_thread,
                 "GPUs one nccl-tests thread drives (its -g), when the log does not print it (default: the header's "
                 "nGpus, else 1)")
      ->check(CLI::Range(1u, 72u));
  cmd.add_option("--channels", r.channels, "NCCL channels (default: the log's INFO lines, else the preset)")
      ->check(CLI::Range(1u, 64u).description("1 to 64 (NCCL's MAXCHANNELS)"));
  cmd.add_option("--algo", r.algorithm,
                 "Algorithm instead of NCCL's choice (e.g. ring for NCCL_ALGO=RING; nvls on one NVSwitch node or two; "
                 "collnet_chain or collnet_direct for NCCL_ALGO=COLLNETCHAIN or COLLNETDIRECT with SHARP)")
      ->capture_default_str();
  cmd.add_option("--proto", r.protocol, "Protocol instead of NCCL's choice: LL, LL128, Simple")->capture_default_str();
  cmd.add_option("--max-ops", r.max_ops,
                 "GOAL ops per simulated size; chunks grow to stay below (a ring that cannot runs as a smaller ring "
                 "of whole nodes with the same bytes per round, its time scaled by the rounds)")
      ->capture_default_str()
      ->check(whole_number(UINT64_MAX, 1));
  cmd.add_option("--max-packets", r.max_packets, "Packets per simulated size; larger sizes are extrapolated")
      ->capture_default_str()
      ->check(whole_number(UINT64_MAX, 1));
}

void check_run_choice_options(const validation::ValidationRequest& r) {
  if (!collectives::protocol_from_name(r.protocol))
    throw CLI::ValidationError("--proto", "LL, LL128, Simple or auto, not '" + r.protocol + "'");
}

validation::SystemPreset system_of_option(const std::string& name_or_path) {
  return with_option_errors([&] { return validation::system_of_option(name_or_path); });
}

std::string apply_calibration(const validation::Calibration& c, const std::string& path, validation::ValidationRequest& r) {
  r.parameters = c.parameters;
  if (r.system.empty()) {
    r.system = c.system;
    r.system_source = "from " + path;
  }
  if (r.system != c.system) return "note: " + path + " was fitted for " + c.system + ", not " + r.system + "\n";
  return "";
}

}  // namespace collsim::cli
