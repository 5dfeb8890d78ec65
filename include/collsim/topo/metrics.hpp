#pragma once
// Size, distances and bisection bandwidth of a topology (what `collsim topo show` prints).

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/topo/topology.hpp"

namespace collsim::topo {

// Links that share medium, bandwidth and latency.
struct LinkClass {
  LinkMedium medium = LinkMedium::Network;
  Bandwidth bandwidth;
  SimTime latency;
  std::uint64_t count = 0;
};

std::string_view to_string(LinkMedium medium);

struct TopologyMetrics {
  std::uint32_t hosts = 0;
  std::uint32_t switches = 0;    // NodeKind::Switch and NodeKind::NvSwitch
  std::uint32_t nvswitches = 0;  // NodeKind::NvSwitch only
  std::uint64_t links = 0;
  std::vector<LinkClass> link_classes;  // by medium, then bandwidth, then latency
  Bandwidth min_link_bandwidth;
  Bandwidth max_link_bandwidth;
  SimTime min_link_latency;
  SimTime max_link_latency;
  std::uint32_t max_switch_ports = 0;  // largest radix in use
  std::uint32_t max_host_ports = 0;

  // Hop counts between hosts over shortest paths (paths never pass through a host).
  bool connected = true;            // every host reaches every other host
  std::uint32_t diameter_hops = 0;  // largest shortest-path length between two hosts
  double mean_hops = 0;             // mean over all pairs of distinct hosts

  // Capacity, one direction, of the smallest cut that splits the hosts into two halves
  // (floor(H/2) and ceil(H/2)); switches go to either side.
  std::int64_t bisection_bandwidth_bps = 0;
  bool bisection_exact = false;  // false: an estimate (the best balanced cut found), an upper bound
  std::string bisection_method;  // "closed form: <formula>", or how it was estimated
};

// Diameter and mean: one breadth-first search over the switches per distinct set of switches
// that hosts are attached to (a fat tree with k=16 needs 128, not 1024). Bisection: the
// generator's closed form when it is exact; otherwise the best of METIS's balanced host
// bisection (hosts weigh 1, switches 0, links weigh their bandwidth), the cut that isolates the
// half of the hosts with the least link bandwidth, and the generator's cut if any.
TopologyMetrics compute_metrics(const Topology& topology);

// Hops on a shortest path from host rank `from` to every host rank (0 to itself, UINT32_MAX if
// unreachable); paths never pass through a host.
std::vector<std::uint32_t> host_hops_from(const Topology& topology, std::uint32_t from);

// Bandwidth (bit/s, one direction) of the links between side 0 and side 1 (`side[n]` for every
// node n).
std::int64_t cut_bandwidth(const Topology& topology, const std::vector<std::uint8_t>& side);

// The METIS part of compute_metrics: a balanced host bisection; `side` receives the partition.
std::int64_t estimate_bisection_metis(const Topology& topology, std::vector<std::uint8_t>* side = nullptr);

}  // namespace collsim::topo
