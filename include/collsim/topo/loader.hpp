#pragma once
// Reading topology files (YAML; the schema is in the README, "Topology files") and the checks
// every topology must pass.

#include <cstdint>
#include <optional>
#include <string>

#include "collsim/topo/topology.hpp"

namespace collsim::topo {

// Reads, builds and validates a topology file. Every problem is a collsim::InputError with
// the file, line and column and what was expected there.
Topology load_topology(const std::string& path);

// The same from YAML text; `file_name` is used in error messages and, without its directory
// and extension, as the default topology name.
Topology parse_topology(const std::string& yaml_text, const std::string& file_name);

// What makes a topology unusable, found by check_topology().
struct TopologyProblem {
  enum class Kind : std::uint8_t {
    TooFewHosts,       // fewer than 2 hosts
    HostWithoutLink,   // `node` is a host with no link
    DisconnectedHosts  // hosts `node` and `other` cannot reach each other
  };
  Kind kind;
  NodeId node = 0;
  NodeId other = 0;
  std::string message;
};

// Checks that the topology has at least 2 hosts, that every host has a link and that every
// host can reach every other host. Paths never pass through a host: hosts only send and
// receive (a GPU does not forward other GPUs' packets). Returns the first problem found
// (hosts in rank order), or nothing. Linear in the size of the topology in the usual case (a
// group of switches that every host is attached to).
std::optional<TopologyProblem> check_topology(const Topology& topology);

}  // namespace collsim::topo
