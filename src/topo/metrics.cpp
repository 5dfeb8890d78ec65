// compute_metrics: counts, hop distances between hosts, bisection bandwidth.

#include "collsim/topo/metrics.hpp"

#include <metis.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace collsim::topo {

namespace {

using u128 = collsim::detail::uint128;
constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();

std::int64_t clamp_bps(u128 v) {
  constexpr auto kMax = static_cast<u128>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(std::min(v, kMax));
}

void count_links(const Topology& t, TopologyMetrics& m) {
  std::map<std::tuple<LinkMedium, std::int64_t, std::int64_t>, std::uint64_t> classes;
  for (const Link& l : t.links()) {
    ++classes[{l.medium, l.bandwidth.bps(), l.latency.picoseconds()}];
    if (m.links == 0 || l.bandwidth < m.min_link_bandwidth) m.min_link_bandwidth = l.bandwidth;
    if (m.links == 0 || l.bandwidth > m.max_link_bandwidth) m.max_link_bandwidth = l.bandwidth;
    if (m.links == 0 || l.latency < m.min_link_latency) m.min_link_latency = l.latency;
    if (m.links == 0 || l.latency > m.max_link_latency) m.max_link_latency = l.latency;
    ++m.links;
  }
  for (const auto& [key, count] : classes)
    m.link_classes.push_back({std::get<0>(key), Bandwidth::bits_per_second(std::get<1>(key)),
                              SimTime::ps(std::get<2>(key)), count});
}

// Hop distances between hosts. Hosts attached to the same set of switches are at the same
// distance from everything else, so one multi-source BFS over the switch graph per distinct set
// gives the distances from all of them: d(u, v) = 2 + min over v's switches of the BFS distance
// (1 for hosts linked directly).
void distances(const Topology& t, TopologyMetrics& m) {
  const std::uint32_t H = t.num_hosts();
  const std::uint32_t S = t.num_switches();
  if (H < 2) return;
  // Switch graph in CSR form, indexed by Node::index.
  std::vector<std::uint32_t> offset(S + 1, 0);
  std::vector<std::uint32_t> adjacent;
  {
    std::vector<NodeId> switch_node(S);
    for (NodeId n = 0; n < t.nodes().size(); ++n)
      if (t.node(n).kind != NodeKind::Host) switch_node[t.node(n).index] = n;
    for (std::uint32_t s = 0; s < S; ++s) {
      for (const Port& p : t.ports(switch_node[s]))
        if (t.node(p.peer).kind != NodeKind::Host) adjacent.push_back(t.node(p.peer).index);
      offset[s + 1] = static_cast<std::uint32_t>(adjacent.size());
    }
  }
  // Hosts grouped by their set of switches; links between hosts counted per pair of groups.
  std::map<std::vector<std::uint32_t>, std::uint32_t> group_id;
  std::vector<const std::vector<std::uint32_t>*> keys;
  std::vector<std::uint64_t> size;
  std::vector<std::uint32_t> group_of(H);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> host_pairs;
  for (std::uint32_t h = 0; h < H; ++h) {
    std::vector<std::uint32_t> attached;
    for (const Port& p : t.ports(t.host(h))) {
      const Node& peer = t.node(p.peer);
      if (peer.kind != NodeKind::Host)
        attached.push_back(peer.index);
      else if (h < peer.index)
        host_pairs.emplace_back(h, peer.index);
    }
    std::sort(attached.begin(), attached.end());
    attached.erase(std::unique(attached.begin(), attached.end()), attached.end());
    const auto [it, added] = group_id.emplace(std::move(attached), static_cast<std::uint32_t>(keys.size()));
    if (added) {
      keys.push_back(&it->first);
      size.push_back(0);
    }
    ++size[it->second];
    group_of[h] = it->second;
  }
  std::sort(host_pairs.begin(), host_pairs.end());
  host_pairs.erase(std::unique(host_pairs.begin(), host_pairs.end()), host_pairs.end());
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> direct;  // (group, group) -> linked host pairs
  for (const auto& [u, v] : host_pairs)
    ++direct[{std::min(group_of[u], group_of[v]), std::max(group_of[u], group_of[v])}];

  const auto G = static_cast<std::uint32_t>(keys.size());
  std::vector<std::vector<std::uint32_t>> groups_at(S);  // groups attached to each switch
  for (std::uint32_t g = 0; g < G; ++g)
    for (std::uint32_t s : *keys[g]) groups_at[s].push_back(g);

  std::uint64_t pairs_reached = 0;
  u128 hop_sum = 0;
  m.connected = true;
  // Hosts of groups a and b (a <= b) are `hops` apart, or unreachable (hops = kUnreached),
  // except pairs linked directly (1 hop).
  auto record = [&](std::uint32_t a, std::uint32_t b, std::uint32_t hops) {
    const std::uint64_t pairs = a == b ? size[a] * (size[a] - 1) / 2 : size[a] * size[b];
    std::uint64_t linked = 0;
    if (!direct.empty()) {
      const auto it = direct.find({a, b});
      if (it != direct.end()) linked = it->second;
    }
    if (linked > 0) {
      m.diameter_hops = std::max(m.diameter_hops, 1u);
      hop_sum += linked;
      pairs_reached += linked;
    }
    if (pairs == linked) return;
    if (hops == kUnreached) {
      m.connected = false;
      return;
    }
    m.diameter_hops = std::max(m.diameter_hops, hops);
    hop_sum += static_cast<u128>(hops) * (pairs - linked);
    pairs_reached += pairs - linked;
  };

  // Bit-parallel BFS (one bit per source group, 64 groups per batch): frontier[s] holds the
  // sources whose search reaches switch s at the current level, seen[s] those that reached it
  // before. Only pairs (a, b) with a <= b are recorded.
  std::vector<std::uint64_t> seen(S, 0), frontier(S, 0), next(S, 0), reached(G, 0);
  std::vector<std::uint32_t> frontier_list, next_list;
  for (std::uint32_t base = 0; base < G; base += 64) {
    const std::uint32_t count = std::min<std::uint32_t>(64, G - base);
    const std::uint64_t sources = count == 64 ? ~0ull : (1ull << count) - 1;
    // Bits i with base + i <= b.
    auto valid = [&](std::uint32_t b) { return b - base >= 63 ? sources : sources & ((2ull << (b - base)) - 1); };
    std::fill(seen.begin(), seen.end(), 0);
    std::fill(reached.begin() + base, reached.end(), 0);
    frontier_list.clear();
    for (std::uint32_t i = 0; i < count; ++i)
      for (std::uint32_t s : *keys[base + i]) {
        if (frontier[s] == 0) frontier_list.push_back(s);
        frontier[s] |= 1ull << i;
        seen[s] |= 1ull << i;
      }
    for (std::uint32_t level = 0; !frontier_list.empty(); ++level) {
      for (std::uint32_t s : frontier_list)
        for (std::uint32_t b : groups_at[s]) {
          if (b < base) continue;
          std::uint64_t fresh = frontier[s] & ~reached[b] & valid(b);
          if (fresh == 0) continue;
          reached[b] |= fresh;
          if (!direct.empty()) {
            for (; fresh != 0; fresh &= fresh - 1)
              record(base + static_cast<std::uint32_t>(std::countr_zero(fresh)), b, level + 2);
            continue;
          }
          // No host-host links (the usual case): add up the pairs without a call per pair.
          std::uint64_t other = 0;  // hosts of the groups a < b reached now
          bool self = false;
          for (; fresh != 0; fresh &= fresh - 1) {
            const std::uint32_t a = base + static_cast<std::uint32_t>(std::countr_zero(fresh));
            if (a == b)
              self = true;
            else
              other += size[a];
          }
          const std::uint64_t pairs = other * size[b] + (self ? size[b] * (size[b] - 1) / 2 : 0);
          if (pairs == 0) continue;
          m.diameter_hops = std::max(m.diameter_hops, level + 2);
          hop_sum += static_cast<u128>(level + 2) * pairs;
          pairs_reached += pairs;
        }
      next_list.clear();
      for (std::uint32_t s : frontier_list)
        for (std::uint32_t i = offset[s]; i < offset[s + 1]; ++i) {
          const std::uint32_t v = adjacent[i];
          const std::uint64_t x = frontier[s] & ~seen[v];
          if (x == 0) continue;
          if (next[v] == 0) next_list.push_back(v);
          next[v] |= x;
        }
      for (std::uint32_t s : frontier_list) frontier[s] = 0;
      for (std::uint32_t v : next_list) {
        seen[v] |= next[v];
        frontier[v] = next[v];
        next[v] = 0;
      }
      std::swap(frontier_list, next_list);
    }
    for (std::uint32_t b = base; b < G; ++b)
      for (std::uint64_t missed = valid(b) & ~reached[b]; missed != 0; missed &= missed - 1)
        record(base + static_cast<std::uint32_t>(std::countr_zero(missed)), b, kUnreached);
  }
  m.mean_hops = pairs_reached ? static_cast<double>(hop_sum) / static_cast<double>(pairs_reached) : 0.0;
}

// Moves hosts between sides until side 1 has floor(H/2) or ceil(H/2) hosts, each time the host
// whose move adds the least bandwidth to the cut.
void balance_hosts(const Topology& t, std::vector<std::uint8_t>& side) {
  const std::uint32_t H = t.num_hosts();
  std::uint32_t on_one = 0;
  for (std::uint32_t h = 0; h < H; ++h) on_one += side[t.host(h)];
  while (on_one < H / 2 || on_one > (H + 1) / 2) {
    const std::uint8_t from = on_one > (H + 1) / 2 ? 1 : 0;
    std::optional<NodeId> best;
    long double best_gain = 0;
    for (std::uint32_t h = 0; h < H; ++h) {
      const NodeId n = t.host(h);
      if (side[n] != from) continue;
      long double gain = 0;  // increase of the cut if n moves
      for (const Port& p : t.ports(n)) {
        const auto bw = static_cast<long double>(t.link(p.link).bandwidth.bps());
        gain += side[p.peer] == from ? bw : -bw;
      }
      if (!best || gain < best_gain) {
        best = n;
        best_gain = gain;
      }
    }
    side[*best] = static_cast<std::uint8_t>(1 - from);
    if (from == 1)
      --on_one;
    else
      ++on_one;
  }
}

// Moves switches (which do not change the balance of hosts) to the other side while that
// shrinks the cut.
void refine_switches(const Topology& t, std::vector<std::uint8_t>& side) {
  for (int pass = 0; pass < 16; ++pass) {
    bool moved = false;
    for (NodeId n = 0; n < t.nodes().size(); ++n) {
      if (t.node(n).kind == NodeKind::Host) continue;
      long double same = 0, other = 0;
      for (const Port& p : t.ports(n))
        (side[p.peer] == side[n] ? same : other) += static_cast<long double>(t.link(p.link).bandwidth.bps());
      if (other > same) {
        side[n] = static_cast<std::uint8_t>(1 - side[n]);
        moved = true;
      }
    }
    if (!moved) return;
  }
}

// Isolates the floor(H/2) hosts with the least link bandwidth.
std::int64_t host_isolation_cut(const Topology& t) {
  const std::uint32_t H = t.num_hosts();
  std::vector<std::pair<u128, NodeId>> by_bw;
  for (std::uint32_t h = 0; h < H; ++h) {
    u128 bw = 0;
    for (const Port& p : t.ports(t.host(h))) bw += static_cast<std::uint64_t>(t.link(p.link).bandwidth.bps());
    by_bw.emplace_back(bw, t.host(h));
  }
  std::sort(by_bw.begin(), by_bw.end());
  std::vector<std::uint8_t> side(t.nodes().size(), 0);
  for (std::uint32_t i = 0; i < H / 2; ++i) side[by_bw[i].second] = 1;
  return cut_bandwidth(t, side);
}

}  // namespace

std::string_view to_string(LinkMedium medium) {
  switch (medium) {
    case LinkMedium::Network: return "network";
    case LinkMedium::NvLink: return "nvlink";
    case LinkMedium::Pcie: return "pcie";
  }
  return "unknown";
}

std::vector<std::uint32_t> host_hops_from(const Topology& t, std::uint32_t from) {
  std::vector<std::uint32_t> dist(t.nodes().size(), kUnreached);
  std::vector<NodeId> queue{t.host(from)};
  dist[t.host(from)] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId n = queue[head];
    if (n != t.host(from) && t.node(n).kind == NodeKind::Host) continue;  // hosts do not forward
    for (const Port& p : t.ports(n))
      if (dist[p.peer] == kUnreached) {
        dist[p.peer] = dist[n] + 1;
        queue.push_back(p.peer);
      }
  }
  std::vector<std::uint32_t> hops(t.num_hosts());
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h) hops[h] = dist[t.host(h)];
  return hops;
}

std::int64_t cut_bandwidth(const Topology& t, const std::vector<std::uint8_t>& side) {
  if (side.size() != t.nodes().size()) throw std::invalid_argument("cut_bandwidth: one side per node expected");
  u128 sum = 0;
  for (const Link& l : t.links())
    if ((side[l.a] != 0) != (side[l.b] != 0)) sum += static_cast<std::uint64_t>(l.bandwidth.bps());
  return clamp_bps(sum);
}

std::int64_t estimate_bisection_metis(const Topology& t, std::vector<std::uint8_t>* side_out) {
  const auto n = static_cast<idx_t>(t.nodes().size());
  std::vector<std::uint8_t> side(t.nodes().size(), 0);
  if (t.num_hosts() >= 2 && !t.links().empty()) {
    // Parallel links merged into one edge; weights scaled so that their total fits METIS's
    // 32-bit integers (proportions kept to about 1e-4, exact cut recomputed afterwards).
    std::vector<std::tuple<std::uint32_t, std::uint32_t, long double>> arcs;
    long double total = 0;
    for (const Link& l : t.links()) {
      const auto bw = static_cast<long double>(l.bandwidth.bps());
      arcs.emplace_back(l.a, l.b, bw);
      arcs.emplace_back(l.b, l.a, bw);
      total += 2 * bw;
    }
    std::sort(arcs.begin(), arcs.end());
    const long double scale = static_cast<long double>(1 << 29) / total;
    std::vector<idx_t> xadj(static_cast<std::size_t>(n) + 1, 0);
    std::vector<idx_t> adjncy;
    std::vector<idx_t> adjwgt;
    for (std::size_t i = 0; i < arcs.size();) {
      const std::uint32_t a = std::get<0>(arcs[i]);
      const std::uint32_t b = std::get<1>(arcs[i]);
      long double bw = 0;
      for (; i < arcs.size() && std::get<0>(arcs[i]) == a && std::get<1>(arcs[i]) == b; ++i) bw += std::get<2>(arcs[i]);
      adjncy.push_back(static_cast<idx_t>(b));
      adjwgt.push_back(std::max<idx_t>(1, static_cast<idx_t>(std::llround(bw * scale))));
      xadj[a + 1] = static_cast<idx_t>(adjncy.size());
    }
    for (std::size_t v = 1; v < xadj.size(); ++v) xadj[v] = std::max(xadj[v], xadj[v - 1]);
    // METIS balances vertex weight, and only hosts should count; but with switches weighing 0
    // its bisections are sometimes poor on small graphs, so both weightings and a few seeds are
    // tried, each result balanced on hosts and refined, and the smallest cut kept.
    std::optional<std::int64_t> best;
    for (const idx_t switch_weight : {0, 1})
      for (const idx_t seed : {1, 2, 3}) {
        std::vector<idx_t> vwgt(static_cast<std::size_t>(n), switch_weight);
        for (std::uint32_t h = 0; h < t.num_hosts(); ++h) vwgt[t.host(h)] = 1;
        idx_t options[METIS_NOPTIONS];
        METIS_SetDefaultOptions(options);
        options[METIS_OPTION_SEED] = seed;
        options[METIS_OPTION_NUMBERING] = 0;
        options[METIS_OPTION_NCUTS] = 4;
        idx_t nvtxs = n;
        idx_t ncon = 1;
        idx_t nparts = 2;
        idx_t objval = 0;
        std::vector<idx_t> part(static_cast<std::size_t>(n), 0);
        const int rc = METIS_PartGraphRecursive(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                                adjwgt.data(), &nparts, nullptr, nullptr, options, &objval, part.data());
        if (rc != METIS_OK)
          throw std::runtime_error("METIS could not bisect the topology (code " + std::to_string(rc) + ")");
        std::vector<std::uint8_t> candidate(t.nodes().size());
        for (std::size_t v = 0; v < part.size(); ++v) candidate[v] = static_cast<std::uint8_t>(part[v] != 0);
        balance_hosts(t, candidate);
        refine_switches(t, candidate);
        const std::int64_t cut = cut_bandwidth(t, candidate);
        if (!best || cut < *best) {
          best = cut;
          side = std::move(candidate);
        }
      }
  }
  balance_hosts(t, side);
  const std::int64_t cut = cut_bandwidth(t, side);
  if (side_out) *side_out = std::move(side);
  return cut;
}

TopologyMetrics compute_metrics(const Topology& t) {
  TopologyMetrics m;
  m.hosts = t.num_hosts();
  m.switches = t.num_switches();
  for (NodeId n = 0; n < t.nodes().size(); ++n) {
    const Node& node = t.node(n);
    const auto ports = static_cast<std::uint32_t>(t.ports(n).size());
    if (node.kind == NodeKind::Host) {
      m.max_host_ports = std::max(m.max_host_ports, ports);
    } else {
      m.max_switch_ports = std::max(m.max_switch_ports, ports);
      if (node.kind == NodeKind::NvSwitch) ++m.nvswitches;
    }
  }
  count_links(t, m);
  distances(t, m);

  const auto& closed = t.closed_form_bisection();
  if (closed && closed->exact) {
    m.bisection_bandwidth_bps = closed->bps;
    m.bisection_exact = true;
    m.bisection_method = "closed form: " + closed->formula;
  } else if (m.hosts >= 2) {
    const std::int64_t metis = estimate_bisection_metis(t);
    const std::int64_t isolation = host_isolation_cut(t);
    m.bisection_bandwidth_bps = std::min(metis, isolation);
    m.bisection_method = "estimate: best of METIS's balanced host bisection, isolating the half of the hosts with "
                         "the least link bandwidth";
    if (closed) {
      m.bisection_bandwidth_bps = std::min(m.bisection_bandwidth_bps, closed->bps);
      m.bisection_method += ", and the closed-form cut " + closed->formula;
    }
    m.bisection_exact = false;
  }
  return m;
}

}  // namespace collsim::topo
