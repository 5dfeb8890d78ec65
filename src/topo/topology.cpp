#include "collsim/topo/topology.hpp"

#include <stdexcept>

namespace collsim::topo {

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::Host: return "host";
    case NodeKind::Switch: return "switch";
    case NodeKind::NvSwitch: return "nvswitch";
  }
  return "unknown";
}

NodeId Topology::add_node(std::string name, NodeKind kind, SwitchParams params, std::uint32_t server) {
  const auto id = static_cast<NodeId>(nodes_.size());
  if (!by_name_.emplace(name, id).second) throw std::invalid_argument("node '" + name + "' is defined twice");
  Node n;
  n.name = std::move(name);
  n.kind = kind;
  n.params = params;
  if (kind == NodeKind::Host) {
    n.index = static_cast<std::uint32_t>(hosts_.size());
    n.server = server;
    hosts_.push_back(id);
  } else {
    n.index = switches_++;
  }
  nodes_.push_back(std::move(n));
  ports_.emplace_back();
  return id;
}

LinkId Topology::add_link(NodeId a, NodeId b, Bandwidth bandwidth, SimTime latency, LinkMedium medium) {
  if (a >= nodes_.size() || b >= nodes_.size()) throw std::invalid_argument("link to a node that does not exist");
  if (a == b) throw std::invalid_argument("link from node '" + nodes_[a].name + "' to itself");
  if (bandwidth.bps() <= 0)
    throw std::invalid_argument("link " + nodes_[a].name + " - " + nodes_[b].name + " has no bandwidth");
  if (latency < SimTime::zero())
    throw std::invalid_argument("link " + nodes_[a].name + " - " + nodes_[b].name + " has a negative latency");
  for (NodeId n : {a, b})
    if (ports_[n].size() >= 0xFFFF) throw std::invalid_argument("node '" + nodes_[n].name + "' has too many ports");
  const auto id = static_cast<LinkId>(links_.size());
  const auto port_a = static_cast<PortIndex>(ports_[a].size());
  const auto port_b = static_cast<PortIndex>(ports_[b].size());
  links_.push_back({a, b, port_a, port_b, bandwidth, latency, medium});
  ports_[a].push_back({id, b, port_b});
  ports_[b].push_back({id, a, port_a});
  return id;
}

std::uint32_t Topology::hosts_per_server() const {
  if (hosts_.empty()) return 0;
  const std::uint32_t server = nodes_[hosts_.front()].server;
  std::uint32_t n = 0;
  for (NodeId h : hosts_) n += nodes_[h].server == server ? 1 : 0;
  return n;
}

std::optional<NodeId> Topology::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

}  // namespace collsim::topo
