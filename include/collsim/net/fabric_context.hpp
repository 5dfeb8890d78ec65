#pragma once
// What every device of one rank shares: the network, the parameters, the next-hop table.

#include <vector>

#include "collsim/net/link_change.hpp"
#include "collsim/net/link_fault.hpp"
#include "collsim/net/fabric_params.hpp"
#include "collsim/net/routing_table.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net {

class PortChooser;
struct FlowDomains;
struct SealedIslands;

struct FabricContext {
  const topo::Topology& topology;
  const FabricParams& params;
  const RoutingTable& routing;
  const PortChooser& chooser;
  // Which links the flow model carries, and the LP (a switch's node id) running each domain.
  const FlowDomains* domains = nullptr;
  // Links whose speed changes during the run (see LinkChange); not owned.
  const std::vector<LinkChange>* link_changes = nullptr;
  // Links that fail during the run (see LinkFault), and the routes of each of its routing
  // epochs (routes[0] is `routing` and `chooser`); not owned. Null: nothing fails.
  const FaultSchedule* faults = nullptr;
  struct Routes {
    const RoutingTable* table;
    const PortChooser* chooser;
    const Reachability* reach;
  };
  const std::vector<Routes>* routes = nullptr;
  // What stays inside this rank (a parallel run's promises); not owned. Null: nothing does.
  const SealedIslands* sealed = nullptr;
};

// A well-mixed hash of a few values: ECMP port choice, spraying, ECN sampling.
constexpr std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 31);
}

}  // namespace collsim::net
