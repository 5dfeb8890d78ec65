#pragma once
// Which port a switch sends a packet on, for each routing mode:
//   ecmp / minimal  - hash of the flow over the shortest-path ports
//   spray           - the same hash with a per-packet entropy
//   adaptive        - the shortest-path port with the fewest queued bytes of the class
//   dimension-order - tori: correct the first coordinate that differs, the short way round
//   valiant         - dragonflies: via a random router of a third group, then minimal
//   ugal            - dragonflies (UGAL-L): Valiant when its first port's queue times its
//                     path length is smaller than the minimal path's
//   rail            - senders told a NIC (a GOAL op's nic) put it in the packet's entropy,
//                     so each NCCL channel keeps to the NIC (rail) it is bound to: the host,
//                     the first switch of a one-port host and the switches next to the
//                     destination's take the neighbour the entropy picks modulo their
//                     shortest-path neighbours (then hash among parallel links to it);
//                     other switches hash (source, destination, entropy), one path per
//                     connection; flows not bound to a NIC carry their hash as entropy
// Valiant and UGAL decide at the first router a packet meets and record it in `via`.

#include <cstdint>
#include <vector>

#include "collsim/net/fabric_context.hpp"
#include "collsim/net/output_port.hpp"
#include "collsim/pdes/random_stream.hpp"

namespace collsim::net {

class PortChooser {
 public:
  // Throws std::invalid_argument when the mode needs a shape the topology lacks.
  PortChooser(const topo::Topology& topology, const FabricParams& params, const RoutingTable& table);

  // Inline for the hashed modes (every packet at every switch asks): the call and the
  // switch over modes cost as much as the lookup.
  std::uint16_t choose(topo::NodeId node, Packet& p, const std::vector<OutputPort>& ports,
                       pdes::RandomStream& random) const {
    if (!hashes_) return choose_otherwise(node, p, ports, random);
    const std::span<const topo::PortIndex> c = table_.next_ports(node, p.dst);
    if (c.size() == 1) return c[0];
    return hashed(node, p, c);
  }
  // The port a whole message takes from `node` under the flow model: its rail, its
  // dimension-order hop, or otherwise its ECMP hash (the modes that choose per packet or by
  // queue are the packet model's).
  std::uint16_t choose_for_flow(topo::NodeId node, HostIndex src, HostIndex dst, std::uint32_t entropy) const;

 private:
  // Adaptive, dimension-order, dragonfly and rail routing.
  std::uint16_t choose_otherwise(topo::NodeId node, Packet& p, const std::vector<OutputPort>& ports,
                                 pdes::RandomStream& random) const;
  [[noreturn]] void no_route(topo::NodeId node, const Packet& p) const;
  std::uint16_t hashed(topo::NodeId node, const Packet& p, std::span<const topo::PortIndex> candidates) const;
  std::uint16_t least_queued(topo::NodeId node, const Packet& p, std::span<const topo::PortIndex> candidates,
                             const std::vector<OutputPort>& ports) const;
  std::uint16_t dimension_order(topo::NodeId node, const Packet& p) const;
  std::uint16_t rail(topo::NodeId node, const Packet& p) const;
  std::uint16_t dragonfly(topo::NodeId node, Packet& p, const std::vector<OutputPort>& ports,
                          pdes::RandomStream& random) const;
  // Ports of `node` one step closer to router `target` (dragonfly).
  std::vector<topo::PortIndex> toward_router(topo::NodeId node, topo::NodeId target) const;
  std::uint32_t router_distance(topo::NodeId a, topo::NodeId b) const;

  const topo::Topology& topology_;
  const FabricParams& params_;
  const RoutingTable& table_;
  bool hashes_ = false;  // ECMP, spray, minimal: a hash over the shortest-path ports
  std::vector<topo::NodeId> attached_switch_;  // per host: the switch it hangs off
  // dragonfly: switch-to-switch hop counts, by switch index
  std::vector<std::uint16_t> router_distance_;
  std::vector<topo::NodeId> switch_node_;  // by switch index
  std::uint32_t switch_count_ = 0;
};

}  // namespace collsim::net
