#pragma once
// Options every fabric-simulating command shares: parameters from a file and --set, and the
// kernel's partitioning and queue.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "collsim/net/fabric.hpp"
#include "collsim/net/fabric_params.hpp"

namespace collsim::cli {

struct FabricCliOptions {
  std::string params_file;
  std::vector<std::string> set;  // name=value
  std::string cc;
  std::string routing;
  bool lossy = false;
  std::string partition = "metis";
  std::string queue = "wheel";
  std::string end;
  std::uint64_t seed = 1;
  std::vector<std::string> link_speed;  // NODE_A:NODE_B@TIME=BANDWIDTH
  std::vector<std::string> link_down;   // NODE_A:NODE_B@TIME[..TIME2]
  std::vector<std::string> switch_down; // SWITCH@TIME[..TIME2]
  std::string reconvergence;

  void add_to(CLI::App& cmd);
  // The parameters (defaults, then the file, then the flags, then --set) and run options.
  // `base`: the values before --params and --set (the trains of --fast-forward steady or
  // contended); its seed is --seed's.
  net::FabricParams params(net::FabricParams base = {}) const;
  net::FabricOptions options() const;
  // --link-speed on `topology`; CLI::ValidationError naming what is wrong.
  std::vector<net::LinkChange> link_changes(const topo::Topology& topology) const;
  // --link-down and --switch-down on `topology`; CLI::ValidationError naming what is wrong.
  std::vector<net::LinkFault> link_faults(const topo::Topology& topology) const;
  bool any_fault() const { return !link_down.empty() || !switch_down.empty(); }
  // The first of these options given, for a model without a fabric (LogGOPS): "" if none.
  std::string first_given() const;
};

}  // namespace collsim::cli
