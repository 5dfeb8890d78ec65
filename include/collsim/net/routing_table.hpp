#pragma once
// Shortest-path next hops for the nodes one rank owns.
//
// Hosts never forward: a path may start or end at a host but not pass through one (a GPU
// does not relay another GPU's packets). Hosts with the same set of neighbours (the hosts
// of one leaf switch) share one column of the table, so the table is
// (owned nodes) x (distinct host attachments), not x (hosts).
//
// On a rail-optimised cluster every GPU has neighbours of its own (its server's NVSwitch and
// its rail's leaf), so that table would be nodes x GPUs: 311 M entries, and a breadth-first
// search per GPU, for the 16,384 GPUs of h100_rail_2048. So the searches start from each
// switch that hosts attach to instead (2,560 there; as many as the columns on a fat tree).
// A table of up to kWholeTable entries (64 MB) is filled from them at once; a larger one an
// entry at a time, the first time it is asked for: a run asks for the pairs its traffic
// takes, far fewer than all.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "collsim/net/packet.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net {

class RoutingTable {
 public:
  // Entries of a table filled at once, at most.
  static constexpr std::uint64_t kWholeTable = 1u << 22;

  // `owned[n]` tells whether this rank routes at node n; links marked in `link_down` (by
  // link, see LinkFault) are left out. A table of more than `whole_table` entries is filled
  // on demand.
  RoutingTable(const topo::Topology& topology, const std::vector<bool>& owned,
               const std::vector<bool>* link_down = nullptr, std::uint64_t whole_table = kWholeTable);
  ~RoutingTable();

  // Ports of `node` that lie on a shortest path to host `dst` (never empty when dst is
  // reachable and node != dst's own node; empty when it is not reachable). The span stays
  // valid as long as the table.
  // Inline: every packet at every switch asks, and a call costs as much as the lookup.
  std::span<const topo::PortIndex> next_ports(topo::NodeId node, HostIndex dst) const {
    const std::uint32_t row = row_of_node_[node];
    if (row == kNotOwned) not_owned(node);
    const Entry e = entry(row, group_of_host_[dst]);
    if (e.distance != 1) {
      if (e.count == 0) return {};
      return {ports_of(e), e.count};
    }
    if (sole_row_[dst] == row) return {&sole_port_[dst], 1};
    return direct_ports(row, dst);
  }
  // Links on a shortest path from `node` to host `dst`.
  std::uint32_t distance(topo::NodeId node, HostIndex dst) const;

 private:
  static constexpr std::uint32_t kNotOwned = 0xFFFFFFFFu;
  [[noreturn]] static void not_owned(topo::NodeId node);
  // A node one link from dst's group: its port(s) to dst itself.
  std::span<const topo::PortIndex> direct_ports(std::uint32_t row, HostIndex dst) const;
  // 8 bytes, so that a switch's row of a large table stays in fewer cache lines: its ports
  // are the `count` from `first` on, a position in port_chunks_ (chunk, then offset).
  struct Entry {
    std::uint32_t first;
    std::uint16_t count;
    std::uint16_t distance;  // 0 until worked out (a path has at least one link)
  };
  const topo::PortIndex* ports_of(const Entry& e) const {
    return port_chunks_[e.first >> kChunkBits].get() + (e.first & ((std::uint32_t{1} << kChunkBits) - 1));
  }
  Entry entry(std::uint32_t row, std::uint32_t group) const {
    const std::uint64_t i = std::uint64_t{row} * groups_ + group;
    return whole_.empty() ? entry_on_demand(i, row, group) : whole_[i];
  }
  Entry entry_on_demand(std::uint64_t i, std::uint32_t row, std::uint32_t group) const;
  // The entry, its ports stored in port_chunks_.
  Entry work_out(std::uint32_t row, std::uint32_t group) const;
  // Links from node v to the nearest host of `group`, or kUnreachable.
  std::uint32_t group_distance(topo::NodeId v, std::uint32_t group) const;

  std::uint32_t nodes_ = 0;
  // Each node's ports: the peer, and whether a path may go on through it (link up, peer not
  // a host).
  std::vector<std::uint32_t> port_begin_;  // per node, and one past the last
  std::vector<topo::NodeId> port_peer_;
  std::vector<std::uint8_t> port_onward_;

  std::vector<std::uint32_t> group_of_host_;  // host -> attachment group
  std::uint32_t groups_ = 0;
  // A group's attachments: a switch's number among the searched ones, or a host itself
  // (with kHostAttachment set) when two hosts are joined directly.
  std::vector<std::uint32_t> attachment_begin_;  // per group, and one past the last
  std::vector<std::uint32_t> attachments_;
  // Links from each searched switch k to each node v through switches: hops_[k * nodes_ + v].
  std::vector<std::uint16_t> hops_;

  std::vector<std::uint32_t> row_of_node_;  // node -> row, or ~0 if not owned
  std::vector<topo::NodeId> node_of_row_;

  // Entries by row * groups_ + group: all of them, or in pages made on first use (page 0:
  // none yet).
  std::vector<Entry> whole_;
  static constexpr unsigned kPageBits = 6;
  mutable std::vector<std::uint32_t> page_of_;
  mutable std::vector<Entry> pages_;
  // The entries' ports, in chunks that never move (what next_ports returns points into them).
  static constexpr unsigned kChunkBits = 16;
  static constexpr std::size_t kChunkPorts = std::size_t{1} << kChunkBits;
  mutable std::vector<std::unique_ptr<topo::PortIndex[]>> port_chunks_;
  mutable std::size_t ports_used_ = 0;  // in the last chunk
  mutable std::vector<topo::PortIndex> closer_;  // work_out's scratch
  // Each distinct list of ports, stored once, by its contents (a port is an index into the
  // asking node's ports, so nodes of one shape share their lists): a fat tree's rows then
  // name a handful of lists that stay in cache, where a list per entry missed on every hop.
  mutable std::map<std::vector<topo::PortIndex>, std::uint32_t> stored_lists_;

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
