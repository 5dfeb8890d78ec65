#include "collsim/net/sealed_islands.hpp"

#include <numeric>

namespace collsim::net {

bool SealedIslands::link_sealed(const topo::Topology& t, const FlowDomains& domains, topo::LinkId link,
                                topo::NodeId from) const {
  const std::uint32_t d = domains.domain_of_link.empty() ? kNoDomain : domains.domain_of_link[link];
  if (d != kNoDomain) return domain[d];
  const topo::Link& l = t.link(link);
  return node[l.a == from ? l.b : l.a];
}

std::vector<topo::NodeId> SealedIslands::hosts_behind(const topo::Topology& t, const FlowDomains& domains,
                                                      topo::LinkId link, topo::NodeId from) const {
  const auto is_host = [&](topo::NodeId id) { return t.node(id).kind == topo::NodeKind::Host; };
  const auto domain_of = [&](topo::LinkId id) {
    return domains.domain_of_link.empty() ? kNoDomain : domains.domain_of_link[id];
  };
  const std::uint32_t d = domain_of(link);
  std::vector<topo::NodeId> hosts;
  std::vector<bool> seen(t.nodes().size(), false);
  std::vector<topo::NodeId> todo;
  const topo::Link& first = t.link(link);
  const topo::NodeId start = first.a == from ? first.b : first.a;
  if (is_host(start)) return {start};
  todo.push_back(start);
  seen[start] = true;
  // Across switches by the links of the same kind: packet links, or the domain's.
  while (!todo.empty()) {
    const topo::NodeId sw = todo.back();
    todo.pop_back();
    for (const topo::Port& p : t.ports(sw)) {
      if (domain_of(p.link) != d || seen[p.peer]) continue;
      seen[p.peer] = true;
      if (is_host(p.peer)) {
        hosts.push_back(p.peer);
      } else {
        todo.push_back(p.peer);
      }
    }
  }
  return hosts;
}

SealedIslands sealed_islands(const topo::Topology& t, const FlowDomains& domains, const pdes::Partition& partition) {
  const std::size_t n = t.nodes().size();
  const auto is_host = [&](topo::NodeId id) { return t.node(id).kind == topo::NodeKind::Host; };
  const auto flow_link = [&](topo::LinkId id) {
    return !domains.domain_of_link.empty() && domains.domain_of_link[id] != kNoDomain;
  };
  // Islands: switches joined by packet links between switches.
  std::vector<std::uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  const auto find = [&](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (topo::LinkId id = 0; id < t.links().size(); ++id) {
    const topo::Link& l = t.link(id);
    if (flow_link(id) || is_host(l.a) || is_host(l.b)) continue;
    parent[find(l.a)] = find(l.b);
  }
  // An island is open once a switch of it, or a host next to it, is on another rank than its
  // root's.
  std::vector<bool> open(n, false);
  for (topo::NodeId id = 0; id < n; ++id)
    if (!is_host(id) && partition.owner[id] != partition.owner[find(id)]) open[find(id)] = true;
  for (topo::LinkId id = 0; id < t.links().size(); ++id) {
    const topo::Link& l = t.link(id);
    if (flow_link(id) || is_host(l.a) == is_host(l.b)) continue;
    const topo::NodeId host = is_host(l.a) ? l.a : l.b, sw = is_host(l.a) ? l.b : l.a;
    if (partition.owner[host] != partition.owner[find(sw)]) open[find(sw)] = true;
  }
  SealedIslands s;
  s.node.assign(n, false);
  for (topo::NodeId id = 0; id < n; ++id) s.node[id] = !is_host(id) && !open[find(id)];
  s.domain.assign(domains.size(), true);
  for (topo::LinkId id = 0; id < t.links().size(); ++id) {
    if (!flow_link(id)) continue;
    const std::uint32_t d = domains.domain_of_link[id];
    const topo::Link& l = t.link(id);
    // The domain's other switches run nothing: its home carries every message.
    for (const topo::NodeId end : {l.a, l.b})
      if (is_host(end) && partition.owner[end] != partition.owner[domains.home[d]]) s.domain[d] = false;
  }
  return s;
}

}  // namespace collsim::net
