#pragma once

#include "common/expect_input_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "collsim/common/input_error.hpp"
#include "collsim/topo/generators.hpp"
#include "collsim/topo/loader.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::topo::testing {

// The node called `name` (a test failure, and node 0, if there is none).
inline NodeId id(const Topology& t, const std::string& name) {
  const auto n = t.find(name);
  EXPECT_TRUE(n.has_value()) << name;
  return n.value_or(0);
}

inline std::string preset(const std::string& name) { return std::string(COLLSIM_TOPOLOGIES) + "/" + name; }

inline const char* const kPresets[] = {
    "fat_tree_k8.yaml",  "fat_tree_k16.yaml",     "leaf_spine_64.yaml",  "leaf_spine_128_200g.yaml",
    "dgx_a100_pod.yaml", "dgx_h100_superpod.yaml", "dragonfly_small.yaml", "torus_4x4x4.yaml",
};

// Generator parameters by position (GCC warns about designated initializers that leave
// members out).
inline FatTreeParams fat_tree(std::uint32_t k, std::uint32_t oversubscription = 1, LinkSpec link = {},
                              std::optional<LinkSpec> host_link = std::nullopt) {
  FatTreeParams p;
  p.k = k;
  p.oversubscription = oversubscription;
  p.link = link;
  p.host_link = host_link;
  return p;
}
inline LeafSpineParams leaf_spine(std::uint32_t leaves, std::uint32_t spines = 2, std::uint32_t hosts_per_leaf = 2,
                                  std::uint32_t uplinks_per_spine = 1, LinkSpec link = {},
                                  std::optional<LinkSpec> host_link = std::nullopt) {
  LeafSpineParams p;
  p.leaves = leaves;
  p.spines = spines;
  p.hosts_per_leaf = hosts_per_leaf;
  p.uplinks_per_spine = uplinks_per_spine;
  p.link = link;
  p.host_link = host_link;
  return p;
}
inline TorusParams torus(std::vector<std::uint32_t> dims, std::uint32_t hosts_per_switch = 1, LinkSpec link = {},
                         std::optional<LinkSpec> host_link = std::nullopt) {
  TorusParams p;
  p.dims = std::move(dims);
  p.hosts_per_switch = hosts_per_switch;
  p.link = link;
  p.host_link = host_link;
  return p;
}

inline Topology parse(const std::string& yaml) { return parse_topology(yaml, "t.yaml"); }

// Runs `f`, expects an InputError at the given line (and column, unless 0) of t.yaml whose
// message contains `needle`.
inline void expect_input_error(const std::function<void()>& f, std::uint64_t line, std::uint64_t column,
                               const std::string& needle) {
  collsim::testing::expect_input_error(f, line, column, needle, "t.yaml");
}

inline void expect_parse_error(const std::string& yaml, std::uint64_t line, std::uint64_t column,
                               const std::string& needle) {
  expect_input_error([&] { parse(yaml); }, line, column, needle);
}

// The exact bisection bandwidth by exhaustive search over the sides of the switches (for
// topologies without host-host links and with at most ~22 switches). Given the switches'
// sides, hosts are independent: a host on side s cuts its links to switches on the other side,
// so the best choice of floor(H/2) hosts for side 1 takes those with the smallest
// cost(side 1) - cost(side 0).
inline std::int64_t brute_force_bisection(const Topology& t) {
  std::vector<NodeId> switches;
  for (NodeId n = 0; n < t.nodes().size(); ++n)
    if (t.node(n).kind != NodeKind::Host) switches.push_back(n);
  const std::size_t S = switches.size();
  const std::uint32_t H = t.num_hosts();
  std::vector<std::uint8_t> side(t.nodes().size(), 0);
  // Start with every switch on side 0; c1[h] - c0[h] is what host h adds to the cut on side 1
  // rather than side 0. Switch 0 stays on side 0 (the sides are interchangeable once both host
  // counts are tried); the others are flipped one at a time in Gray-code order.
  std::vector<std::int64_t> c0(H, 0), c1(H, 0);
  for (std::uint32_t h = 0; h < H; ++h)
    for (const Port& p : t.ports(t.host(h))) c1[h] += t.link(p.link).bandwidth.bps();
  std::int64_t sw_cut = 0;
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> delta(H);
  for (std::uint64_t step = 0; step < (1ull << (S - 1)); ++step) {
    if (step > 0) {
      const NodeId flip = switches[1 + static_cast<std::size_t>(std::countr_zero(step))];
      side[flip] ^= 1;
      for (const Port& p : t.ports(flip)) {
        const std::int64_t bw = t.link(p.link).bandwidth.bps();
        if (t.node(p.peer).kind != NodeKind::Host) {
          sw_cut += side[p.peer] != side[flip] ? bw : -bw;
        } else {
          const std::uint32_t h = t.node(p.peer).index;
          // The link now crosses when the host is on the side the switch left.
          if (side[flip]) {
            c0[h] += bw;
            c1[h] -= bw;
          } else {
            c0[h] -= bw;
            c1[h] += bw;
          }
        }
      }
    }
    std::int64_t base = 0;  // all hosts on side 0
    for (std::uint32_t h = 0; h < H; ++h) {
      base += c0[h];
      delta[h] = c1[h] - c0[h];
    }
    std::sort(delta.begin(), delta.end());
    for (const std::uint32_t on_one : {H / 2, (H + 1) / 2}) {
      std::int64_t cost = sw_cut + base;
      for (std::uint32_t i = 0; i < on_one; ++i) cost += delta[i];
      best = std::min(best, cost);
    }
  }
  return best;
}

}  // namespace collsim::topo::testing
