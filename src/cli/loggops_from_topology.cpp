#include "loggops_from_topology.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>

namespace collsim::cli {
namespace {

struct Path {
  std::int64_t latency_ps = 0;
  std::int64_t bottleneck_bps = 0;
};

// The lowest-latency path from host a to host b that passes through switches only.
Path shortest_path(const topo::Topology& t, topo::NodeId a, topo::NodeId b) {
  const std::int64_t inf = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> dist(t.nodes().size(), inf), bottleneck(t.nodes().size(), 0);
  using Item = std::pair<std::int64_t, topo::NodeId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  dist[a] = 0;
  bottleneck[a] = inf;
  queue.push({0, a});
  while (!queue.empty()) {
    const auto [d, n] = queue.top();
    queue.pop();
    if (d != dist[n]) continue;
    if (n != a && t.node(n).kind == topo::NodeKind::Host) continue;  // never through another host
    for (const topo::Port& p : t.ports(n)) {
      const topo::Link& l = t.link(p.link);
      const std::int64_t nd = d + l.latency.picoseconds();
      if (nd < dist[p.peer]) {
        dist[p.peer] = nd;
        bottleneck[p.peer] = std::min(bottleneck[n], l.bandwidth.bps());
        queue.push({nd, p.peer});
      }
    }
  }
  return {dist[b] == inf ? 0 : dist[b], bottleneck[b]};
}

std::string setting(const char* name, std::int64_t v) { return std::string(name) + "=" + std::to_string(v); }

}  // namespace

std::vector<std::string> loggops_settings_for(const topo::Topology& t) {
  std::vector<std::string> out = {"o=0", "g=0", "G=0", "O=0"};
  if (t.num_hosts() < 2) return out;
  const std::uint32_t per_node = t.hosts_per_server();
  auto ps_per_byte = [](std::int64_t bps) { return bps > 0 ? (8'000'000'000'000 + bps - 1) / bps : 0; };
  // Between servers: from the first host to the first host of the last server (or the last host).
  const std::uint32_t far = per_node > 1 && per_node < t.num_hosts() ? t.num_hosts() - per_node : t.num_hosts() - 1;
  const Path inter = shortest_path(t, t.host(0), t.host(far));
  out.push_back(setting("L", inter.latency_ps / 1000));
  out.push_back(setting("G_ps", ps_per_byte(inter.bottleneck_bps)));
  if (per_node > 1) {
    const Path intra = shortest_path(t, t.host(0), t.host(1));
    out.push_back(setting("ranks_per_node", per_node));
    out.push_back(setting("L_intra", intra.latency_ps / 1000));
    out.push_back(setting("G_intra_ps", ps_per_byte(intra.bottleneck_bps)));
    out.push_back("intra_nic=1");  // NVLink and the network NIC move data side by side
  }
  return out;
}

exec::ScaleUpMessages scale_up_messages(const topo::Topology& t, const net::FabricParams& fabric) {
  exec::ScaleUpMessages s;
  const std::uint32_t per_node = t.hosts_per_server();
  if (per_node <= 1 || t.num_hosts() < 2) return s;
  const Path intra = shortest_path(t, t.host(0), t.host(1));
  s.hosts_per_server = per_node;
  s.bits_per_s = intra.bottleneck_bps;
  s.latency = SimTime::ps(intra.latency_ps);
  s.mtu_bytes = fabric.mtu_bytes;
  s.header_bytes = fabric.header_bytes;
  return s;
}

}  // namespace collsim::cli
