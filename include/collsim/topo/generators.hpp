#pragma once
// Generators of the standard topologies. The YAML loader calls these with the file's
// parameters; tests and tools can call them directly.
//
// Every generator adds the hosts first (so host rank h is node h), then the switches, then the
// links in a fixed order, which fixes the port numbering documented with each function. Hosts
// of all kinds but `rail` belong to a "server" of their own (server = host rank).
//
// A parameter out of range throws ParameterError naming the parameter; the generators also
// refuse networks above kMaxGeneratedNodes nodes or kMaxGeneratedLinks links (typos such as
// k: 1000) and switches with more than 65535 ports.
//
// Each generator records the bisection bandwidth it derives in closed form
// (Topology::closed_form_bisection()); the derivations are commented in generators.cpp.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collsim/topo/topology.hpp"

namespace collsim::topo {

inline constexpr std::uint64_t kMaxGeneratedNodes = 1ull << 24;
inline constexpr std::uint64_t kMaxGeneratedLinks = 1ull << 26;

// One kind of link: bandwidth (each direction) and propagation latency.
struct LinkSpec {
  Bandwidth bandwidth = Bandwidth::gbps(100);
  SimTime latency = SimTime::us(1);
};

// A generator parameter out of range; parameter() is its key in the YAML file.
class ParameterError : public std::invalid_argument {
 public:
  ParameterError(std::string parameter, const std::string& message)
      : std::invalid_argument(message), parameter_(std::move(parameter)) {}
  const std::string& parameter() const { return parameter_; }

 private:
  std::string parameter_;
};

// k-ary fat tree (Al-Fares et al. 2008): k pods of k/2 edge and k/2 aggregation switches,
// (k/2)^2 core switches. Each edge switch has oversubscription*k/2 hosts and k/2 uplinks (one to
// each aggregation switch of its pod); aggregation switch j of every pod connects to core
// switches j*k/2 .. j*k/2+k/2-1.
// Hosts ("h<rank>"): pod by pod, edge switch by edge switch. Switches: "pod<p>_edge<e>" (pod by
// pod), then "pod<p>_agg<a>", then "core<c>".
// Ports: host 0 = its edge switch. Edge switch: 0..o*k/2-1 its hosts in rank order, o*k/2+a =
// aggregation switch a of its pod. Aggregation switch a: 0..k/2-1 = edge switch e of its pod,
// k/2+i = core a*k/2+i. Core switch: port p = pod p.
struct FatTreeParams {
  std::uint32_t k = 4;                 // even, >= 2
  std::uint32_t oversubscription = 1;  // >= 1
  LinkSpec link;                       // edge-aggregation and aggregation-core links
  std::optional<LinkSpec> host_link;   // host-edge links; default: link
  SwitchParams switch_params;
};
Topology make_fat_tree(const FatTreeParams& p);

// Two-level leaf-spine (folded Clos): every leaf linked to every spine by uplinks_per_spine
// parallel links. Hosts ("h<rank>"): leaf by leaf. Switches: "leaf<l>", then "spine<s>".
// Ports: host 0 = its leaf. Leaf: 0..n-1 its hosts in rank order, n+s*u+m = m-th link to spine
// s. Spine: l*u+m = m-th link to leaf l.
struct LeafSpineParams {
  std::uint32_t leaves = 2;             // >= 1
  std::uint32_t spines = 2;             // >= 1 (0 only with a single leaf)
  std::uint32_t hosts_per_leaf = 2;     // >= 1
  std::uint32_t uplinks_per_spine = 1;  // >= 1
  LinkSpec link;                        // leaf-spine links
  std::optional<LinkSpec> host_link;    // host-leaf links; default: link
  SwitchParams switch_params;
};
Topology make_leaf_spine(const LeafSpineParams& p);

// Rail-optimised GPU cluster (DGX SuperPOD-like). Server s has GPUs "s<s>g<g>" (hosts, server
// = s) linked by NVLink to the server's NVSwitch "nvs<s>" (NodeKind::NvSwitch). GPU g of every
// server has a NIC link to a leaf of rail g, "rail<g>leaf<l>", which serves servers
// l*P .. l*P+P-1 (P = servers_per_leaf; ceil(servers/P) leaves per rail). Every leaf is linked
// to every spine "spine<j>" by uplinks_per_spine parallel fabric links.
// Hosts: server by server, GPU by GPU (rank = s*gpus_per_server + g). Switches: the NVSwitches,
// then the leaves rail by rail, then the spines.
// Ports: GPU 0 = its NVSwitch, 1 = its rail leaf. NVSwitch: g = GPU g. Leaf: 0.. = its servers in
// order, then (#servers on the leaf)+j*u+m = m-th link to spine j. Spine: (g*leaves_per_rail+l)*u+m.
struct RailParams {
  std::uint32_t servers = 2;            // >= 1
  std::uint32_t gpus_per_server = 8;    // >= 1
  std::uint32_t servers_per_leaf = 0;   // 0: all servers on one leaf per rail
  std::uint32_t spines = 1;             // 0 only if the GPUs are connected without spines
  std::uint32_t uplinks_per_spine = 1;  // >= 1
  LinkSpec nvlink{Bandwidth::gbps(2400), SimTime::ns(100)};
  LinkSpec nic{Bandwidth::gbps(200), SimTime::ns(500)};
  LinkSpec fabric_link{Bandwidth::gbps(200), SimTime::ns(500)};
  SwitchParams switch_params;
  SwitchParams nvswitch_params;
};
Topology make_rail(const RailParams& p);

// Dragonfly (Kim et al. 2008): groups of routers_per_group routers, fully connected inside a
// group by local links; each router has hosts_per_router hosts and up to
// global_links_per_router global links. Global arrangement ("consecutive"): the a*h global
// ports of a group are numbered q = r*h+t (router r, its t-th global link); port q of group i
// goes to group (i + 1 + q mod (g-1)) mod g, and pairs with port c*(g-1) + (g-2 - q mod (g-1)) of
// that group, c = q / (g-1). With g-1 <= a*h every pair of groups has at least one global link
// (exactly a*h/(g-1) when that divides); ports whose partner would lie beyond a*h stay unused.
// Groups > a*h+1 would leave pairs of groups unconnected and are refused.
// Hosts ("h<rank>"): group by group, router by router. Switches: routers "g<i>r<r>" in group
// order (the first switches, as DragonflyShape requires).
// Ports: host 0 = its router. Router: 0..p-1 its hosts, p+(peer<r ? peer : peer-1) = local link
// to router peer of its group, then its global links in the order of the link list (by the
// lower group of the pair, then that group's port q).
struct DragonflyParams {
  std::uint32_t groups = 3;                   // >= 1
  std::uint32_t routers_per_group = 2;        // >= 1
  std::uint32_t hosts_per_router = 1;         // >= 1
  std::uint32_t global_links_per_router = 1;  // >= 1 when groups > 1
  LinkSpec link;                              // default of the three below
  std::optional<LinkSpec> host_link;
  std::optional<LinkSpec> local_link;
  std::optional<LinkSpec> global_link;
  SwitchParams switch_params;
};
Topology make_dragonfly(const DragonflyParams& p);

// Torus of 2 or 3 dimensions: switch i at coordinates i = x0 + d0*(x1 + d1*x2), named
// "sw<x0>_<x1>[_<x2>]", linked to its +1 neighbour in each dimension with wrap-around (a
// dimension of size 2 has one link per pair, not two). Each switch has hosts_per_switch hosts.
// Hosts ("h<rank>"): switch by switch. Ports: host 0 = its switch. Switch: 0..p-1 its hosts, then
// its torus links in the order of the link list (switch by switch, dimension by dimension, each
// link listed at its lower end - the switch whose +1 neighbour the other is).
struct TorusParams {
  std::vector<std::uint32_t> dims{4, 4};  // 2 or 3 entries, each >= 2
  std::uint32_t hosts_per_switch = 1;     // >= 1
  LinkSpec link;                          // switch-switch links
  std::optional<LinkSpec> host_link;      // default: link
  SwitchParams switch_params;
};
Topology make_torus(const TorusParams& p);

}  // namespace collsim::topo
