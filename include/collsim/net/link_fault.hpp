#pragma once
// Links and switches that fail during a run, and the routing that follows them.
//
// At `down` a link stops carrying anything: what is on its wire or queued for it is lost,
// and what is sent on it later is lost too. The switch at either end stops using it at once
// (ECMP leaves dead ports: a packet it would have sent there takes another shortest-path
// port if one is left). Every other switch and host keeps its routes until `reconvergence`
// after the change, when all route on shortest paths over the links that are up then (tori
// and dragonflies included: a hop their own rule would take over a dead link goes by the
// shortest path instead). A link coming back up is used again once routes reconverge.
// Lost packets are recovered by the transport (timeouts and NACKs, in lossless fabrics
// too, where PFC alone assumes nothing is lost). A sender whose destination it cannot
// reach once routing has settled for good gives its message up, and the run reports it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net {

struct LinkFault {
  std::string what;                   // "link s0:s1", "switch spine0": for reports
  std::vector<topo::LinkId> links;    // one link, or every link of a switch
  SimTime down;
  SimTime up = SimTime::infinity();   // infinity: stays down
};

// "NODE_A:NODE_B@TIME" or "NODE_A:NODE_B@TIME..TIME2" (down at TIME, back at TIME2); throws
// std::invalid_argument saying what is wrong.
LinkFault parse_link_fault(std::string_view text, const topo::Topology& topology);
// "SWITCH@TIME" or "SWITCH@TIME..TIME2": every link of the switch.
LinkFault parse_switch_fault(std::string_view text, const topo::Topology& topology);

// One link going down or up.
struct LinkStateChange {
  topo::LinkId link = 0;
  SimTime at;
  bool down = false;
};

// The routes in force from `from` on: shortest paths over the links not marked down.
struct RoutingEpoch {
  SimTime from;
  std::vector<bool> link_down;  // by link
};

class FaultSchedule {
 public:
  FaultSchedule() = default;
  // Throws std::invalid_argument for a fault whose up is not after its down.
  FaultSchedule(std::vector<LinkFault> faults, SimTime reconvergence, std::size_t num_links);

  bool empty() const { return faults_.empty(); }
  const std::vector<LinkFault>& faults() const { return faults_; }
  // Every change of a link's state, by time then link; a link down twice at once is one change.
  const std::vector<LinkStateChange>& changes() const { return changes_; }
  // Epoch 0 is the fault-free routing from time 0 (or the routing over the links down at 0
  // when reconvergence is 0); one more after every time the set of down links changes.
  const std::vector<RoutingEpoch>& epochs() const { return epochs_; }
  bool down_at(topo::LinkId link, SimTime t) const;

 private:
  std::vector<LinkFault> faults_;
  SimTime reconvergence_;
  std::vector<LinkStateChange> changes_;
  std::vector<RoutingEpoch> epochs_;
};

// Whether host `a` can reach host `b` over the links not marked down (hosts do not forward).
class Reachability {
 public:
  Reachability(const topo::Topology& topology, const std::vector<bool>& link_down);
  bool reaches(std::uint32_t a, std::uint32_t b) const;

 private:
  // Per host, sorted: the components (of switches joined by live links) its live links lead
  // to, and, above the node ids, the live links that join it directly to another host.
  std::vector<std::vector<std::uint32_t>> attached_;
};

}  // namespace collsim::net
