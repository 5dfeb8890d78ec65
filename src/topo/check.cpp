// check_topology: at least 2 hosts, every host linked, every host reaches every other one
// through switches.

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "collsim/topo/loader.hpp"

namespace collsim::topo {

namespace {

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::uint32_t> parent_;
};

bool intersect(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i == *j) return true;
    if (*i < *j)
      ++i;
    else
      ++j;
  }
  return false;
}

}  // namespace

std::optional<TopologyProblem> check_topology(const Topology& t) {
  using Kind = TopologyProblem::Kind;
  const std::uint32_t H = t.num_hosts();
  if (H < 2)
    return TopologyProblem{Kind::TooFewHosts, 0, 0,
                           "a topology needs at least 2 hosts, this one has " + std::to_string(H)};
  for (std::uint32_t h = 0; h < H; ++h)
    if (t.ports(t.host(h)).empty())
      return TopologyProblem{Kind::HostWithoutLink, t.host(h), 0, "host '" + t.node(t.host(h)).name + "' has no link"};

  // Switches that reach each other without passing through a host form components; host u
  // reaches host v iff they share a component they are attached to, or a direct link.
  UnionFind uf(t.nodes().size());
  for (const Link& l : t.links())
    if (t.node(l.a).kind != NodeKind::Host && t.node(l.b).kind != NodeKind::Host) uf.unite(l.a, l.b);
  std::vector<std::vector<std::uint32_t>> comps(H);        // components each host is attached to
  std::vector<std::vector<std::uint32_t>> host_peers(H);   // hosts linked directly
  std::vector<std::uint32_t> hosts_of_comp(t.nodes().size(), 0);
  for (std::uint32_t h = 0; h < H; ++h) {
    for (const Port& p : t.ports(t.host(h))) {
      const Node& peer = t.node(p.peer);
      if (peer.kind == NodeKind::Host)
        host_peers[h].push_back(peer.index);
      else
        comps[h].push_back(uf.find(p.peer));
    }
    std::sort(comps[h].begin(), comps[h].end());
    comps[h].erase(std::unique(comps[h].begin(), comps[h].end()), comps[h].end());
    std::sort(host_peers[h].begin(), host_peers[h].end());
    for (std::uint32_t c : comps[h])
      if (++hosts_of_comp[c] == H) return std::nullopt;  // one component serves every host
  }

  // Rare: no component serves every host. Group the hosts by their set of components and
  // compare the groups pairwise.
  std::map<std::vector<std::uint32_t>, std::uint32_t> group_id;
  std::vector<std::vector<std::uint32_t>> members;
  std::vector<const std::vector<std::uint32_t>*> keys;
  for (std::uint32_t h = 0; h < H; ++h) {
    const auto [it, added] = group_id.emplace(comps[h], static_cast<std::uint32_t>(members.size()));
    if (added) {
      members.emplace_back();
      keys.push_back(&it->first);
    }
    members[it->second].push_back(h);
  }
  auto linked = [&](std::uint32_t u, std::uint32_t v) {
    return std::binary_search(host_peers[u].begin(), host_peers[u].end(), v);
  };
  auto problem = [&](std::uint32_t u, std::uint32_t v) {
    if (u > v) std::swap(u, v);
    return TopologyProblem{Kind::DisconnectedHosts, t.host(u), t.host(v),
                           "disconnected hosts: '" + t.node(t.host(u)).name + "' and '" + t.node(t.host(v)).name +
                               "' cannot reach each other (paths go through switches, never through a host)"};
  };
  for (std::size_t x = 0; x < members.size(); ++x)
    for (std::size_t y = x; y < members.size(); ++y) {
      if (!keys[x]->empty() && (x == y || intersect(*keys[x], *keys[y]))) continue;
      for (std::size_t i = 0; i < members[x].size(); ++i)
        for (std::size_t j = (x == y ? i + 1 : 0); j < members[y].size(); ++j)
          if (!linked(members[x][i], members[y][j])) return problem(members[x][i], members[y][j]);
    }
  return std::nullopt;
}

}  // namespace collsim::topo
