#pragma once
// The parts of a fabric whose traffic a rank of a parallel run can tell stays at home: an
// island of switches (joined by switch-to-switch links) whose switches and hosts this rank all
// owns, such as the NVSwitch of a server it holds whole, or a flow domain whose home and hosts
// it owns. A packet in such an island goes from one of the rank's hosts to another, so what it
// leads to (its delivery, its ACK, the ops it completes) happens on the rank; only through
// those hosts' schedules can it lead anywhere else. The devices read these facts when the
// kernel asks for their promises (pdes::LogicalProcess::output_bound).

#include <cstdint>
#include <vector>

#include "collsim/net/fidelity.hpp"
#include "collsim/pdes/partition.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net {

struct SealedIslands {
  std::vector<bool> node;    // by node: a switch of a sealed island (false for hosts)
  std::vector<bool> domain;  // by flow domain: sealed

  // Whether what arrives at, or leaves, a node's port over `link` stays inside a sealed
  // island: the link leads to a sealed switch or belongs to a sealed flow domain.
  bool link_sealed(const topo::Topology& t, const FlowDomains& domains, topo::LinkId link, topo::NodeId from) const;
  // The hosts of the island or flow domain that `link` leads into from `from` (`from` among
  // them if it is a host of it).
  std::vector<topo::NodeId> hosts_behind(const topo::Topology& t, const FlowDomains& domains, topo::LinkId link,
                                         topo::NodeId from) const;
};

// On one rank, or when nothing is partitioned, every island is sealed.
SealedIslands sealed_islands(const topo::Topology& topology, const FlowDomains& domains, const pdes::Partition& partition);

}  // namespace collsim::net
