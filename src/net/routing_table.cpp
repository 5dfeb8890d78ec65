#include "collsim/net/routing_table.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace collsim::net {

namespace {
constexpr std::uint16_t kUnreachable = 0xFFFF;
constexpr std::uint32_t kNotSearched = 0xFFFFFFFFu;
constexpr std::uint32_t kHostAttachment = 0x80000000u;
}  // namespace

RoutingTable::~RoutingTable() = default;

RoutingTable::RoutingTable(const topo::Topology& t, const std::vector<bool>& owned, const std::vector<bool>* link_down,
                           std::uint64_t whole_table)
    : nodes_(static_cast<std::uint32_t>(t.nodes().size())) {
  const std::uint32_t n = nodes_;
  const auto up = [link_down](const topo::Port& p) { return !link_down || !(*link_down)[p.link]; };
  const auto is_host = [&t](topo::NodeId v) { return t.node(v).kind == topo::NodeKind::Host; };

  port_begin_.reserve(std::size_t{n} + 1);
  for (topo::NodeId v = 0; v < n; ++v) {
    port_begin_.push_back(static_cast<std::uint32_t>(port_peer_.size()));
    for (const auto& p : t.ports(v)) {
      port_peer_.push_back(p.peer);
      port_onward_.push_back(up(p) && !is_host(p.peer) ? 1 : 0);
    }
  }
  port_begin_.push_back(static_cast<std::uint32_t>(port_peer_.size()));

  // Hosts with the same neighbours are one attachment group.
  std::map<std::vector<topo::NodeId>, std::uint32_t> group_ids;
  std::vector<topo::NodeId> searched;               // the switches hosts attach to, by number
  std::vector<std::uint32_t> number(n, kNotSearched);  // node -> its number among them
  group_of_host_.resize(t.num_hosts());
  attachment_begin_.push_back(0);
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h) {
    std::vector<topo::NodeId> neighbours;
    for (const auto& p : t.ports(t.host(h)))
      if (up(p)) neighbours.push_back(p.peer);
    std::sort(neighbours.begin(), neighbours.end());
    neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
    const auto [it, inserted] = group_ids.emplace(neighbours, static_cast<std::uint32_t>(group_ids.size()));
    group_of_host_[h] = it->second;
    if (!inserted) continue;
    for (const topo::NodeId a : neighbours) {
      // An attachment that is itself a host (two hosts joined directly) ends a path there.
      if (is_host(a)) {
        attachments_.push_back(kHostAttachment | a);
        continue;
      }
      if (number[a] == kNotSearched) {
        number[a] = static_cast<std::uint32_t>(searched.size());
        searched.push_back(a);
      }
      attachments_.push_back(number[a]);
    }
    attachment_begin_.push_back(static_cast<std::uint32_t>(attachments_.size()));
  }
  groups_ = static_cast<std::uint32_t>(group_ids.size());

  // From each switch that hosts attach to, breadth-first through switches only: the links
  // to every node (a host is reached but not passed through).
  hops_.assign(searched.size() * n, kUnreachable);
  std::vector<topo::NodeId> frontier, next;
  for (std::size_t k = 0; k < searched.size(); ++k) {
    std::uint16_t* hops = hops_.data() + k * n;
    hops[searched[k]] = 0;
    frontier.assign(1, searched[k]);
    for (std::uint16_t d = 0; !frontier.empty(); ++d) {
      next.clear();
      for (const topo::NodeId v : frontier)
        for (const auto& p : t.ports(v))
          if (up(p) && hops[p.peer] == kUnreachable) {
            hops[p.peer] = static_cast<std::uint16_t>(d + 1);
            if (!is_host(p.peer)) next.push_back(p.peer);
          }
      frontier.swap(next);
    }
  }

  row_of_node_.assign(n, kNotOwned);
  for (topo::NodeId v = 0; v < n; ++v) {
    if (!owned[v]) continue;
    row_of_node_[v] = static_cast<std::uint32_t>(node_of_row_.size());
    node_of_row_.push_back(v);
    direct_begin_.push_back(static_cast<std::uint32_t>(direct_host_.size()));
    std::vector<std::pair<HostIndex, topo::PortIndex>> direct;
    const auto& ports = t.ports(v);
    for (std::size_t i = 0; i < ports.size(); ++i)
      if (up(ports[i]) && is_host(ports[i].peer)) direct.emplace_back(t.node(ports[i].peer).index, static_cast<topo::PortIndex>(i));
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
  const std::uint64_t entries = std::uint64_t{node_of_row_.size()} * groups_;
  if (entries <= whole_table) {
    whole_.reserve(entries);
    for (std::uint32_t row = 0; row < node_of_row_.size(); ++row)
      for (std::uint32_t g = 0; g < groups_; ++g) whole_.push_back(work_out(row, g));
    return;
  }
  page_of_.assign((entries >> kPageBits) + 1, 0);
  pages_.resize(std::size_t{1} << kPageBits);  // page 0 stands for "none yet"
}

std::uint32_t RoutingTable::group_distance(topo::NodeId v, std::uint32_t group) const {
  std::uint32_t best = kUnreachable;
  for (std::uint32_t k = attachment_begin_[group]; k < attachment_begin_[group + 1]; ++k) {
    const std::uint32_t a = attachments_[k];
    if (a & kHostAttachment) {
      if ((a & ~kHostAttachment) == v) best = 1;
      continue;
    }
    const std::uint16_t hops = hops_[std::size_t{a} * nodes_ + v];
    if (hops != kUnreachable) best = std::min<std::uint32_t>(best, hops + 1u);
  }
  return best;
}

RoutingTable::Entry RoutingTable::work_out(std::uint32_t row, std::uint32_t group) const {
  const topo::NodeId v = node_of_row_[row];
  const std::uint32_t d = group_distance(v, group);
  Entry e{0, 0, static_cast<std::uint16_t>(d)};
  if (d == kUnreachable) return e;
  // Toward a switch one step closer; the final hop to the host itself is resolved per host
  // in next_ports(), since the group's hosts are different nodes.
  closer_.clear();
  for (std::uint32_t i = port_begin_[v]; i < port_begin_[v + 1]; ++i)
    if (port_onward_[i] && group_distance(port_peer_[i], group) + 1 == d)
      closer_.push_back(static_cast<topo::PortIndex>(i - port_begin_[v]));
  if (closer_.empty()) return e;
  e.count = static_cast<std::uint16_t>(closer_.size());
  if (const auto known = stored_lists_.find(closer_); known != stored_lists_.end()) {
    e.first = known->second;
    return e;
  }
  if (port_chunks_.empty() || ports_used_ + closer_.size() > kChunkPorts) {
    port_chunks_.push_back(std::make_unique<topo::PortIndex[]>(kChunkPorts));
    ports_used_ = 0;
  }
  e.first = static_cast<std::uint32_t>(((port_chunks_.size() - 1) << kChunkBits) | ports_used_);
  std::copy(closer_.begin(), closer_.end(), port_chunks_.back().get() + ports_used_);
  ports_used_ += closer_.size();
  stored_lists_.emplace(closer_, e.first);
  return e;
}

RoutingTable::Entry RoutingTable::entry_on_demand(std::uint64_t i, std::uint32_t row, std::uint32_t group) const {
  std::uint32_t& page = page_of_[i >> kPageBits];
  if (page == 0) {
    page = static_cast<std::uint32_t>(pages_.size() >> kPageBits);
    pages_.resize(pages_.size() + (std::size_t{1} << kPageBits));
  }
  Entry& e = pages_[(std::size_t{page} << kPageBits) | (i & ((1u << kPageBits) - 1))];
  if (e.distance == 0) e = work_out(row, group);
  return e;
}

void RoutingTable::not_owned(topo::NodeId node) {
  throw std::logic_error("routing at node " + std::to_string(node) + ", which this rank does not own");
}

std::span<const topo::PortIndex> RoutingTable::direct_ports(std::uint32_t row, HostIndex dst) const {
  // The hosts of a group share their neighbours, so a node one link from the group is
  // adjacent to dst itself.
  const auto first = direct_host_.begin() + direct_begin_[row];
  const auto last = direct_host_.begin() + direct_begin_[row + 1];
  const auto [lo, hi] = std::equal_range(first, last, dst);
  return {direct_port_.data() + (lo - direct_host_.begin()), static_cast<std::size_t>(hi - lo)};
}

std::uint32_t RoutingTable::distance(topo::NodeId node, HostIndex dst) const {
  const std::uint32_t row = row_of_node_[node];
  if (row == kNotOwned) not_owned(node);
  return entry(row, group_of_host_[dst]).distance;
}

}  // namespace collsim::net
