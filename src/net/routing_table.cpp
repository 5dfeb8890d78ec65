#include "collsim/net/routing_table.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace collsim::net {

namespace {
constexpr std::uint16_t kUnreachable = 0xFFFF;
constexpr std::uint32_t kNotOwned = 0xFFFFFFFFu;
}  // namespace

RoutingTable::RoutingTable(const topo::Topology& t, const std::vector<bool>& owned, const std::vector<bool>* link_down) {
  const auto n = static_cast<std::uint32_t>(t.nodes().size());
  const auto up = [link_down](const topo::Port& p) { return !link_down || !(*link_down)[p.link]; };
  // Hosts with the same neighbours are one attachment group.
  std::map<std::vector<topo::NodeId>, std::uint32_t> group_ids;
  std::vector<std::vector<topo::NodeId>> group_attachments;
  group_of_host_.resize(t.num_hosts());
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h) {
    std::vector<topo::NodeId> neighbours;
    for (const auto& p : t.ports(t.host(h)))
      if (up(p)) neighbours.push_back(p.peer);
    std::sort(neighbours.begin(), neighbours.end());
    neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
    const auto [it, inserted] = group_ids.emplace(neighbours, static_cast<std::uint32_t>(group_attachments.size()));
    if (inserted) group_attachments.push_back(neighbours);
    group_of_host_[h] = it->second;
  }
  groups_ = static_cast<std::uint32_t>(group_attachments.size());

  row_of_node_.assign(n, kNotOwned);
  std::uint32_t rows = 0;
  for (topo::NodeId v = 0; v < n; ++v) {
    if (!owned[v]) continue;
    row_of_node_[v] = rows++;
    direct_begin_.push_back(static_cast<std::uint32_t>(direct_host_.size()));
    std::vector<std::pair<HostIndex, topo::PortIndex>> direct;
    const auto& ports = t.ports(v);
    for (std::size_t i = 0; i < ports.size(); ++i)
      if (up(ports[i]) && t.node(ports[i].peer).kind == topo::NodeKind::Host)
        direct.emplace_back(t.node(ports[i].peer).index, static_cast<topo::PortIndex>(i));
    std::sort(direct.begin(), direct.end());
    for (const auto& [host, port] : direct) {
      direct_host_.push_back(host);
      direct_port_.push_back(port);
    }
  }
  direct_begin_.push_back(static_cast<std::uint32_t>(direct_host_.size()));
  sole_row_.assign(t.num_hosts(), kNotOwned);
  sole_port_.assign(t.num_hosts(), 0);
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h) {
    const auto& ports = t.ports(t.host(h));
    if (ports.size() != 1 || !up(ports[0])) continue;
    sole_row_[h] = row_of_node_[ports[0].peer];
    sole_port_[h] = ports[0].peer_port;
  }
  entries_.resize(std::size_t{rows} * groups_);

  // Per group: breadth-first search outward from the group's attachment nodes through
  // non-host nodes; dist[v] is then the number of links from v to any host of the group.
  std::vector<std::uint16_t> dist(n);
  std::vector<topo::NodeId> frontier, next;
  for (std::uint32_t g = 0; g < groups_; ++g) {
    std::fill(dist.begin(), dist.end(), kUnreachable);
    frontier.clear();
    for (topo::NodeId a : group_attachments[g]) {
      // An attachment that is itself a host (two hosts joined directly) still ends a path.
      dist[a] = 1;
      if (t.node(a).kind != topo::NodeKind::Host) frontier.push_back(a);
    }
    for (std::uint16_t d = 1; !frontier.empty(); ++d) {
      next.clear();
      for (topo::NodeId v : frontier)
        for (const auto& p : t.ports(v))
          if (up(p) && dist[p.peer] == kUnreachable) {
            dist[p.peer] = static_cast<std::uint16_t>(d + 1);
            if (t.node(p.peer).kind != topo::NodeKind::Host) next.push_back(p.peer);
          }
      frontier.swap(next);
    }
    for (topo::NodeId v = 0; v < n; ++v) {
      if (row_of_node_[v] == kNotOwned) continue;
      Entry& e = entries_[std::size_t{row_of_node_[v]} * groups_ + g];
      e.begin = static_cast<std::uint32_t>(ports_.size());
      e.count = 0;
      e.distance = dist[v];
      if (dist[v] == kUnreachable) continue;
      const auto& ports = t.ports(v);
      for (std::size_t i = 0; i < ports.size(); ++i) {
        const topo::NodeId peer = ports[i].peer;
        // Toward a switch one step closer; the final hop to the host itself is resolved per
        // host in next_ports(), since the group's hosts are different nodes.
        const bool closer_switch =
            up(ports[i]) && t.node(peer).kind != topo::NodeKind::Host && dist[peer] + 1 == dist[v];
        if (closer_switch) {
          ports_.push_back(static_cast<topo::PortIndex>(i));
          ++e.count;
        }
      }
    }
  }
}

std::span<const topo::PortIndex> RoutingTable::next_ports(topo::NodeId node, HostIndex dst) const {
  const std::uint32_t row = row_of_node_[node];
  if (row == kNotOwned) throw std::logic_error("routing at a node this rank does not own");
  const Entry& e = entries_[std::size_t{row} * groups_ + group_of_host_[dst]];
  if (e.distance != 1) return {ports_.data() + e.begin, e.count};
  if (sole_row_[dst] == row) return {&sole_port_[dst], 1};
  // The hosts of a group share their neighbours, so a node one link from the group is
  // adjacent to dst itself: its port(s) to dst.
  const auto first = direct_host_.begin() + direct_begin_[row];
  const auto last = direct_host_.begin() + direct_begin_[row + 1];
  const auto [lo, hi] = std::equal_range(first, last, dst);
  return {direct_port_.data() + (lo - direct_host_.begin()), static_cast<std::size_t>(hi - lo)};
}

std::uint32_t RoutingTable::distance(topo::NodeId node, HostIndex dst) const {
  return entries_[std::size_t{row_of_node_[node]} * groups_ + group_of_host_[dst]].distance;
}

}  // namespace collsim::net
