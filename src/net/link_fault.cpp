#include "collsim/net/link_fault.hpp"

#include "collsim/net/link_change.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

namespace collsim::net {

namespace {

// "TIME" or "TIME..TIME2" after the '@' of `text`.
void parse_window(const std::string& text, std::size_t at, LinkFault& f) {
  const std::string window = text.substr(at + 1);
  const auto dots = window.find("..");
  std::string error;
  const auto down = parse_duration(window.substr(0, dots), &error);
  if (!down || *down < SimTime::zero())
    throw std::invalid_argument("'" + text + "': the time it goes down: " + (error.empty() ? "must not be negative" : error));
  f.down = *down;
  if (dots == std::string::npos) return;
  const auto up = parse_duration(window.substr(dots + 2), &error);
  if (!up) throw std::invalid_argument("'" + text + "': the time it comes back: " + error);
  if (*up <= *down) throw std::invalid_argument("'" + text + "': it must come back after it goes down");
  f.up = *up;
}

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

}  // namespace

LinkFault parse_link_fault(std::string_view text, const topo::Topology& t) {
  const std::string s(text);
  const auto colon = s.find(':'), at = s.find('@', colon == std::string::npos ? 0 : colon);
  if (colon == std::string::npos || at == std::string::npos)
    throw std::invalid_argument("'" + s + "': expected NODE_A:NODE_B@TIME or NODE_A:NODE_B@TIME..TIME2 (pod0_agg2:core0@1ms)");
  const std::string a = s.substr(0, colon), b = s.substr(colon + 1, at - colon - 1);
  LinkFault f;
  f.what = "link " + a + ":" + b;
  f.links.push_back(named_link(s, a, b, t));
  parse_window(s, at, f);
  return f;
}

LinkFault parse_switch_fault(std::string_view text, const topo::Topology& t) {
  const std::string s(text);
  const auto at = s.find('@');
  if (at == std::string::npos)
    throw std::invalid_argument("'" + s + "': expected SWITCH@TIME or SWITCH@TIME..TIME2 (spine3@500us)");
  const std::string name = s.substr(0, at);
  const auto node = t.find(name);
  if (!node) throw std::invalid_argument("'" + s + "': " + t.name() + " has no node '" + name + "'");
  if (t.node(*node).kind == topo::NodeKind::Host)
    throw std::invalid_argument("'" + s + "': " + name + " is a host; give its link (HOST:SWITCH@TIME) to cut it off");
  LinkFault f;
  f.what = "switch " + name;
  for (const topo::Port& p : t.ports(*node)) f.links.push_back(p.link);
  parse_window(s, at, f);
  return f;
}

FaultSchedule::FaultSchedule(std::vector<LinkFault> faults, SimTime reconvergence, std::size_t num_links)
    : faults_(std::move(faults)), reconvergence_(reconvergence) {
  if (reconvergence < SimTime::zero()) throw std::invalid_argument("the reconvergence delay must not be negative");
  // A link in several faults (its own and its switch's) is down while any of them is.
  struct Edge {
    SimTime at;
    topo::LinkId link;
    int delta;
  };
  std::vector<Edge> edges;
  for (const LinkFault& f : faults_) {
    if (f.up <= f.down) throw std::invalid_argument(f.what + ": it must come back after it goes down");
    for (const topo::LinkId l : f.links) {
      if (l >= num_links) throw std::invalid_argument(f.what + ": no link " + std::to_string(l));
      edges.push_back({f.down, l, +1});
      if (!f.up.is_infinite()) edges.push_back({f.up, l, -1});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
    return x.at != y.at ? x.at < y.at : x.link < y.link;
  });
  std::vector<int> count(num_links, 0);
  std::vector<bool> down(num_links, false);
  epochs_.push_back({SimTime::zero(), down});
  for (std::size_t i = 0; i < edges.size();) {
    const SimTime at = edges[i].at;
    bool changed = false;
    for (; i < edges.size() && edges[i].at == at;) {
      const topo::LinkId link = edges[i].link;
      for (; i < edges.size() && edges[i].at == at && edges[i].link == link; ++i) count[link] += edges[i].delta;
      const bool now_down = count[link] > 0;
      if (now_down == down[link]) continue;
      down[link] = now_down;
      changes_.push_back({link, at, now_down});
      changed = true;
    }
    if (!changed) continue;
    const SimTime from = at.saturating_add(reconvergence_);
    if (from == epochs_.back().from) epochs_.pop_back();
    epochs_.push_back({from, down});
  }
}

bool FaultSchedule::down_at(topo::LinkId link, SimTime t) const {
  bool down = false;
  for (const LinkStateChange& c : changes_) {
    if (c.at > t) break;
    if (c.link == link) down = c.down;
  }
  return down;
}

Reachability::Reachability(const topo::Topology& t, const std::vector<bool>& link_down) {
  const auto n = static_cast<std::uint32_t>(t.nodes().size());
  std::vector<std::uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  for (topo::LinkId id = 0; id < t.links().size(); ++id) {
    const topo::Link& l = t.link(id);
    if (link_down[id] || t.node(l.a).kind == topo::NodeKind::Host || t.node(l.b).kind == topo::NodeKind::Host) continue;
    parent[find_root(parent, l.a)] = find_root(parent, l.b);
  }
  attached_.resize(t.num_hosts());
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h) {
    auto& out = attached_[h];
    for (const topo::Port& p : t.ports(t.host(h))) {
      if (link_down[p.link]) continue;
      // Two hosts joined directly share that link, as hosts on one switch component share it.
      out.push_back(t.node(p.peer).kind == topo::NodeKind::Host ? n + p.link : find_root(parent, p.peer));
    }
    std::sort(out.begin(), out.end());
  }
}

bool Reachability::reaches(std::uint32_t a, std::uint32_t b) const {
  const auto& x = attached_[a];
  const auto& y = attached_[b];
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i] == y[j]) return true;
    x[i] < y[j] ? ++i : ++j;
  }
  return false;
}

}  // namespace collsim::net
