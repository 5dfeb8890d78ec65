#pragma once
// A small cluster for executor tests: servers of GPUs on an NVSwitch each, and one leaf switch
// for the network.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/topo/topology.hpp"

namespace collsim::exec::testing {

// `servers` servers of `gpus` GPUs: each GPU on its server's NVSwitch (2400 Gb/s, 100 ns) and
// on one leaf switch for the network (200 Gb/s, 500 ns).
inline topo::Topology servers_on_a_leaf(std::uint32_t servers, std::uint32_t gpus) {
  topo::Topology t;
  std::vector<topo::NodeId> hosts;
  for (std::uint32_t s = 0; s < servers; ++s)
    for (std::uint32_t g = 0; g < gpus; ++g)
      hosts.push_back(t.add_node("gpu" + std::to_string(s) + "_" + std::to_string(g), topo::NodeKind::Host, {}, s));
  const topo::NodeId leaf = t.add_node("leaf", topo::NodeKind::Switch);
  for (std::uint32_t s = 0; s < servers; ++s) {
    const topo::NodeId nvs = t.add_node("nvs" + std::to_string(s), topo::NodeKind::NvSwitch);
    for (std::uint32_t g = 0; g < gpus; ++g)
      t.add_link(hosts[s * gpus + g], nvs, Bandwidth::gbps(2400), SimTime::ns(100), topo::LinkMedium::NvLink);
  }
  for (topo::NodeId h : hosts) t.add_link(h, leaf, Bandwidth::gbps(200), SimTime::ns(500));
  return t;
}

}  // namespace collsim::exec::testing
