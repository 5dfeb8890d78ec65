#pragma once
// Small topologies built in code, and a one-call flow run, for the fabric's scenario tests.

#include <string>
#include <vector>

#include "collsim/net/flow_driver.hpp"
#include "collsim/pdes/transport.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net::testing {

// Picoseconds per byte at 100 Gb/s, and the latency of the 1 us links most scenarios use.
inline constexpr std::int64_t kPsPerByte = 80;
inline constexpr std::int64_t kLinkPs = 1'000'000;

inline Bandwidth gbps(std::int64_t g) { return Bandwidth::gbps(g); }
inline SimTime ns(std::int64_t v) { return SimTime::ns(v); }

// h0 - s0 - s1 - ... - h1 with the given link latencies (hops = latencies.size()).
inline topo::Topology chain(const std::vector<SimTime>& latencies, Bandwidth bw) {
  topo::Topology t;
  const topo::NodeId h0 = t.add_node("h0", topo::NodeKind::Host);
  const topo::NodeId h1 = t.add_node("h1", topo::NodeKind::Host);
  topo::NodeId prev = h0;
  for (std::size_t i = 0; i + 1 < latencies.size(); ++i) {
    const topo::NodeId s = t.add_node("s" + std::to_string(i), topo::NodeKind::Switch);
    t.add_link(prev, s, bw, latencies[i]);
    prev = s;
  }
  t.add_link(prev, h1, bw, latencies.back());
  return t;
}

// `hosts` hosts on one switch.
inline topo::Topology star(std::uint32_t hosts, Bandwidth bw, SimTime latency, topo::SwitchParams sw = {}) {
  topo::Topology t;
  std::vector<topo::NodeId> h;
  for (std::uint32_t i = 0; i < hosts; ++i) h.push_back(t.add_node("h" + std::to_string(i), topo::NodeKind::Host));
  const topo::NodeId s = t.add_node("s", topo::NodeKind::Switch, sw);
  for (topo::NodeId host : h) t.add_link(host, s, bw, latency);
  return t;
}

// Two-tier leaf-spine: `leaves` x `per_leaf` hosts, every leaf linked to every spine.
inline topo::Topology leaf_spine(std::uint32_t leaves, std::uint32_t per_leaf, std::uint32_t spines, Bandwidth bw,
                                 SimTime latency) {
  topo::Topology t;
  for (std::uint32_t l = 0; l < leaves; ++l)
    for (std::uint32_t i = 0; i < per_leaf; ++i)
      t.add_node("h" + std::to_string(l) + "_" + std::to_string(i), topo::NodeKind::Host);
  std::vector<topo::NodeId> leaf, spine;
  for (std::uint32_t l = 0; l < leaves; ++l) leaf.push_back(t.add_node("leaf" + std::to_string(l), topo::NodeKind::Switch));
  for (std::uint32_t s = 0; s < spines; ++s) spine.push_back(t.add_node("spine" + std::to_string(s), topo::NodeKind::Switch));
  for (std::uint32_t l = 0; l < leaves; ++l)
    for (std::uint32_t i = 0; i < per_leaf; ++i) t.add_link(t.host(l * per_leaf + i), leaf[l], bw, latency);
  for (std::uint32_t l = 0; l < leaves; ++l)
    for (std::uint32_t s = 0; s < spines; ++s) t.add_link(leaf[l], spine[s], bw, latency);
  return t;
}

inline FlowRun run(const topo::Topology& t, const FabricParams& params, const std::vector<FlowSpec>& flows) {
  auto transport = pdes::make_local_transport();
  return run_flows(t, params, *transport, FabricOptions{}, flows);
}

}  // namespace collsim::net::testing
