#include "collsim/net/port_chooser.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::net {

namespace {
constexpr std::uint16_t kFar = 0xFFFF;
}

PortChooser::PortChooser(const topo::Topology& t, const FabricParams& params, const RoutingTable& table)
    : topology_(t),
      params_(params),
      table_(table),
      hashes_(params.routing == RoutingMode::Ecmp || params.routing == RoutingMode::Spray ||
              params.routing == RoutingMode::Minimal) {
  attached_switch_.resize(t.num_hosts());
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h) {
    const auto& ports = t.ports(t.host(h));
    attached_switch_[h] = ports.empty() ? t.host(h) : ports.front().peer;
  }
  switch_count_ = t.num_switches();
  switch_node_.resize(switch_count_);
  for (topo::NodeId v = 0; v < t.nodes().size(); ++v)
    if (t.node(v).kind != topo::NodeKind::Host) switch_node_[t.node(v).index] = v;
  if (params.routing == RoutingMode::DimensionOrder && !t.torus())
    throw std::invalid_argument("dimension-order routing needs a torus topology (kind: torus), '" + t.name() + "' is " + t.kind());
  if ((params.routing == RoutingMode::Valiant || params.routing == RoutingMode::Ugal) && !t.dragonfly())
    throw std::invalid_argument(std::string(to_string(params.routing)) + " routing needs a dragonfly topology (kind: dragonfly), '" +
                                t.name() + "' is " + t.kind());
  if (t.dragonfly() && (params.routing == RoutingMode::Valiant || params.routing == RoutingMode::Ugal)) {
    // A packet names its intermediate router in 16 bits.
    if (switch_count_ >= 0xFFFFu)
      throw std::invalid_argument(std::string(to_string(params.routing)) + " routing handles at most 65534 routers; '" +
                                  t.name() + "' has " + std::to_string(switch_count_));
    // Hop counts between every pair of switches, by breadth-first search from each.
    const std::uint32_t n = switch_count_;
    const auto& node_of = switch_node_;
    router_distance_.assign(std::size_t{n} * n, kFar);
    std::vector<std::uint32_t> frontier, next;
    for (std::uint32_t s = 0; s < n; ++s) {
      std::uint16_t* row = &router_distance_[std::size_t{s} * n];
      row[s] = 0;
      frontier.assign(1, s);
      for (std::uint16_t d = 1; !frontier.empty(); ++d) {
        next.clear();
        for (std::uint32_t u : frontier)
          for (const auto& p : t.ports(node_of[u])) {
            const topo::Node& peer = t.node(p.peer);
            if (peer.kind == topo::NodeKind::Host || row[peer.index] != kFar) continue;
            row[peer.index] = d;
            next.push_back(peer.index);
          }
        frontier.swap(next);
      }
    }
  }
}

void PortChooser::no_route(topo::NodeId node, const Packet& p) const {
  throw std::runtime_error("switch " + topology_.node(node).name + " has no route to host " + std::to_string(p.dst) +
                           " (a packet from host " + std::to_string(p.src) + " reached a switch off every path to it)");
}

std::uint16_t PortChooser::hashed(topo::NodeId node, const Packet& p, std::span<const topo::PortIndex> c) const {
  if (c.size() == 1) return c[0];
  if (c.empty()) no_route(node, p);
  const std::uint64_t h = mix(mix(mix(mix(params_.seed, node), p.src), p.dst), p.entropy);
  return c[h % c.size()];
}

std::uint16_t PortChooser::least_queued(topo::NodeId node, const Packet& p, std::span<const topo::PortIndex> c,
                                        const std::vector<OutputPort>& ports) const {
  if (c.size() == 1) return c[0];
  if (c.empty()) no_route(node, p);
  const std::uint64_t h = mix(mix(mix(mix(params_.seed, node), p.src), p.dst), p.entropy);
  const std::size_t first = h % c.size();
  // Fewest queued bytes of the packet's class; ties go to the hashed choice, then onward.
  std::size_t best = first;
  for (std::size_t k = 1; k < c.size(); ++k) {
    const std::size_t i = (first + k) % c.size();
    if (ports[c[i]].class_bytes(p.priority) < ports[c[best]].class_bytes(p.priority)) best = i;
  }
  return c[best];
}

std::uint16_t PortChooser::choose_otherwise(topo::NodeId node, Packet& p, const std::vector<OutputPort>& ports,
                                            pdes::RandomStream& random) const {
  switch (params_.routing) {
    case RoutingMode::Adaptive: return least_queued(node, p, table_.next_ports(node, p.dst), ports);
    case RoutingMode::DimensionOrder: return dimension_order(node, p);
    case RoutingMode::Valiant:
    case RoutingMode::Ugal: return dragonfly(node, p, ports, random);
    case RoutingMode::Rail: return rail(node, p);
    case RoutingMode::Ecmp:
    case RoutingMode::Spray:
    case RoutingMode::Minimal: break;
  }
  return hashed(node, p, table_.next_ports(node, p.dst));
}

std::uint16_t PortChooser::choose_for_flow(topo::NodeId node, HostIndex src, HostIndex dst,
                                           std::uint32_t entropy) const {
  Packet p;
  p.src = src;
  p.dst = dst;
  p.entropy = entropy;
  switch (params_.routing) {
    case RoutingMode::DimensionOrder: return dimension_order(node, p);
    case RoutingMode::Rail: {
      // The packet model's hop count at `node`: 1 at the source's own switch.
      const auto& ports = topology_.ports(topology_.host(src));
      p.hops = std::any_of(ports.begin(), ports.end(), [node](const topo::Port& q) { return q.peer == node; }) ? 1 : 2;
      return rail(node, p);
    }
    default: return hashed(node, p, table_.next_ports(node, dst));
  }
}

std::uint16_t PortChooser::rail(topo::NodeId node, const Packet& p) const {
  const auto c = table_.next_ports(node, p.dst);
  if (c.empty()) no_route(node, p);
  // The NIC index picks the neighbour where the neighbours are NICs or rails: at the first
  // switch of a source with one port (a GPU whose NICs hang off its server's switch), and next
  // to the destination's switches (the destination's rail). The candidates come in runs of
  // parallel links to one neighbour (as the generators lay them out); the hash picks among
  // those. Elsewhere (a rail leaf's uplinks to the spines) the hash of source, destination and
  // NIC picks, as ECMP keeps a connection on one path: all of a rail leaf's traffic carries its
  // rail's NIC index, which alone would send it to one spine.
  const bool picks_nic = p.hops == 1 && topology_.ports(topology_.host(p.src)).size() == 1;
  if (!picks_nic && table_.distance(node, p.dst) > 2) return hashed(node, p, c);
  const auto& ports = topology_.ports(node);
  std::uint32_t runs = 1;
  for (std::size_t i = 1; i < c.size(); ++i) runs += ports[c[i]].peer != ports[c[i - 1]].peer ? 1 : 0;
  const std::uint64_t run = p.entropy % runs;
  std::size_t begin = 0;
  for (std::uint64_t r = 0; r < run; ++begin)
    if (ports[c[begin + 1]].peer != ports[c[begin]].peer) ++r;
  std::size_t end = begin + 1;
  while (end < c.size() && ports[c[end]].peer == ports[c[begin]].peer) ++end;
  return hashed(node, p, c.subspan(begin, end - begin));
}

std::uint16_t PortChooser::dimension_order(topo::NodeId node, const Packet& p) const {
  const topo::NodeId target = attached_switch_[p.dst];
  if (node == target) return table_.next_ports(node, p.dst).front();
  const auto& dims = topology_.torus()->dims;
  std::uint32_t here = topology_.node(node).index;
  std::uint32_t there = topology_.node(target).index;
  std::uint32_t stride = 1;
  for (std::uint32_t size : dims) {
    const std::uint32_t a = here % size, b = there % size;
    if (a != b) {
      // The short way round; half-way ties go up.
      const std::uint32_t up = (b + size - a) % size;
      const std::uint32_t step = up <= size / 2 ? (a + 1) % size : (a + size - 1) % size;
      const std::uint32_t next_index = topology_.node(node).index + (step - a) * stride;  // may wrap below: unsigned
      const auto& ports = topology_.ports(node);
      for (std::size_t i = 0; i < ports.size(); ++i) {
        const topo::Node& peer = topology_.node(ports[i].peer);
        if (peer.kind != topo::NodeKind::Host && peer.index == next_index) return static_cast<std::uint16_t>(i);
      }
      throw std::logic_error("torus switch " + topology_.node(node).name + " has no link to its neighbour");
    }
    here /= size;
    there /= size;
    stride *= size;
  }
  return table_.next_ports(node, p.dst).front();
}

std::uint32_t PortChooser::router_distance(topo::NodeId a, topo::NodeId b) const {
  return router_distance_[std::size_t{topology_.node(a).index} * switch_count_ + topology_.node(b).index];
}

std::vector<topo::PortIndex> PortChooser::toward_router(topo::NodeId node, topo::NodeId target) const {
  std::vector<topo::PortIndex> out;
  const std::uint32_t d = router_distance(node, target);
  const auto& ports = topology_.ports(node);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const topo::Node& peer = topology_.node(ports[i].peer);
    if (peer.kind != topo::NodeKind::Host && router_distance(ports[i].peer, target) + 1 == d)
      out.push_back(static_cast<topo::PortIndex>(i));
  }
  return out;
}

std::uint16_t PortChooser::dragonfly(topo::NodeId node, Packet& p, const std::vector<OutputPort>& ports,
                                     pdes::RandomStream& random) const {
  const auto& shape = *topology_.dragonfly();
  const std::uint32_t a = shape.routers_per_group;
  const auto group_of = [&](topo::NodeId n) { return topology_.node(n).index / a; };
  const topo::NodeId dst_router = attached_switch_[p.dst];
  // The first router a packet meets decides whether it detours.
  if (p.via == 0 && p.hops == 1 && shape.groups > 2 && group_of(node) != group_of(dst_router)) {
    std::uint32_t g = static_cast<std::uint32_t>(random.below(shape.groups - 2));
    for (std::uint32_t skip : {std::min(group_of(node), group_of(dst_router)), std::max(group_of(node), group_of(dst_router))})
      if (g >= skip) ++g;
    const std::uint32_t r = static_cast<std::uint32_t>(random.below(a));
    const topo::NodeId via = switch_node_[g * a + r];
    bool detour = true;
    if (params_.routing == RoutingMode::Ugal) {
      const auto minimal = table_.next_ports(node, p.dst);
      const auto valiant = toward_router(node, via);
      const std::uint16_t min_port = least_queued(node, p, minimal, ports);
      const std::uint16_t val_port = least_queued(node, p, valiant, ports);
      const std::uint64_t min_hops = table_.distance(node, p.dst);
      const std::uint64_t val_hops = router_distance(node, via) + router_distance(via, dst_router) + 1;
      detour = (ports[val_port].class_bytes(p.priority) + 1) * val_hops < (ports[min_port].class_bytes(p.priority) + 1) * min_hops;
    }
    if (detour) p.via = static_cast<std::uint16_t>(g * a + r + 1);
  }
  if (p.via != 0) {
    const topo::NodeId via = switch_node_[p.via - 1u];
    if (node == via) {
      p.via = 0;  // reached the intermediate router: minimal from here
    } else {
      const auto c = toward_router(node, via);
      return hashed(node, p, c);
    }
  }
  return hashed(node, p, table_.next_ports(node, p.dst));
}

}  // namespace collsim::net
