#pragma once
// The options that describe one collective (`collsim gen`, and `collsim run --coll`).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "collsim/collectives/spec.hpp"

namespace collsim::cli {

struct CollectiveCliOptions {
  std::string collective;
  std::string algorithm = "auto";
  std::uint32_t ranks = 0;
  std::vector<std::uint32_t> group;
  std::string bytes;
  std::uint32_t channels = 1;
  std::string chunk;
  std::uint32_t in_flight = 0;
  std::string protocol = "auto";
  std::uint32_t root = 0;
  std::uint32_t ranks_per_node = 1;
  std::uint32_t nics = 1;
  std::uint32_t tag = 0;
  std::string reduce_bw = "200GB/s";
  std::int64_t launch_ns = -1;
  std::int64_t step_ns = -1;
  std::int64_t network_step_ns = -1;
  std::uint32_t steps_per_network_message = 1;
  std::string arch = "ampere";
  double intra_gbps = 20.0;
  double inter_gbps = 12.0;

  // `collective_option`: the name of the option that names the collective ("COLL" for a
  // positional, "--coll").
  void add_to(CLI::App& cmd, const std::string& collective_option);
  // Throws CLI::ValidationError naming the option at fault.
  collectives::Plan plan() const;

 private:
  std::string collective_option_ = "COLL";
};

}  // namespace collsim::cli
