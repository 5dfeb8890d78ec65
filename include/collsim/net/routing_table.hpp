#pragma once
// Shortest-path next hops, computed once from the topology for the nodes one rank owns.
//
// Hosts never forward: a path may start or end at a host but not pass through one (a GPU
// does not relay another GPU's packets). Hosts with the same set of neighbours (the hosts
// of one leaf switch) share one column of the table, so the table is
// (owned nodes) x (distinct host attachments), not x (hosts).

#include <cstdint>
#include <span>
#include <vector>

#include "collsim/net/packet.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net {

class RoutingTable {
 public:
  // `owned[n]` tells whether this rank routes at node n; links marked in `link_down` (by
  // link, see LinkFault) are left out.
  RoutingTable(const topo::Topology& topology, const std::vector<bool>& owned,
               const std::vector<bool>* link_down = nullptr);

  // Ports of `node` that lie on a shortest path to host `dst` (never empty when dst is
  // reachable and node != dst's own node; empty when it is not reachable).
  std::span<const topo::PortIndex> next_ports(topo::NodeId node, HostIndex dst) const;
  // Links on a shortest path from `node` to host `dst`.
  std::uint32_t distance(topo::NodeId node, HostIndex dst) const;

 private:
  struct Entry {
    std::uint32_t begin;  // into ports_
    std::uint16_t count;
    std::uint16_t distance;
  };
  std::vector<std::uint32_t> group_of_host_;  // host -> attachment group
  std::vector<std::uint32_t> row_of_node_;    // node -> row in entries_, or ~0 if not owned
  std::uint32_t groups_ = 0;
  std::vector<Entry> entries_;                // row * groups_ + group
  std::vector<topo::PortIndex> ports_;
  // Ports of each owned node that lead straight to a host: row -> [begin, end) of two
  // parallel arrays sorted by host.
  std::vector<std::uint32_t> direct_begin_;
  std::vector<HostIndex> direct_host_;
  std::vector<topo::PortIndex> direct_port_;
  // A host with one port: the row of the node it hangs on (~0 if not owned) and that node's
  // port to it, so that the last hop needs no search.
  std::vector<std::uint32_t> sole_row_;
  std::vector<topo::PortIndex> sole_port_;
};

}  // namespace collsim::net
